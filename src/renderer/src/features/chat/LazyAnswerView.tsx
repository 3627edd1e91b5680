/**
 * The answer view (with marked and DOMPurify, a fifth of the renderer's code) loads after the
 * shell has painted, not before: start-up parses less, and the chunk is fetched at once in the
 * background so it is in hand before the first answer streams (issue 18: bundle, cold start).
 */
import { lazy, Suspense } from 'react';
import type { TurnView } from '../../store/app-store';

const load = () => import('./AnswerView');
const LazyAnswer = lazy(async () => ({ default: (await load()).AnswerView }));

// Fetch in the background once the page is idle (a timer where idle callbacks are missing).
if (typeof window !== 'undefined') {
  const preload = (): void => void load();
  if ('requestIdleCallback' in window) window.requestIdleCallback(preload, { timeout: 500 });
  else setTimeout(preload, 50);
}

export function AnswerView({ turn }: { turn: TurnView }) {
  return (
    <Suspense fallback={<div className="answer" aria-busy="true" />}>
      <LazyAnswer turn={turn} />
    </Suspense>
  );
}
