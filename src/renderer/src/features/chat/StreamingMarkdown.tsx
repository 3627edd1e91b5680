import { useLayoutEffect, useMemo, useReducer, useRef, type RefObject } from 'react';
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

/**
 * One answer's markdown, shown from the store's text as it streams (issue 50). A streamed batch
 * that only adds text (most of them) does not render the turn in React (TurnRow keeps its turn:
 * `keepWhileOnlyTextGrew`): the store's notification, in the frame's animation callback, updates
 * the blocks in place here. React renders the answer when anything else changed, and then reads
 * the text from the store too, so a render never shows less than the page already does. A batch
 * that gives a citation its number renders the answer, so the list of sources shows the number.
 * Returns the renderer (its numbering) and the ref for the blocks' host element.
 */
export function useLiveAnswerMarkdown(turnId: string, propText: string, streaming: boolean, currentText: (turnId: string) => string | null, subscribe: (listener: () => void) => () => void): { markdown: IncrementalMarkdown; host: RefObject<HTMLDivElement | null> } {
  const markdown = useRef<IncrementalMarkdown | null>(null);
  markdown.current ??= new IncrementalMarkdown();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<BlockDom | null>(null);
  /** The text and mode last given to the renderer, and its blocks then: each text is rendered once. */
  const last = useRef<{ text: string; streaming: boolean; frozen: readonly RenderedBlock[]; tail: readonly RenderedBlock[] } | null>(null);
  const [, renumbered] = useReducer((n: number) => n + 1, 0);
  const render = (text: string, live: boolean): NonNullable<typeof last.current> => {
    if (last.current && last.current.text === text && last.current.streaming === live) return last.current;
    const { frozen, tail } = markdown.current!.update(text, live);
    last.current = { text, streaming: live, frozen, tail };
    return last.current;
  };
  // In render: the store's text (the turn handed in may be one kept while only text grew).
  const shown = render((streaming && currentText(turnId)) || propText, streaming);
  useLayoutEffect(() => {
    view.current ??= new BlockDom(host.current!);
    view.current.show(shown.frozen, shown.tail);
  });
  const liveRef = useRef(streaming);
  liveRef.current = streaming;
  useLayoutEffect(() => {
    const onChange = (): void => {
      if (!liveRef.current || !host.current) return;
      const text = currentText(turnId);
      if (text === null) return;
      const numbers = markdown.current!.numbering.snapshot();
      const next = render(text, true);
      view.current ??= new BlockDom(host.current);
      view.current.show(next.frozen, next.tail);
      if (markdown.current!.numbering.snapshot() !== numbers) renumbered();
    };
    onChange();
    return subscribe(onChange);
  }, [turnId, currentText, subscribe]);
  return { markdown: markdown.current, host };
}
