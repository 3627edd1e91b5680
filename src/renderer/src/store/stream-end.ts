/**
 * The stream's last batch (issue 50, round 9). The stream client hands it over at once with its
 * end, outside a frame; its events are shown in the next animation frame like any batch's, and the
 * end (the finished answer's render: its actions, the composer's Ask, the toolbar's Share) once
 * that frame is painted, so the last text does not wait behind the work of the end.
 */
import type { StreamMessage } from '../../../shared/bridge-contract';

/** The longest an answer's end waits for the frame that shows its last text. */
const END_FALLBACK_MS = 250;

/** Whether frames come: a visible page with animation frames (not a hidden window, not a test without them). */
const canWaitForFrame = (): boolean => typeof requestAnimationFrame === 'function' && typeof MessageChannel === 'function' && typeof document !== 'undefined' && document.visibilityState === 'visible';

/** `work` right after the current frame is painted (called from a frame callback: a posted message runs after the paint). */
function afterPaint(work: () => void): void {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    work();
  };
  channel.port2.postMessage(null);
}

/**
 * Hands `batch` to `apply` as the stream client would, except a last batch that carries events
 * before its end: those in the next frame, the end after that frame's paint (or after
 * END_FALLBACK_MS if no frame comes: a window hidden meanwhile). A batch that ends without text
 * (Stop, an error alone) is applied at once.
 */
export function applyWithEndAfterPaint(batch: StreamMessage[], inFrameCallback: boolean, apply: (batch: StreamMessage[], inFrameCallback: boolean) => void): void {
  const end = batch.findIndex((message) => message.kind === 'done' || message.kind === 'error');
  if (inFrameCallback || end <= 0 || !batch.slice(0, end).some((message) => message.kind === 'events') || !canWaitForFrame()) {
    apply(batch, inFrameCallback);
    return;
  }
  let shown = false;
  let ended = false;
  const show = (): void => {
    if (shown) return;
    shown = true;
    apply(batch.slice(0, end), true);
  };
  const finish = (): void => {
    if (ended) return;
    show();
    ended = true;
    apply(batch.slice(end), false);
  };
  requestAnimationFrame(() => {
    show();
    afterPaint(finish);
  });
  setTimeout(finish, END_FALLBACK_MS);
}
