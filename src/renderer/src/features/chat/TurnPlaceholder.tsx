/**
 * A turn whose answer the renderer does not hold (issue 31, decision 0028): main keeps every
 * answer, the store only a window of them. The row keeps its last measured height while the
 * answer is read back, so nothing around it moves; a failed read says so and offers a retry,
 * never a blank answer.
 */
import { useCallback, useEffect } from 'react';
import { useAppStore, type TurnEntry } from '../../store/app-store';

/** The list's own first guess at a row (ChatView's estimateHeight): a turn never measured keeps the place the list gave it. */
const UNMEASURED_PX = 700;

/** Each rendered turn's element → its row key; one observer for all rows, read after the browser's layout (no forced layout). */
const observedKeys = new WeakMap<Element, string>();
let observer: ResizeObserver | null = null;
const heightObserver = (): ResizeObserver | null => {
  if (observer || typeof ResizeObserver === 'undefined') return observer;
  observer = new ResizeObserver((entries) => {
    const note = useAppStore.getState().noteTurnHeight;
    for (const entry of entries) {
      const rowKey = observedKeys.get(entry.target);
      const height = entry.borderBoxSize?.[0]?.blockSize ?? entry.contentRect.height;
      if (rowKey) note(rowKey, Math.round(height));
    }
  });
  return observer;
};

/**
 * The row is rendered: the slice holds its answer and those around it (`showTurn`), and its
 * height is noted as it changes, for the placeholder it may become later.
 */
export function useShownTurn(rowKey: string): (target: HTMLDivElement | null) => (() => void) | undefined {
  const showTurn = useAppStore((s) => s.showTurn);
  useEffect(() => showTurn(rowKey), [rowKey, showTurn]);
  // A callback ref, not an effect on a ref object: a row whose element appears after its first
  // render (the turn not found at first) is measured too.
  return useCallback(
    (target: HTMLDivElement | null) => {
      const watch = heightObserver();
      if (!target || !watch) return undefined;
      observedKeys.set(target, rowKey);
      watch.observe(target);
      return () => watch.unobserve(target);
    },
    [rowKey],
  );
}

/** The row's height while its answer is not held: the last one measured. */
export const placeholderHeight = (rowKey: string): number => useAppStore.getState().turnHeight(rowKey) ?? UNMEASURED_PX;

export function TurnPlaceholder({ turn }: { turn: TurnEntry }) {
  const reread = useAppStore((s) => s.rereadTurns);
  if (turn.readError) {
    return (
      <div className="answer answer-unread notice" role="alert" data-testid="answer-unread">
        This answer could not be read back ({turn.readError}). It is still saved.{' '}
        <button type="button" className="link" onClick={reread} data-testid="answer-reread">
          Try again
        </button>
      </div>
    );
  }
  return (
    <div className="answer answer-placeholder" aria-busy="true" data-testid="answer-placeholder">
      <span className="hint">Loading this answer…</span>
    </div>
  );
}
