/**
 * A conversation as the app keeps it: turns of question and answer, each answer with its
 * citations snapshotted when cited (signal details and the source's health at that moment),
 * so it reads completely later, offline.
 */
import { z } from 'zod';
import type { AskEvent } from './ask-event';
import { CitationSnapshot } from './citation';

export { CitationDetail, CitationSnapshot } from './citation';

export const AnswerStatus = z.enum(['waiting', 'streaming', 'done', 'incomplete', 'failed', 'cancelled']);
export type AnswerStatus = z.infer<typeof AnswerStatus>;

export const StoredError = z.object({ code: z.string(), message: z.string(), retryAfterS: z.number().optional(), status: z.number().optional() });

export const TurnAnswer = z.object({
  text: z.string(),
  status: AnswerStatus,
  error: StoredError.nullable(),
  citations: z.array(CitationSnapshot),
  confidence: z.number().nullable(),
  confidenceTrace: z.array(z.number()),
  promotion: z.object({ topic: z.string(), preset: z.string(), reason: z.string().optional() }).nullable(),
});

export const ConversationTurnSchema = z.object({
  id: z.string(),
  question: z.string(),
  askedAt: z.string(),
  answer: TurnAnswer,
});
export type ConversationTurn = z.infer<typeof ConversationTurnSchema>;

export const ConversationSchema = z.object({
  id: z.string(),
  title: z.string(),
  titleIsAuto: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  sessionId: z.string().nullable(),
  sessionSlug: z.string().nullable(),
  publicUrl: z.string().nullable(),
  deletedAt: z.string().nullable(),
  /** When the user pinned it (pinned ones list first); absent in files written before #16. */
  pinnedAt: z.string().nullable().optional(),
  turns: z.array(ConversationTurnSchema),
});
export type Conversation = z.infer<typeof ConversationSchema>;

export interface ConversationSummary {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  turnCount: number;
  shared: boolean;
  pinned?: boolean;
  /** From a search: where the words were found ("title", or a bit of a question or answer). */
  match?: string;
}

/** A title from the first question: kept whole (issue #16), whitespace folded; views truncate. */
export function titleFromQuestion(question: string): string {
  return question.replace(/\s+/g, ' ').trim().slice(0, 1_000);
}

export type TurnAnswerState = z.infer<typeof TurnAnswer>;

/**
 * The answer when its stream ends: done, or (on an error) cancelled by the user, incomplete
 * with the text that arrived, or failed with none. Main persists it, the renderer shows it.
 */
export function endAnswer(answer: TurnAnswerState, error: z.infer<typeof StoredError> | null): TurnAnswerState {
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
    case 'meta':
    case 'turn':
      return answer;
  }
}
