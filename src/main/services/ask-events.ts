/**
 * Turns raw SSE messages of the ask stream into the app's normalised AskEvents. Unknown
 * events, unknown fields and malformed JSON are ignored (counted), never fatal (DESIGN §3).
 */
import type { EventSourceMessage } from 'eventsource-parser';
import type { AskEvent, BridgeError } from '../../shared/bridge-contract';
import { normalizeConfidence } from '../../shared/confidence';
import { knownServiceErrorCode, SSE_EVENTS, type SseEventName } from '../../shared/service-schemas';

export type AskSseOutcome =
  | { kind: 'event'; event: AskEvent }
  | { kind: 'stop' }
  | { kind: 'error'; error: BridgeError }
  | { kind: 'ignored'; reason: 'unknown_event' | 'malformed' | 'keep_alive' | 'not_text' };

export function interpretAskMessage(message: EventSourceMessage): AskSseOutcome {
  const name = message.event ?? 'message';
  if (name === 'ping') return { kind: 'ignored', reason: 'keep_alive' };
  if (!(name in SSE_EVENTS)) return { kind: 'ignored', reason: 'unknown_event' };
  let data: unknown;
  try {
    data = message.data === '' ? {} : JSON.parse(message.data);
  } catch {
    return { kind: 'ignored', reason: 'malformed' };
  }
  const malformed: AskSseOutcome = { kind: 'ignored', reason: 'malformed' };
  switch (name as SseEventName) {
    case 'message_start': {
      const parsed = SSE_EVENTS.message_start.safeParse(data);
      if (!parsed.success) return malformed;
      const m = parsed.data.message;
      return { kind: 'event', event: { type: 'meta', messageId: m.id, sessionId: m.session_id, sessionSlug: m.session_slug } };
    }
    case 'content_block_delta': {
      const parsed = SSE_EVENTS.content_block_delta.safeParse(data);
      if (!parsed.success) return malformed;
      const { delta } = parsed.data;
      if (delta.type !== 'text_delta' || !delta.text) return { kind: 'ignored', reason: 'not_text' };
      return { kind: 'event', event: { type: 'text', text: delta.text } };
    }
    case 'content_block_start': {
      const parsed = SSE_EVENTS.content_block_start.safeParse(data);
      if (!parsed.success) return malformed;
      const block = parsed.data.content_block;
      if (block.type === 'text' && block.text) return { kind: 'event', event: { type: 'text', text: block.text } };
      return { kind: 'ignored', reason: 'not_text' };
    }
    case 'clarity.citation_emitted': {
      const parsed = SSE_EVENTS['clarity.citation_emitted'].safeParse(data);
      return parsed.success ? { kind: 'event', event: { type: 'citation', citation: parsed.data.citation } } : malformed;
    }
    case 'clarity.confidence_updated': {
      const parsed = SSE_EVENTS['clarity.confidence_updated'].safeParse(data);
      const value = parsed.success ? normalizeConfidence(parsed.data.confidence) : null;
      return value === null ? malformed : { kind: 'event', event: { type: 'confidence', value } };
    }
    case 'clarity.research_promotion_available': {
      const parsed = SSE_EVENTS['clarity.research_promotion_available'].safeParse(data);
      if (!parsed.success) return malformed;
      const p = parsed.data;
      return { kind: 'event', event: { type: 'promotion', topic: p.topic, preset: p.preset ?? 'standard', reason: p.reason } };
    }
    case 'message_stop':
      return { kind: 'stop' };
    case 'error': {
      const parsed = SSE_EVENTS.error.safeParse(data);
      if (!parsed.success) return { kind: 'error', error: { code: 'internal', message: 'The service reported an error mid-answer.' } };
      return { kind: 'error', error: { code: knownCode(parsed.data.error.error), message: parsed.data.error.message } };
    }
    default:
      return { kind: 'ignored', reason: 'not_text' };
  }
}

/** The one list of codes is ERROR_CODES in shared/service-schemas.ts. */
export const knownCode = knownServiceErrorCode;
