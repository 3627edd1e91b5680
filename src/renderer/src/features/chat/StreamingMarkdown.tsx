import { memo, useMemo, useRef } from 'react';
import { IncrementalMarkdown, type RenderedBlock } from './markdown';

/** A finished block: its HTML never changes, so React never touches it again. */
const FrozenBlock = memo(function FrozenBlock({ html }: { html: string }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

/**
 * Incremental markdown for one answer: finished blocks are frozen, only the tail re-renders
 * (STYLE §6). Returns the blocks and the citation numbering they used.
 */
export function useStreamingMarkdown(text: string, streaming: boolean): { frozen: readonly RenderedBlock[]; tail: readonly RenderedBlock[]; markdown: IncrementalMarkdown } {
  const markdown = useRef<IncrementalMarkdown | null>(null);
  markdown.current ??= new IncrementalMarkdown();
  const { frozen, tail } = useMemo(() => markdown.current!.update(text, streaming), [text, streaming]);
  return { frozen, tail, markdown: markdown.current };
}

export function MarkdownBlocks({ frozen, tail }: { frozen: readonly RenderedBlock[]; tail: readonly RenderedBlock[] }) {
  return (
    <>
      {frozen.map((block) => (
        <FrozenBlock key={block.key} html={block.html} />
      ))}
      {tail.map((block) => (
        <div key={block.key} className="md-block md-tail" dangerouslySetInnerHTML={{ __html: block.html }} />
      ))}
    </>
  );
}
