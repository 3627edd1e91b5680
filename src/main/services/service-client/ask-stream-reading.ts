// Reading the answer stream of POST /api/v1/ask: SSE frames to AskEvents until message_stop, or a JSON answer as one event (split from api-client.ts).
import type { AskEvent, BridgeError } from '../../../shared/bridge-contract';
import { interpretAskMessage } from './ask-events';
import { readWith } from './response-bodies';
import { readAnswer } from './service-readers';
import { readSseStream, SseStreamError } from './sse-reader';

export interface AskStreamHandlers {
  signal?: AbortSignal;
  onOpen?: () => void;
  onEvent(event: AskEvent): void;
}

/** A stream failure, with whether any answer text had already arrived. */
export interface StreamFailure extends BridgeError {
  incomplete: boolean;
}


export type StreamOutcome = { ok: true } | { ok: false; error: StreamFailure };

/**
 * Reads an answered ask as a stream. Resolves ok when `message_stop` arrives; otherwise a
 * StreamFailure that says whether the answer is incomplete (some text arrived before the failure).
 */
export async function readAskStream(response: Response, handlers: AskStreamHandlers, stallTimeoutMs: number | undefined): Promise<StreamOutcome> {
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.includes('text/event-stream')) {
    // Some services ignore `stream`; accept a JSON answer as one whole event.
    if (contentType.includes('application/json')) return acceptJsonAsStream(response, handlers);
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, error: { code: 'bad_response', message: `Expected an event stream, got "${contentType || 'no content type'}".`, incomplete: false } };
  }
  handlers.onOpen?.();
  let sawText = false;
  let stopped = false;
  let streamError: BridgeError | null = null;
  // message_stop completes the answer: reading ends there, not at close (pings or silence
  // after it cannot hold an answer open), and nothing sent after it is kept (issue 30).
  let endReading: () => void = () => undefined;
  const stoppedReading = new Promise<void>((resolve) => (endReading = resolve));
  try {
    await readSseStream(response.body!, {
      signal: handlers.signal,
      stallTimeoutMs: stallTimeoutMs,
      until: stoppedReading,
      onMessage: (message) => {
        // The answer the service declared finished is the answer: deltas, citations,
        // confidence and errors after message_stop (even in the same chunk) are ignored.
        if (streamError || stopped) return;
        const outcome = interpretAskMessage(message);
        if (outcome.kind === 'event') {
          if (outcome.event.type === 'text') sawText = true;
          handlers.onEvent(outcome.event);
        } else if (outcome.kind === 'stop') {
          stopped = true;
          endReading();
        } else if (outcome.kind === 'error') streamError = outcome.error;
      },
    });
  } catch (error) {
    if (stopped && !(error instanceof SseStreamError && error.reason === 'aborted')) return { ok: true };
    if (error instanceof SseStreamError) {
      const code = error.reason === 'aborted' ? 'aborted' : error.reason === 'stalled' ? 'timeout' : 'bad_response';
      return { ok: false, error: { code, message: error.message, incomplete: sawText } };
    }
    return { ok: false, error: { code: 'network', message: 'The connection to the service dropped mid-answer.', incomplete: sawText } };
  }
  if (streamError) return { ok: false, error: { ...(streamError as BridgeError), incomplete: sawText } };
  if (!stopped) {
    return { ok: false, error: { code: 'network', message: 'The answer stream ended before the service finished.', incomplete: sawText } };
  }
  return { ok: true };
}

async function acceptJsonAsStream(response: Response, handlers: AskStreamHandlers): Promise<StreamOutcome> {
  const read = await readWith(response, readAnswer, (problem) => `The service's answer could not be read: ${problem}`);
  if (!read.ok) return { ok: false, error: { ...read.error, incomplete: false } };
  const answer = read.value;
  handlers.onOpen?.();
  handlers.onEvent({ type: 'meta', ...(answer.sessionId ? { sessionId: answer.sessionId } : {}), ...(answer.sessionSlug ? { sessionSlug: answer.sessionSlug } : {}) });
  if (answer.confidence !== null) handlers.onEvent({ type: 'confidence', value: answer.confidence });
  for (const id of answer.citations) handlers.onEvent({ type: 'citation', citation: { id } });
  handlers.onEvent({ type: 'text', text: answer.content });
  return { ok: true };
}

