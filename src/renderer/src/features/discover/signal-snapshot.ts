/** A Discover item as the citation panel shows a cited signal. */
import type { CitationSnapshot } from '../../../../shared/conversation';
import type { DiscoverItem } from '../../../../shared/surface-schemas';

export function snapshotOf(item: DiscoverItem): CitationSnapshot {
  return {
    id: item.id,
    title: item.title,
    source_id: item.source.id,
    source_name: item.source.name,
    published_at: item.published_at,
    url: item.url,
    slug: item.slug,
    snippet: item.summary,
    detail: {
      type: item.type ?? 'signal',
      body: item.summary,
      entities: item.entities,
      metrics: item.metrics,
      sourceKind: null,
      healthWhenCited: null,
      itemsWhenCited: null,
      citedAt: new Date().toISOString(),
    },
  };
}
