import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';

interface VirtualListProps<T> {
  items: readonly T[];
  keyOf(item: T): string;
  render(item: T, index: number): ReactNode;
  /** A first guess at an item's height; real heights are measured as items render. */
  estimateHeight: number;
  /** Changes whenever the last item grows (a streaming answer): the list follows it if at the bottom. */
  tailVersion?: unknown;
  /** Changes when the reader starts something new (asks a follow-up): the new last item comes into view even if scrolled up. */
  followKey?: unknown;
  className?: string;
  testId?: string;
  footer?: ReactNode;
}

/**
 * A list that renders only what is on screen (and a little around it), with measured,
 * variable heights: a conversation of 1,000 answers opens as fast as one of ten. While the
 * reader is at the bottom, it stays at the bottom as items are added or the last one grows.
 */
export function VirtualList<T>({ items, keyOf, render, estimateHeight, tailVersion, followKey, className, testId, footer }: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const followed = useRef(followKey);
  /** Set when a new item was brought into view from higher up: it stays put (no following) until the reader scrolls. */
  const pinned = useRef(false);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimateHeight,
    overscan: 4,
    getItemKey: (index) => keyOf(items[index]!),
  });

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const onScroll = (): void => {
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

  // Follow the end while the reader is there: new items, and the last one growing.
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
    virtualizer.scrollToIndex(items.length - 1, { align: 'end' });
    element.scrollTop = element.scrollHeight;
  }, [items.length, tailVersion, followKey, virtualizer]);

  return (
    <div ref={scroller} className={className} data-testid={testId}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative', width: '100%' }}>
        {virtualizer.getVirtualItems().map((row) => (
          <div
            key={row.key}
            data-index={row.index}
            ref={virtualizer.measureElement}
            style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${row.start}px)` }}
          >
            {render(items[row.index]!, row.index)}
          </div>
        ))}
      </div>
      {footer}
    </div>
  );
}
