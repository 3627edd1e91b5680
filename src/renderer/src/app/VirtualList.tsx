import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useReducer, useRef, type ReactNode } from 'react';
import { flushSync } from 'react-dom';

/** A scroll position past any list's end: written, the browser puts the list at its end. */
const PAST_THE_END = 1e9;

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

/** The virtualiser's offsets' bookkeeping (virtual-core 3.19.11, pinned by react-virtual): private there, used by `offsetsFrom`. */
interface OffsetInternals {
  /** The first row whose offset is owed (a row measured since); null when none is. */
  pendingMin: number | null;
  /** Memoised on count, key function and spacing: a change makes the next offsets start from row 0. */
  getMeasurementOptions(): unknown;
  /** The offsets last computed (null before the first). */
  _singleLaneMeasurements: unknown;
}

/**
 * Issue 50, round 9: after an append, the virtualiser computes the new rows' offsets alone. Its
 * offsets are prefix sums kept in a typed array, recomputed from the first row whose size changed;
 * a new count made it recompute every row (a key, a size lookup and an estimate for each of
 * 1,000 rows on every question asked). Told that the first `from` rows are the same, it copies
 * their offsets and computes from there, as it does after a row is measured. Rows measured but
 * not yet placed again are kept owed.
 */
function offsetsFrom(virtualizer: unknown, from: number): void {
  const internals = virtualizer as OffsetInternals;
  if (internals._singleLaneMeasurements === null || typeof internals.getMeasurementOptions !== 'function' || !('pendingMin' in internals)) return;
  const owed = internals.pendingMin;
  internals.getMeasurementOptions();
  internals.pendingMin = Math.min(owed ?? from, from);
}

/** How many items at the start of `items` are the very items (by identity) at the start of `before`. */
function samePrefix<T>(items: readonly T[], before: readonly T[]): number {
  const n = Math.min(items.length, before.length);
  let i = 0;
  while (i < n && items[i] === before[i]) i += 1;
  return i;
}

/**
 * A list that renders only what is on screen (and a little around it), with measured,
 * variable heights: a conversation of 1,000 answers opens as fast as one of ten. While the
 * reader is at the bottom, it stays at the bottom as items are added or the last one grows.
 */
export function VirtualList<T>({ items, keyOf, render, estimateHeight, followKey, className, testId, footer }: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const followed = useRef(followKey);
  /** Set when a new item was brought into view from higher up: it stays put (no following) until the reader scrolls. */
  const pinned = useRef(false);
  /** Where following last put the list; Infinity once the reader has scrolled away. */
  const followedTo = useRef(Infinity);
  /** A new last item to follow to once it is laid out (set in the commit, done after layout). */
  const followNew = useRef(false);
  const follow = (): void => {
    followNew.current = false;
    const element = scroller.current;
    if (!element || pinned.current || !atBottom.current || items.length === 0) return;
    // Issue 50, round 8: the end without reading it first. The browser clamps a scroll position
    // past the end to the end, so no `scrollHeight`, `clientHeight` or `scrollTop` is read
    // before the write (each read lays out whatever the frame dirtied since its layout; the
    // write then finds it laid out); the position read after it costs no layout of its own.
    element.scrollTop = PAST_THE_END;
    followedTo.current = element.scrollTop;
  };
  const totalSize = useRef(0);
  /** The rows as last rendered: their keys and offsets. */
  const placed = useRef<ReadonlyArray<{ key: unknown; start: number }>>([]);
  const hasFooter = useRef(false);
  hasFooter.current = footer !== undefined && footer !== null;
  /** Set by a size the rows' ResizeObserver reported: the list is laid out again before paint. */
  const observed = useRef(false);
  /** The holder's height as last rendered. */
  const shownHolder = useRef(0);
  /**
   * The holder's height for these rows: with the last item rendered (and nothing under the
   * holder), where that item starts (see the render below); otherwise the total.
   */
  const holderHeightOf = (rows: ReadonlyArray<{ index: number; start: number }>, count: number, total: number): number => {
    const last = rows.at(-1);
    return !hasFooter.current && last && last.index === count - 1 ? last.start : total;
  };
  /** Whether the list would render anything different from what it last rendered: a row in or out, a row moved, the holder's height. */
  const outdated = (instance: { getVirtualItems(): ReadonlyArray<{ key: unknown; index: number; start: number }>; getTotalSize(): number; options: { count: number } }): { moved: boolean; holder: boolean } => {
    const rows = instance.getVirtualItems();
    const moved = rows.length !== placed.current.length || rows.some((row, i) => row.key !== placed.current[i]!.key || row.start !== placed.current[i]!.start);
    return { moved, holder: holderHeightOf(rows, instance.options.count, instance.getTotalSize()) !== shownHolder.current };
  };
  const [, relayout] = useReducer((n: number) => n + 1, 0);
  /** The items and key function the virtualiser's offsets were last computed for (see offsetsFrom). */
  const measuredFor = useRef<{ items: readonly T[]; keyOf(item: T): string } | null>(null);
  // The same function while the items are the same array: the virtualiser recomputes every row's
  // offset (a loop over all of them, 1,000 in a long conversation) whenever its options change,
  // and a new function each render made every render (a scroll, a measured row) do that loop.
  const getItemKey = useCallback((index: number) => keyOf(items[index]!), [items, keyOf]);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimateHeight,
    overscan: 4,
    getItemKey,
    // Issue 50, round 5 (decision 0051): react-virtual renders the list after a notification only when its visible
    // range changed, not after every one. The last answer growing notified once per streamed frame,
    // and each notification rendered the list a moment after the frame's paint to show the same
    // rows at the same places. No container is handed to it (no `containerRef`), so it writes no
    // style itself; onChange below renders the list whenever a row or the holder would change.
    directDomUpdates: true,
    // Rows are measured only by their ResizeObserver, after the browser's own layout and before
    // paint (issue 31). Measured from the row's ref instead, inside React's commit, reading its
    // height forced a synchronous layout of the whole new row there: a new row keeps the size
    // known for its key, or the estimate, until its first observation a moment later.
    measureElement: (element, entry, instance) => {
      const box = entry?.borderBoxSize?.[0];
      if (box) {
        // Only for this callback's own notification: a size equal to the known one notifies nothing.
        if (!observed.current) queueMicrotask(() => (observed.current = false));
        observed.current = true;
        return Math.round(box.blockSize);
      }
      if (entry) return element.getBoundingClientRect().height;
      return instance.itemSizeCache.get(instance.options.getItemKey(instance.indexFromElement(element))) ?? estimateHeight;
    },
    // A row changed size (mounted, or the last answer grew): in the rows' ResizeObserver callback,
    // after the browser's layout and before paint. The rows are placed again at once (React would
    // otherwise do it after this frame's paint: rows overlapping for a frame), then the end is
    // followed, by a scroll position written past the end (no layout of its own in the commit).
    onChange: (instance) => {
      const stale = outdated(instance);
      // Scrolling, a new count, the scroller resized: react-virtual renders the list when its range
      // changed (at once while scrolling); this renders it when anything else it shows did (the
      // range react-virtual last saw can be older than the list's last render).
      if (!observed.current) {
        if (stale.moved || stale.holder) relayout();
        return;
      }
      observed.current = false;
      const total = instance.getTotalSize();
      if (total === totalSize.current && !followNew.current) {
        if (stale.moved || stale.holder) relayout();
        return;
      }
      // A row that shrank (a retry cleared a long answer): the holder's old height would let
      // following scroll to blank space below the end, so the list renders at once.
      const shrank = total < totalSize.current;
      totalSize.current = total;
      // The last answer growing (once per streamed frame, issue 31) moves no row: nothing is
      // rendered or changed here then. The list's scroll height already holds the grown row (a
      // positioned row's box counts in its scroller's overflow), so following reads it from the
      // layout just done and forces none; the holder ends where that row starts, so it does not
      // change, and the list is not rendered at all (issue 50, round 5). Before issue 31, this
      // callback rendered the list and set the holder's height, and following then laid the page
      // out a second time within the frame. A row that moved or came into range, a row that
      // shrank, or a footer placed under the holder: the list renders at once.
      if (stale.moved || shrank || hasFooter.current) flushSync(relayout);
      // The holder's height catching up (the last item not rendered): after this frame's paint.
      else if (stale.holder) relayout();
      follow();
    },
  });
  // While the list follows the end, a row changing size never moves the scroll position by
  // itself: the virtualiser would shift it by the row's change (a first measurement below an
  // estimate scrolls up by the difference), which reads as the reader leaving the end; following
  // (onChange) puts the list at the end instead. Otherwise its own rule keeps what is in view still.
  // New items (a question asked, a row inserted before the last): the rows before the first that
  // changed keep their offsets. (Not when rows were removed: the virtualiser's partial path keeps
  // its arrays' length, so fewer rows are placed from the start.)
  const placedFor = measuredFor.current;
  if (placedFor && placedFor.keyOf === keyOf && placedFor.items !== items && items.length >= placedFor.items.length) {
    const same = samePrefix(items, placedFor.items);
    if (same > 0) offsetsFrom(virtualizer, same);
  }
  measuredFor.current = { items, keyOf };
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, _delta, instance) => {
    if (atBottom.current && !pinned.current) return false;
    const offset = instance.scrollOffset ?? 0;
    return instance.itemSizeCache.has(item.key) ? item.end <= offset && instance.scrollDirection !== 'backward' : item.start < offset;
  };
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
    // No layout here (issue 31: setting or reading the scroll position in the commit forced one):
    // the new last row is followed to once the browser has laid it out, in the rows'
    // ResizeObserver callback (onChange above).
    followNew.current = true;
    // Also followed in the next frame's animation callback: a new row whose first observation
    // finds its estimate exact reports no change to onChange. That callback runs before the
    // frame's own layout, so the layout its write needs is that layout done early, not a second one.
    const frame = requestAnimationFrame(() => {
      if (!followNew.current) return;
      followNew.current = false;
      element.scrollTop = PAST_THE_END;
      followedTo.current = element.scrollTop;
    });
    return () => cancelAnimationFrame(frame);
  }, [items.length, followKey, virtualizer]);

  const rows = virtualizer.getVirtualItems();
  placed.current = rows;
  // With the last item rendered (and nothing under the holder), the holder ends where that item
  // starts: the item's own box makes the rest of the scroll range (a positioned row counts in its
  // scroller's overflow), so the last answer growing never changes the holder. Its height used
  // to be the total, which the virtualiser's render after each streamed frame's paint changed:
  // the next frame then began with that layout (issue 31: the hover update after the follow's
  // scroll lays the page out before the frame's own layout). The last row carries the list's
  // end padding itself (`data-last`, CSS): a positioned box's overflow gets none of its
  // scroller's padding.
  const holderHeight = holderHeightOf(rows, items.length, virtualizer.getTotalSize());
  shownHolder.current = holderHeight;
  return (
    // No scroll anchoring: the browser would move the scroll position itself when a row's content
    // above its anchor changes size (an answer's header shrinking as it ends moved it up 26 px),
    // and onScroll, which takes any scroll it did not make for the reader's, then stopped
    // following for good (streaming-follow failed so under load). Rows keep their place by the
    // list's own rules: following, and the virtualiser's adjustment above.
    <div ref={scroller} className={className} data-testid={testId} style={{ overflowAnchor: 'none' }}>
      <div style={{ height: holderHeight, position: 'relative', width: '100%' }}>
        {rows.map((row) => (
          <div
            key={row.key}
            data-index={row.index}
            data-last={row.index === items.length - 1 ? '' : undefined}
            ref={virtualizer.measureElement}
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
