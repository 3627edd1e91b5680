/**
 * The renderer's side of a stream (docs/decisions/conventions.md §4): subscribe first, then start, so no message can
 * be missed; messages are handed over once per animation frame, as one batch; the listener is
 * released when the stream ends (done or error) or fails to start.
 */
import type { AskStreamArgs, ClarityBridge, Result, StreamMessage } from '../../../shared/bridge-contract';

export interface AskStreamOptions {
  bridge: ClarityBridge;
  streamId: string;
  args: AskStreamArgs;
  /**
   * Called with every message that arrived since the last call: once per frame while the
   * stream runs, and at once with its final message. `inFrameCallback` tells which.
   */
  onBatch(batch: StreamMessage[], inFrameCallback: boolean): void;
  /** Schedules the next frame's work (requestAnimationFrame; tests pass their own). */
  requestFrame?: (callback: () => void) => void;
}

/** Resolves once main has accepted (or refused) the stream; messages keep arriving after. */
export async function startAskStream({ bridge, streamId, args, onBatch, requestFrame = (callback) => requestAnimationFrame(callback) }: AskStreamOptions): Promise<Result<null>> {
  let buffer: StreamMessage[] = [];
  let scheduled = false;
  let ended = false;
  const flush = (inFrameCallback: boolean): void => {
    scheduled = false;
    const batch = buffer;
    buffer = [];
    if (batch.length > 0) onBatch(batch, inFrameCallback);
  };
  const unsubscribe = bridge.onStreamMessage((message) => {
    if (message.streamId !== streamId || ended) return;
    buffer.push(message);
    if (message.kind === 'done' || message.kind === 'error') {
      ended = true;
      unsubscribe();
      flush(false);
      return;
    }
    if (!scheduled) {
      scheduled = true;
      requestFrame(() => flush(true));
    }
  });
  const started = await bridge.startStream(streamId, 'ask', args);
  if (!started.ok) {
    ended = true;
    unsubscribe();
  }
  return started;
}
