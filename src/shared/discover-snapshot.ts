/**
 * A Discover item kept as a cited signal: the citation panel shows it, the library saves it.
 * Zod-free (type imports only), so the renderer can use it without shipping zod.
 */
import type { CitationSnapshot } from './conversation';
import type { DiscoverItem } from './surface-schemas';

export function snapshotOfDiscoverItem(item: DiscoverItem, citedAt: string): CitationSnapshot {
  return {
    id: item.id,
    title: item.title,
    source_id: item.source.id,
    source_name: item.source.name,
    published_at: item.published_at,
    url: item.url,
    slug: item.slug,
    snippet: item.summary,
    detail: { type: item.type ?? 'signal', body: item.summary, entities: item.entities, metrics: item.metrics, sourceKind: null, healthWhenCited: null, itemsWhenCited: null, citedAt },
  };
}
