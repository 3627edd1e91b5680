/**
 * A cited signal as the app keeps it: the stream's citation plus, once looked up, the
 * signal's details and its source's health at the moment of citing.
 */
import { z } from 'zod';
import { CitationPayload } from './service-schemas';

export const CitationDetail = z.object({
  type: z.string(),
  body: z.string(),
  entities: z.object({ retailers: z.array(z.string()), segments: z.array(z.string()), cities: z.array(z.string()), states: z.array(z.string()) }),
  metrics: z.record(z.string(), z.number()),
  sourceKind: z.string().nullable(),
  /** The source's health when the answer cited it. */
  healthWhenCited: z.enum(['healthy', 'degraded', 'down']).nullable(),
  itemsWhenCited: z.number().nullable(),
  citedAt: z.string(),
});
export type CitationDetail = z.infer<typeof CitationDetail>;

export const CitationSnapshot = CitationPayload.extend({ detail: CitationDetail.nullable().optional() });
export type CitationSnapshot = z.infer<typeof CitationSnapshot>;
