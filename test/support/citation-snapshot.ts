import type { CitationSnapshot } from '../../src/shared/conversation';

/**
 * A cited signal as a saved answer holds it (its details looked up when cited). `changed`: the
 * same signal cited again after the service revised it (another retailer named).
 */
export function citationSnapshot(id: string, detail: { body: string; changed?: boolean; metrics: Record<string, number>; citedAt: string }): CitationSnapshot {
  return {
    id,
    title: `Signal ${id}`,
    source_id: 'src_nse',
    source_name: 'NSE filings',
    published_at: '2026-11-01T00:00:00.000Z',
    url: `https://example.test/${id}`,
    slug: id,
    snippet: `What ${id} says.`,
    detail: {
      type: 'growth',
      body: detail.body,
      entities: { retailers: detail.changed ? ['Zudio', 'Westside'] : ['Zudio'], segments: ['fashion'], cities: ['Pune'], states: ['Maharashtra'] },
      metrics: detail.metrics,
      sourceKind: 'filing',
      healthWhenCited: 'healthy',
      itemsWhenCited: 3,
      citedAt: detail.citedAt,
    },
  };
}
