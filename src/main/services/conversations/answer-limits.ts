/**
 * Bounds on one answer from the service (SECURITY.md threat model: every byte may be crafted).
 * Without them a service could make main store, re-save and push a 64 MB answer. Past a cap
 * the stream ends with a clear "the service sent more than …" error, and what arrived before
 * the cap is kept as an incomplete answer.
 */
import type { AskEvent } from '../../../shared/ask-event';
import type { BridgeError } from '../../../shared/result';

export interface AnswerLimits {
  /** Characters of answer text (2 M characters ≈ 2 MB of prose). */
  textChars: number;
  /** Distinct citations. */
  citations: number;
  /** Events of any kind. */
  events: number;
  /** Characters in any one field: a title, a name, a snippet, a URL, an id. */
  fieldChars: number;
}

export const ANSWER_LIMITS: AnswerLimits = {
  textChars: 2_000_000,
  citations: 500,
  events: 100_000,
  fieldChars: 16_384,
};

export type Admission = { ok: true; event: AskEvent } | { ok: false; error: BridgeError; partial?: AskEvent };

/** Counts one answer's events against the limits. One per stream. */
export class AnswerLimiter {
  private textChars = 0;
  private events = 0;
  private readonly citationIds = new Set<string>();

  constructor(private readonly limits: AnswerLimits = ANSWER_LIMITS) {}

  /**
   * Admits an event, or says which limit it breaks. A text delta that crosses the text cap is
   * cut at the cap and returned as `partial`, so the answer keeps everything up to it.
   */
  admit(event: AskEvent): Admission {
    this.events += 1;
    if (this.events > this.limits.events) return this.refuse(`${this.limits.events.toLocaleString('en-IN')} events in one answer`);
    if (event.type === 'text') {
      const room = this.limits.textChars - this.textChars;
      if (event.text.length > room) {
        this.textChars = this.limits.textChars;
        const error = this.refusal(`${formatChars(this.limits.textChars)} of answer text`);
        return room > 0 ? { ok: false, error, partial: { type: 'text', text: event.text.slice(0, room) } } : { ok: false, error };
      }
      this.textChars += event.text.length;
      return { ok: true, event };
    }
    const field = longField(event, this.limits.fieldChars);
    if (field) return this.refuse(`${formatChars(this.limits.fieldChars)} in one field (${field})`);
    if (event.type === 'citation' && !this.citationIds.has(event.citation.id)) {
      if (this.citationIds.size >= this.limits.citations) return this.refuse(`${this.limits.citations} citations in one answer`);
      this.citationIds.add(event.citation.id);
    }
    return { ok: true, event };
  }

  private refuse(what: string): Admission {
    return { ok: false, error: this.refusal(what) };
  }

  private refusal(what: string): BridgeError {
    return {
      code: 'payload_too_large',
      message: `The service sent more than ${what}. The app stopped reading this answer and kept what arrived before the limit.`,
    };
  }
}

/** The path of the first string longer than `max` in an event (its own `type` excepted), or null. */
function longField(value: unknown, max: number, path = ''): string | null {
  if (typeof value === 'string') return value.length > max ? path || 'value' : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    const found = longField(item, max, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return null;
}

function formatChars(chars: number): string {
  return chars >= 1_000_000 ? `${(chars / 1_000_000).toLocaleString('en-IN')} million characters` : `${chars.toLocaleString('en-IN')} characters`;
}
