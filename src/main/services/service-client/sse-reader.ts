/**
 * Reads an SSE byte stream into messages. Decoding is streaming (a multi-byte character or
 * a CRLF split across chunks parses the same), lines are bounded, and a stream that goes
 * silent for `stallTimeoutMs` ends with a timeout; any bytes, keep-alive comments included,
 * reset that timer.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;

export class SseStreamError extends Error {
  constructor(
    readonly reason: 'stalled' | 'oversized' | 'aborted',
    message: string,
  ) {
    super(message);
  }
}

export interface SseReadOptions {
  signal?: AbortSignal;
  stallTimeoutMs?: number;
  maxEventBytes?: number;
  /** Reading ends normally when this settles (the answer finished before the server closed). */
  until?: Promise<unknown>;
  onMessage(message: EventSourceMessage): void;
}

export async function readSseStream(body: ReadableStream<Uint8Array>, options: SseReadOptions): Promise<void> {
  const stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  let failure: SseStreamError | null = null;
  const parser = createParser({
    maxBufferSize: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    onEvent: (message) => options.onMessage(message),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') {
        failure = new SseStreamError('oversized', 'The service sent an event larger than the client accepts; the stream was stopped.');
      }
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let stallTimer: NodeJS.Timeout | undefined;
  let rejectStalled: (error: Error) => void = () => undefined;
  const stalled = new Promise<never>((_, reject) => {
    rejectStalled = reject;
  });
  stalled.catch(() => undefined);
  const finished = options.until?.then(() => ({ done: true as const, value: undefined }));
  const rearm = (): void => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(
      () => rejectStalled(new SseStreamError('stalled', `The service sent nothing for ${Math.round(stallTimeoutMs / 1000)} s.`)),
      stallTimeoutMs,
    );
  };
  rearm();
  const onAbort = (): void => void reader.cancel().catch(() => undefined);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await Promise.race(finished ? [reader.read(), stalled, finished] : [reader.read(), stalled]);
      if (options.signal?.aborted) throw new SseStreamError('aborted', 'Cancelled.');
      if (done) break;
      rearm();
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure) throw failure;
    }
    parser.feed(decoder.decode());
    if (failure) throw failure;
  } catch (error) {
    if (options.signal?.aborted) throw new SseStreamError('aborted', 'Cancelled.');
    throw error;
  } finally {
    clearTimeout(stallTimer);
    options.signal?.removeEventListener('abort', onAbort);
    reader.cancel().catch(() => undefined);
  }
}
