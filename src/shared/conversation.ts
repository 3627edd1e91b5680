/**
 * A conversation as the app keeps it: turns of question and answer, each answer with its
 * citations snapshotted when cited (signal details and the source's health at that moment),
 * so it reads completely later, offline.
 */
import { z } from 'zod';
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
  /** Claim verification (issue 28); absent in answers saved before it. */
  removedClaims: z.array(z.object({ text: z.string(), reason: z.string() })).optional(),
  support: z.array(z.object({ sentence: z.string(), citation: z.string(), start: z.number(), end: z.number() })).optional(),
  composer: z.object({ backend: z.enum(['extractive', 'model']), model: z.string().optional(), local: z.boolean().optional(), fallbackReason: z.string().optional() }).optional(),
  /** Conflicting figures the service flagged (issue 30); absent in answers saved before it. */
  conflicts: z
    .array(
      z.object({
        measure: z.string(),
        entity: z.string(),
        place: z.string(),
        asOf: z.string(),
        figures: z.array(z.object({ value: z.number(), citation: z.string(), source: z.string() })),
        note: z.string(),
      }),
    )
    .optional(),
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

