/**
 * The answer view (with marked and DOMPurify, a fifth of the renderer's code) loads after the
 * composer takes input, not before: start-up parses less, and the chunk is fetched in the
 * background before the first answer can stream (issue 18: bundle, cold start). Issue 31: it
 * was fetched within 500 ms of start, and its parse landed between the first paint and the
 * composer's first key; no answer can stream before the service is ready, so it waits for that
 * (or for 5 s, as a service may never come), then for an idle moment. Saved answers shown
 * sooner load it at once through the Suspense below.
 */
import { lazy, Suspense } from 'react';
import { useAppStore, type TurnView } from '../../store/app-store';

const load = () => import('./AnswerView');
const LazyAnswer = lazy(async () => ({ default: (await load()).AnswerView }));

if (typeof window !== 'undefined') {
  const idle = (work: () => void): void => {
    if ('requestIdleCallback' in window) window.requestIdleCallback(work, { timeout: 2_000 });
    else setTimeout(work, 50);
  };
  // Then, at another idle moment, the pipeline is run once on a made-up answer (warm-up.ts):
  // the first real answer's frames no longer compile and load it (issue 31).
  const whenIdle = (): void =>
    idle(() =>
      void Promise.all([load(), import('./warm-up')]).then(([, { warmUpAnswerPipeline }]) =>
        idle(() => {
          try {
            warmUpAnswerPipeline();
          } catch {
            // Only a warm-up: the answer itself renders (and reports) the same work when it streams.
          }
        }),
      ),
    );
  const fallback = setTimeout(() => {
    unsubscribe();
    whenIdle();
  }, 5_000);
  const unsubscribe = useAppStore.subscribe((state) => {
    if (state.serviceStatus?.state !== 'ready') return;
    clearTimeout(fallback);
    unsubscribe();
    whenIdle();
  });
}

export function AnswerView({ turn }: { turn: TurnView }) {
  return (
    <Suspense fallback={<div className="answer" aria-busy="true" />}>
      <LazyAnswer turn={turn} />
    </Suspense>
  );
}
