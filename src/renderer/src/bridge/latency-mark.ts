/**
 * Benchmark only (`npm run bench`): records, once the frame showing a stream batch has
 * painted, how long since main received its bytes. Off unless the page sets
 * `window.__clarityLatencyMarks = true` before the app loads (the benchmark does).
 */
import type { StreamMessage } from '../../../shared/bridge-contract';

declare global {
  interface Window {
    __clarityLatencyMarks?: boolean;
  }
}

export function markStreamPainted(batch: StreamMessage[], inFrameCallback: boolean): void {
  if (window.__clarityLatencyMarks !== true) return;
  const receivedAt = batch.reduce<number | null>((first, m) => (m.kind === 'events' && m.receivedAt !== undefined && (first === null || m.receivedAt < first) ? m.receivedAt : first), null);
  if (receivedAt === null) return;
  // A message posted from a frame callback runs right after that frame is painted; called
  // outside one (the last batch of a stream), it waits for the next frame first.
  const afterPaint = (): void => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      // Both instants as read, each on its own process's clock: the benchmark calibrates the
      // offset between the two clocks rather than trusting two timeOrigins to agree.
      const paintedAt = performance.timeOrigin + performance.now();
      performance.mark('stream-painted', { detail: { latencyMs: paintedAt - receivedAt, receivedAt, paintedAt } });
      channel.port1.close();
    };
    channel.port2.postMessage(null);
  };
  if (inFrameCallback) afterPaint();
  else requestAnimationFrame(afterPaint);
}
