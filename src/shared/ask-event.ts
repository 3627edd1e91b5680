/** Normalised ask events: what the renderer needs, independent of the wire format. */
import type { CitationDetail } from './citation';
import type { CitationPayload } from './service-schemas';

export type AskEvent =
  | { type: 'meta'; messageId?: string; sessionId?: string; sessionSlug?: string; composer?: { backend: 'extractive' | 'model'; model?: string; local?: boolean } }
  | { type: 'text'; text: string }
  | { type: 'citation'; citation: CitationPayload }
  | { type: 'confidence'; value: number }
  | { type: 'promotion'; topic: string; preset: string; reason?: string }
  | { type: 'turn'; conversationId: string; turnId: string }
  | { type: 'citation_detail'; id: string; detail: CitationDetail }
  /** Claim verification (issue 28): a sentence removed (or marked) and why; where a cited signal supports one. */
  | { type: 'claim_removed'; text: string; reason: string }
  | { type: 'claim_supported'; sentence: string; citation: string; start: number; end: number }
  /**
   * Who writes the answer; `fallbackReason` when a model failed and the extractive composer answered;
   * `replacesText`: the model's text shown so far is replaced by the answer that follows.
   */
  | { type: 'composer'; backend: 'extractive' | 'model'; model?: string; fallbackReason?: string; replacesText?: boolean }
  /** Conflicting figures the answer flags (issue 30): the same measure, entity, place and day from sources that disagree. */
  | { type: 'conflicts'; conflicts: AnswerConflict[] };

export interface AnswerConflict {
  measure: string;
  entity: string;
  place: string;
  asOf: string;
  figures: Array<{ value: number; citation: string; source: string }>;
  note: string;
}
