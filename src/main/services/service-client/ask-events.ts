/**
 * Turns raw SSE messages of the ask stream into the app's normalised AskEvents. Unknown
 * events, unknown fields and malformed JSON are ignored (counted), never fatal (docs/decisions/design.md §3).
 * The reader is tolerant (issue #14): answer text is taken wherever a frame carries it (with or
 * without `index`, any `delta.type` with a `text`, a flat `{text}`), a data-only frame is read
 * by its payload's `type`, citations and errors may be nested or flat.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import type { AnswerConflict } from '../../../shared/ask-event';
import type { AskEvent, BridgeError } from '../../../shared/bridge-contract';
import { normalizeConfidence } from '../../../shared/confidence';
import { knownServiceErrorCode } from '../../../shared/service-schemas';
import { asText, isRecord } from './service-readers';

export type AskSseOutcome =
  | { kind: 'event'; event: AskEvent }
  | { kind: 'stop' }
  | { kind: 'error'; error: BridgeError }
  | { kind: 'ignored'; reason: 'unknown_event' | 'malformed' | 'keep_alive' | 'not_text' };

const KNOWN_EVENTS = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'clarity.citation_emitted',
  'clarity.confidence_updated',
  'clarity.research_promotion_available',
  'clarity.claim_removed',
  'clarity.claim_supported',
  'clarity.composer_fallback',
  'clarity.conflicts_flagged',
  'error',
]);

const malformed: AskSseOutcome = { kind: 'ignored', reason: 'malformed' };
const notText: AskSseOutcome = { kind: 'ignored', reason: 'not_text' };

/** Text carried by a delta or block: `{text}`, `{delta:{text}}`, `{delta:"…"}`. */
function textOf(data: Record<string, unknown>, inner: 'delta' | 'content_block'): string | null {
  const nested = data[inner];
  if (typeof nested === 'string') return nested;
  if (isRecord(nested) && typeof nested.text === 'string') return nested.text;
  if (typeof data.text === 'string') return data.text;
  return null;
}

export function interpretAskMessage(message: EventSourceMessage): AskSseOutcome {
  let name = message.event ?? 'message';
  if (name === 'ping') return { kind: 'ignored', reason: 'keep_alive' };
  if (name !== 'message' && !KNOWN_EVENTS.has(name)) return { kind: 'ignored', reason: 'unknown_event' };
  let data: unknown;
  try {
    data = message.data === '' ? {} : JSON.parse(message.data);
  } catch {
    return malformed;
  }
  if (!isRecord(data)) return malformed;
  // A data-only frame (no `event:` line) is read by its payload's `type`, as Anthropic's own are.
  if (name === 'message') {
    if (typeof data.type !== 'string' || !KNOWN_EVENTS.has(data.type)) return data.type === 'ping' ? { kind: 'ignored', reason: 'keep_alive' } : { kind: 'ignored', reason: 'unknown_event' };
    name = data.type;
  }
  switch (name) {
    case 'message_start': {
      const m = isRecord(data.message) ? data.message : data;
      const sessionId = asText(m.session_id);
      const sessionSlug = asText(m.session_slug);
      const messageId = asText(m.id);
      // Extension (issue 28): the composer asked to write the answer.
      const backend = isRecord(m.composer) ? m.composer.backend : undefined;
      const model = isRecord(m.composer) ? asText(m.composer.model) : null;
      const local = isRecord(m.composer) && typeof m.composer.local === 'boolean' ? m.composer.local : null;
      const composer = backend === 'model' || backend === 'extractive' ? { backend: backend as 'model' | 'extractive', ...(model ? { model } : {}), ...(local !== null ? { local } : {}) } : null;
      return {
        kind: 'event',
        event: { type: 'meta', ...(messageId ? { messageId } : {}), ...(sessionId ? { sessionId } : {}), ...(sessionSlug ? { sessionSlug } : {}), ...(composer ? { composer } : {}) },
      };
    }
    case 'content_block_delta': {
      const text = textOf(data, 'delta');
      return text ? { kind: 'event', event: { type: 'text', text } } : notText;
    }
    case 'content_block_start': {
      const text = textOf(data, 'content_block');
      return text ? { kind: 'event', event: { type: 'text', text } } : notText;
    }
    case 'clarity.citation_emitted': {
      // `{citation:{id,…}}` per docs/decisions/design.md §3, or the citation itself (`{id,…}`), or `{citation:"sig_…"}`.
      const inner = isRecord(data.citation) ? data.citation : typeof data.citation === 'string' ? { id: data.citation } : data;
      const id = asText(inner.id);
      if (!id) return malformed;
      const citation: Record<string, unknown> = { ...inner, id };
      // Only text fields cross as text: a number where a string belongs is dropped, not trusted.
      for (const key of ['title', 'source_id', 'source_name', 'published_at', 'url', 'slug', 'snippet']) {
        if (key in citation && typeof citation[key] !== 'string') delete citation[key];
      }
      return { kind: 'event', event: { type: 'citation', citation: citation as { id: string } } };
    }
    case 'clarity.confidence_updated': {
      const raw = 'confidence' in data ? data.confidence : 'value' in data ? data.value : data;
      const value = normalizeConfidence(raw);
      return value === null ? malformed : { kind: 'event', event: { type: 'confidence', value } };
    }
    case 'clarity.research_promotion_available': {
      const topic = asText(data.topic);
      if (!topic) return malformed;
      const reason = asText(data.reason);
      return { kind: 'event', event: { type: 'promotion', topic, preset: asText(data.preset) ?? 'standard', ...(reason ? { reason } : {}) } };
    }
    case 'clarity.claim_removed': {
      const text = asText(data.text);
      return text ? { kind: 'event', event: { type: 'claim_removed', text, reason: asText(data.reason) ?? 'not supported by the cited signals' } } : malformed;
    }
    case 'clarity.claim_supported': {
      const sentence = asText(data.sentence);
      const citation = asText(data.citation);
      const { start, end } = data;
      if (!sentence || !citation || typeof start !== 'number' || typeof end !== 'number' || !(start >= 0 && end >= start)) return malformed;
      return { kind: 'event', event: { type: 'claim_supported', sentence, citation, start, end } };
    }
    case 'clarity.composer_fallback':
      return { kind: 'event', event: { type: 'composer', backend: 'extractive', fallbackReason: asText(data.reason) ?? 'the model failed', ...(data.replaces_text === true ? { replacesText: true } : {}) } };
    case 'clarity.conflicts_flagged': {
      const conflicts = readConflicts(data.conflicts);
      return conflicts.length > 0 ? { kind: 'event', event: { type: 'conflicts', conflicts } } : malformed;
    }
    case 'message_stop':
      return { kind: 'stop' };
    case 'error':
      return { kind: 'error', error: readStreamError(data) };
    default:
      return notText;
  }
}

/**
 * A mid-stream error frame: `{error:{error, message}}` (docs/decisions/design.md §3), flat `{error, message}`,
 * or Anthropic's `{error:{type, message}}`. The service's message is kept whatever the shape.
 */
function readStreamError(data: Record<string, unknown>): BridgeError {
  const inner = isRecord(data.error) ? data.error : data;
  const code = asText(inner.error) ?? asText(inner.code) ?? asText(inner.type) ?? (typeof data.error === 'string' ? data.error : null);
  const message = asText(inner.message) ?? asText(data.message);
  return { code: code ? knownCode(code) : 'internal', message: message ?? 'The service reported an error mid-answer.' };
}

/**
 * A service's error code as the app knows it (the one list is ERROR_CODES in
 * shared/service-schemas.ts); unfamiliar codes are placed by their meaning, not all `internal`.
 */
export function knownCode(code: string): BridgeError['code'] {
  if (code === 'internal' || knownServiceErrorCode(code) !== 'internal') return knownServiceErrorCode(code);
  const word = code.toLowerCase();
  if (/overload|unavailable|busy|capacity/.test(word)) return 'unavailable';
  if (/rate|throttl|too_many/.test(word)) return 'rate_limited';
  if (/payment|quota|credit|billing|plan/.test(word)) return 'payment_required';
  if (/auth|token|credential/.test(word)) return 'unauthorized';
  if (/forbid|permission/.test(word)) return 'forbidden';
  if (/not_found|missing/.test(word)) return 'not_found';
  if (/invalid|bad_request|validation/.test(word)) return 'invalid_request';
  return 'internal';
}

/** `conflicts[]` of the extension (issue 30); entries without two figures with citations are dropped. */
function readConflicts(raw: unknown): AnswerConflict[] {
  if (!Array.isArray(raw)) return [];
  return raw.slice(0, 50).flatMap((entry): AnswerConflict[] => {
    if (!isRecord(entry) || !Array.isArray(entry.figures)) return [];
    const figures = entry.figures.flatMap((figure) => {
      if (!isRecord(figure) || typeof figure.value !== 'number' || !Number.isFinite(figure.value)) return [];
      const citation = asText(figure.signal_id);
      return citation ? [{ value: figure.value, citation, source: asText(figure.source_name) ?? asText(figure.source_id) ?? 'another source' }] : [];
    });
    const entity = asText(entry.entity);
    if (figures.length < 2 || !entity) return [];
    return [{ measure: asText(entry.measure) ?? 'figure', entity, place: asText(entry.place) ?? '', asOf: asText(entry.as_of) ?? '', figures: figures.slice(0, 10), note: asText(entry.note) ?? '' }];
  });
}
