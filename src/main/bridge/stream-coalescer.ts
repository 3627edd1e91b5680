/**
 * Coalesces a stream's events into few messages (docs/decisions/conventions.md §4): consecutive text deltas become
 * one, and at most one message leaves per window. The renderer already applies them once per
 * frame, so this only caps the message rate (250/s at 4 ms); a full 16 ms frame here added up
 * to 16 ms of latency and saved the renderer nothing.
 */
import type { AskEvent, StreamMessage } from '../../shared/bridge-contract';

export type StreamSink = (message: StreamMessage) => void;

export interface Coalescer {
  enqueue(event: AskEvent): void;
  /** Sends what is pending now. */
  flush(): void;
  /** Stops sending (the stream ended); nothing pending is sent after this. */
  close(): void;
}

export function createCoalescer(streamId: string, sink: StreamSink, windowMs: number): Coalescer {
  let pending: AskEvent[] = [];
  let pendingSince: number | null = null;
  let seq = 0;
  let flushTimer: NodeJS.Timeout | null = null;
  let open = true;
  let lastFlushAt = 0;
  const flush = (): void => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    if (pending.length === 0 || !open) return;
    sink({ streamId, kind: 'events', events: pending, seq: seq++, ...(pendingSince !== null ? { receivedAt: pendingSince } : {}) });
    pending = [];
    pendingSince = null;
  };
  const enqueue = (event: AskEvent): void => {
    pendingSince ??= performance.timeOrigin + performance.now();
    const last = pending[pending.length - 1];
    // Consecutive text deltas become one: one message per ~frame, not per token.
    if (event.type === 'text' && last?.type === 'text') pending[pending.length - 1] = { type: 'text', text: last.text + event.text };
    else pending.push(event);
    if (flushTimer) return;
    // Leading edge: after a quiet spell, send at once; within a busy window, wait for its end.
    const sinceLast = performance.now() - lastFlushAt;
    if (sinceLast >= windowMs) {
      lastFlushAt = performance.now();
      flushTimer = setTimeout(flush, 0);
    } else {
      flushTimer = setTimeout(() => {
        lastFlushAt = performance.now();
        flush();
      }, windowMs - sinceLast);
    }
  };
  const close = (): void => {
    open = false;
    if (flushTimer) clearTimeout(flushTimer);
  };
  return { enqueue, flush, close };
}
