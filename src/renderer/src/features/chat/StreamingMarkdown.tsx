import { useLayoutEffect, useMemo, useRef } from 'react';
import { BlockDom } from './block-dom';
import { IncrementalMarkdown, type RenderedBlock } from './markdown';

/**
 * Incremental markdown for one answer: finished blocks are frozen, only the tail re-renders
 * (docs/decisions/conventions.md §6). Returns the blocks and the citation numbering they used.
 */
export function useStreamingMarkdown(text: string, streaming: boolean): { frozen: readonly RenderedBlock[]; tail: readonly RenderedBlock[]; markdown: IncrementalMarkdown } {
  const markdown = useRef<IncrementalMarkdown | null>(null);
  markdown.current ??= new IncrementalMarkdown();
  const { frozen, tail } = useMemo(() => markdown.current!.update(text, streaming), [text, streaming]);
  return { frozen, tail, markdown: markdown.current };
}

/**
 * The blocks, shown by BlockDom rather than by React: frozen blocks are inserted once, the
 * streaming tail is morphed in place (only its new part changes), and sanitised nodes are
 * copied in instead of HTML being parsed again. React renders only the empty host.
 */
export function MarkdownBlocks({ frozen, tail }: { frozen: readonly RenderedBlock[]; tail: readonly RenderedBlock[] }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<BlockDom | null>(null);
  useLayoutEffect(() => {
    view.current ??= new BlockDom(host.current!);
    view.current.show(frozen, tail);
  }, [frozen, tail]);
  return <div ref={host} className="md-blocks" />;
}
