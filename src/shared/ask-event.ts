/** Normalised ask events: what the renderer needs, independent of the wire format. */
import type { CitationDetail } from './citation';
import type { CitationPayload } from './service-schemas';

export type AskEvent =
  | { type: 'meta'; messageId?: string; sessionId?: string; sessionSlug?: string }
  | { type: 'text'; text: string }
  | { type: 'citation'; citation: CitationPayload }
  | { type: 'confidence'; value: number }
  | { type: 'promotion'; topic: string; preset: string; reason?: string }
  | { type: 'turn'; conversationId: string; turnId: string }
  | { type: 'citation_detail'; id: string; detail: CitationDetail };
