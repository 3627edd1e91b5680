/**
 * The rules that move an answer along its stream, shared by main (which persists) and the
 * renderer (which displays). Zod-free on purpose: the renderer imports it, and zod's schemas
 * built at load would otherwise ship in the renderer bundle (type imports are erased).
 */
import type { AskEvent } from './ask-event';
import type { StoredError, TurnAnswerState } from './conversation';
import type { z } from 'zod';

type StoredErrorState = z.infer<typeof StoredError>;

/**
 * The answer when its stream ends: done, or (on an error) cancelled by the user, incomplete
 * with the text that arrived, or failed with none. Main persists it, the renderer shows it.
 */
export function endAnswer(answer: TurnAnswerState, error: StoredErrorState | null): TurnAnswerState {
  if (!error) return { ...answer, status: 'done', error: null };
  const cancelled = error.code === 'aborted';
  return { ...answer, status: cancelled ? 'cancelled' : answer.text.length > 0 ? 'incomplete' : 'failed', error: cancelled ? null : error };
}

export function emptyAnswer(): TurnAnswerState {
  return { text: '', status: 'waiting', error: null, citations: [], confidence: null, confidenceTrace: [], promotion: null };
}

/**
 * Applies one normalised ask event to an answer, returning a new answer (main persists with
 * it, the renderer displays with it: one rule for both). Session and turn events do not
 * change the answer.
 */
export function applyAskEvent(answer: TurnAnswerState, event: AskEvent): TurnAnswerState {
  switch (event.type) {
    case 'text':
      return { ...answer, text: answer.text + event.text, status: 'streaming' };
    case 'citation':
      if (answer.citations.some((c) => c.id === event.citation.id)) return answer;
      return { ...answer, citations: [...answer.citations, event.citation] };
    case 'citation_detail':
      return { ...answer, citations: answer.citations.map((c) => (c.id === event.id ? { ...c, detail: event.detail } : c)) };
    case 'confidence':
      return { ...answer, confidence: event.value, confidenceTrace: [...answer.confidenceTrace, event.value] };
    case 'promotion':
      return { ...answer, promotion: { topic: event.topic, preset: event.preset, ...(event.reason ? { reason: event.reason } : {}) } };
    case 'claim_removed':
      return { ...answer, removedClaims: [...(answer.removedClaims ?? []), { text: event.text, reason: event.reason }] };
    case 'claim_supported':
      return { ...answer, support: [...(answer.support ?? []), { sentence: event.sentence, citation: event.citation, start: event.start, end: event.end }] };
    case 'composer': {
      // A fallback keeps the model's name: the answer says which model failed.
      const { type: _type, replacesText, ...composer } = event;
      const merged = { ...answer, composer: { ...answer.composer, ...composer } };
      // The model's partial text (and its chips and spans) give way to the extractive answer that follows.
      return replacesText ? { ...merged, text: '', citations: [], support: [] } : merged;
    }
    case 'conflicts':
      return { ...answer, conflicts: event.conflicts };
    case 'meta':
      return event.composer ? { ...answer, composer: event.composer } : answer;
    case 'turn':
      return answer;
  }
}
