import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';

interface VirtualListProps<T> {
  items: readonly T[];
  keyOf(item: T): string;
  render(item: T, index: number): ReactNode;
  /** A first guess at an item's height; real heights are measured as items render. */
  estimateHeight: number;
  /** Changes when the reader starts something new (asks a follow-up): the new last item comes into view even if scrolled up. */
  followKey?: unknown;
  className?: string;
  testId?: string;
  footer?: ReactNode;
}

/**
 * One row's content: rendered again only when its item changes (a new object), not each time
 * the list re-renders (the virtualiser re-renders it as rows are measured and scrolled).
 * `render` must depend on the item alone.
 */
const Row = memo(
  function Row<T>({ item, index, render }: { item: T; index: number; render(item: T, index: number): ReactNode }) {
    return render(item, index);
  },
  (before, after) => before.item === after.item && before.index === after.index,
) as <T>(props: { item: T; index: number; render(item: T, index: number): ReactNode }) => ReactNode;

/**
 * A list that renders only what is on screen (and a little around it), with measured,
 * variable heights: a conversation of 1,000 answers opens as fast as one of ten. While the
 * reader is at the bottom, it stays at the bottom as items are added or the last one grows.
 */
export function VirtualList<T>({ items, keyOf, render, estimateHeight, followKey, className, testId, footer }: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const sizer = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const followed = useRef(followKey);
  /** Set when a new item was brought into view from higher up: it stays put (no following) until the reader scrolls. */
  const pinned = useRef(false);
  /** Where following last put the list; Infinity once the reader has scrolled away. */
  const followedTo = useRef(Infinity);
  const follow = (): void => {
    const element = scroller.current;
    if (!element || pinned.current || !atBottom.current || items.length === 0) return;
    const bottom = element.scrollHeight - element.clientHeight;
    if (element.scrollTop < bottom - 1) element.scrollTop = bottom;
    followedTo.current = element.scrollTop;
  };
  /** True while a mounting row is measured, inside React's commit (the effect below follows then). */
  const mounting = useRef(false);
  const totalSize = useRef(0);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimateHeight,
    overscan: 4,
    getItemKey: (index) => keyOf(items[index]!),
    // A row changed size (the last answer grew): its ResizeObserver reports it after the
    // browser's own layout, where reading scrollHeight to follow the end costs no layout of its
    // own (an effect per update forced a synchronous one). Only on a change of size: following
    // on a scroll would undo the reader's scrolling up.
    onChange: (instance) => {
      const total = instance.getTotalSize();
      if (total === totalSize.current) return;
      totalSize.current = total;
      if (!mounting.current) follow();
    },
  });
  const measureRow = useCallback(
    (node: HTMLDivElement | null) => {
      mounting.current = true;
      try {
        virtualizer.measureElement(node);
      } finally {
        mounting.current = false;
      }
    },
    [virtualizer],
  );

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const onScroll = (): void => {
      // Our own following leaves the list where it put it (or lower). Judged by the distance to
      // the end instead, a scroll event arriving after the answer grew again (its last part comes
      // outside a frame) would look like the reader leaving the end.
      if (element.scrollTop >= followedTo.current - 1) return;
      followedTo.current = Infinity;
      atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
    };
    const onReaderScroll = (): void => {
      pinned.current = false;
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    for (const name of ['wheel', 'pointerdown', 'keydown', 'touchstart'] as const) element.addEventListener(name, onReaderScroll, { passive: true });
    return () => {
      element.removeEventListener('scroll', onScroll);
      for (const name of ['wheel', 'pointerdown', 'keydown', 'touchstart'] as const) element.removeEventListener(name, onReaderScroll);
    };
  }, []);

  // A new item (a question asked): follow the end if the reader is there; the last item
  // growing is followed in onChange above.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (followed.current !== followKey) {
      followed.current = followKey;
      // Scrolled up when asking: bring the new item into view and let the reader read it from its start.
      pinned.current = element !== null && !atBottom.current && items.length > 0;
      if (pinned.current) {
        virtualizer.scrollToIndex(items.length - 1, { align: 'start' });
        return;
      }
    }
    if (!element || pinned.current || !atBottom.current || items.length === 0) return;
    // One forced layout: the new last row is rendered (it is within the overscan of the end the
    // reader was at) and was measured as it mounted; the total height is set to include that
    // measure now, not one commit later. Rows still at their estimated size when a long
    // conversation opens are followed from onChange as they are measured.
    if (sizer.current) sizer.current.style.height = `${virtualizer.getTotalSize()}px`;
    element.scrollTop = element.scrollHeight;
    followedTo.current = element.scrollTop;
  }, [items.length, followKey, virtualizer]);

  return (
    <div ref={scroller} className={className} data-testid={testId}>
      <div ref={sizer} style={{ height: virtualizer.getTotalSize(), position: 'relative', width: '100%' }}>
        {virtualizer.getVirtualItems().map((row) => (
          <div
            key={row.key}
            data-index={row.index}
            ref={measureRow}
            style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${row.start}px)` }}
          >
            <Row item={items[row.index]!} index={row.index} render={render} />
          </div>
        ))}
      </div>
      {footer}
    </div>
  );
}
