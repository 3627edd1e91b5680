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

/**
 * The frozen blocks as one unit: while the tail streams, React skips them all at once instead
 * of comparing each of a long answer's blocks on every update. The renderer only ever appends
 * to its frozen list, so its length says whether anything changed.
 */
const FrozenBlocks = memo(
  function FrozenBlocks({ blocks }: { blocks: readonly RenderedBlock[]; count: number }) {
    return blocks.map((block) => <FrozenBlock key={block.key} html={block.html} />);
  },
  (before, after) => before.blocks === after.blocks && before.count === after.count,
);

export function MarkdownBlocks({ frozen, tail }: { frozen: readonly RenderedBlock[]; tail: readonly RenderedBlock[] }) {
  return (
    <>
      <FrozenBlocks blocks={frozen} count={frozen.length} />
      {tail.map((block) => (
        <div key={block.key} className="md-block md-tail" dangerouslySetInnerHTML={{ __html: block.html }} />
      ))}
    </>
  );
}
