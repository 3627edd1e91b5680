/**
 * A cited signal as the app keeps it: the stream's citation plus, once looked up, the
 * signal's details and its source's health at the moment of citing.
 */
import { z } from 'zod';
import { CitationPayload, type LookedUpSource, type Signal, type SourceEntry } from './service-schemas';

export const CitationDetail = z.object({
  type: z.string(),
  body: z.string(),
  entities: z.object({ retailers: z.array(z.string()), segments: z.array(z.string()), cities: z.array(z.string()), states: z.array(z.string()) }),
  metrics: z.record(z.string(), z.number()),
  sourceKind: z.string().nullable(),
  /** The source's health when the answer cited it. */
  healthWhenCited: z.enum(['healthy', 'degraded', 'down']).nullable(),
  /** The service said the source has no health (a fixed sample, never fetched); absent in older saves. */
  healthNotMeasured: z.boolean().optional(),
  itemsWhenCited: z.number().nullable(),
  citedAt: z.string(),
});
export type CitationDetail = z.infer<typeof CitationDetail>;

export const CitationSnapshot = CitationPayload.extend({ detail: CitationDetail.nullable().optional() });
export type CitationSnapshot = z.infer<typeof CitationSnapshot>;

/**
 * A cited signal's details with its source's health at the moment of citing, so the answer
 * or report can show "health when cited" later and read completely offline.
 */
export function citationDetailOf(signal: Signal, source: SourceEntry | LookedUpSource | null, citedAt: string): CitationDetail {
  return {
    type: signal.type,
    body: signal.body,
    entities: signal.entities,
    metrics: signal.metrics,
    sourceKind: source?.kind ?? null,
    healthWhenCited: source?.health ?? null,
    ...(source && source.health === null ? { healthNotMeasured: true } : {}),
    itemsWhenCited: source?.items_24h ?? null,
    citedAt,
  };
}

/** The whole citation, from a looked-up signal (research reports name only signal ids). */
export function citationSnapshotOf(signal: Signal, source: SourceEntry | LookedUpSource | null, citedAt: string): CitationSnapshot {
  return {
    id: signal.id,
    title: signal.title,
    source_id: signal.source_id,
    source_name: source?.name ?? (typeof signal.source_name === 'string' ? signal.source_name : signal.source_id),
    published_at: signal.published_at,
    url: signal.url,
    slug: signal.slug,
    snippet: signal.summary,
    detail: citationDetailOf(signal, source, citedAt),
  };
}
