/** Signal sources: the health snapshot, one signal, and proposals of new sources. */
import { HealthSnapshot, ProposeRequest, ProposeResponse, SignalLookup } from '../service-schemas';
import { area, endpoint } from './define';
import { jsonResponse, pathParameter, RATE_HEADER } from '../openapi/common';

const SOURCE = {
  id: 'src_trent_newsroom',
  name: 'Trent newsroom',
  kind: 'company_newsroom',
  health: 'healthy',
  cadence: 'daily',
  items_24h: 3,
  last_item_at: '2026-11-01T08:40:00.000Z',
  url: 'https://example.com/trent/newsroom',
};

const SIGNAL = {
  id: 'sig_3f9a0c1d2e4b5a67',
  slug: 'zudio-opens-14-stores-across-pune-3f9a0c',
  title: 'Zudio opens 14 stores across Pune',
  summary: 'Trent\'s value fashion chain added 14 stores in Pune in October.',
  body: 'Trent\'s value fashion chain Zudio added 14 stores in Pune in October, taking its city count to 41.',
  source_id: 'src_trent_newsroom',
  url: 'https://example.com/trent/zudio-pune',
  published_at: '2026-10-28T09:30:00.000Z',
  type: 'store_opening',
  entities: { retailers: ['Zudio'], segments: ['fashion'], cities: ['Pune'], states: ['Maharashtra'] },
  metrics: { stores_opened: 14 },
};

export const sourcesArea = area({
  tags: [{ name: 'Sources', description: 'The signal corpus: source health, single signals and proposals of new sources.' }],
  endpoints: {
    getSourcesHealth: endpoint({
      method: 'GET',
      path: '/api/v1/sources/health',
      tag: 'Sources',
      summary: 'Health of every signal source',
      description:
        'A snapshot of every fetched source with its health, cadence and items in the last 24 hours, and the facts behind its health (`last_fetch_at`, `last_success_at`, `consecutive_failures`, `last_error`, `next_fetch_at`, `not_modified_ratio`, `items_total`, `health_reason`); the rule is in `health_rule`. ' +
        '`oracle` is measured against reference feeds (`counted`, `matched`, `missed`, `grace`, `latest_misses`). Computed at most once per 60 seconds: within that window every caller gets the same body and `ETag`; revalidate with `If-None-Match`. ' +
        'The synthetic sample\'s sources are listed only when it is replayed for a demo (`simulated: true`). Anonymous callers are allowed.',
      access: 'anyone',
      parameters: [
        { name: 'If-None-Match', in: 'header', required: false, description: 'The `ETag` of a snapshot you hold.', schema: { type: 'string' }, example: '"4f1c2a9be07d3c55a1b2"' },
      ],
      responses: {
        '200': jsonResponse(
          'The snapshot.',
          HealthSnapshot,
          {
            generated_at: '2026-11-01T10:00:00.000Z',
            stats: { sources_total: 1, healthy: 1, degraded: 0, down: 0, items_per_hour: 0.13, signals_24h: 3 },
            oracle: { miss_rate: 0.04, window: '24h', grace: '3600s', counted: 25, matched: 24, missed: 1, latest_misses: [{ title: 'Zepto raises ₹3,200 crore', url: 'https://example.com/oracle/zepto', published_at: '2026-11-01T06:00:00.000Z' }], updated_at: '2026-11-01T09:00:00.000Z' },
            health_rule: 'healthy: the last fetch succeeded in full and the last success is within 2 × cadence; down: 3 or more consecutive failures, or no success within 6 × cadence; degraded: anything else (a failed or partial last fetch, a late success, or not fetched yet).',
            sources: [{ ...SOURCE, last_fetch_at: '2026-11-01T09:45:00.000Z', last_success_at: '2026-11-01T09:45:00.000Z', consecutive_failures: 0, last_error: null, next_fetch_at: '2026-11-01T10:00:00.000Z', not_modified_ratio: 0.5, items_total: 40, health_reason: null }],
          },
          { 'Cache-Control': { $ref: '#/components/headers/CacheControl' }, ETag: { $ref: '#/components/headers/ETag' } },
        ),
        '304': {
          description: 'Not modified since the `ETag` sent in `If-None-Match` (no body).',
          headers: { ...RATE_HEADER, 'Cache-Control': { $ref: '#/components/headers/CacheControl' }, ETag: { $ref: '#/components/headers/ETag' } },
        },
      },
    }),
    getSignal: endpoint({
      method: 'GET',
      path: '/api/v1/signals/{id}',
      tag: 'Sources',
      summary: 'Look up one signal (extension)',
      description: 'One signal with its source and that source\'s health now. Anonymous callers are allowed.',
      access: 'anyone',
      parameters: [pathParameter('id', 'The signal id.', { type: 'string', pattern: '^sig_[0-9a-f]{16}$' }, SIGNAL.id)],
      responses: { '200': jsonResponse('The signal.', SignalLookup, { signal: SIGNAL, source: SOURCE }) },
      errors: { 400: '`id` is not `sig_` followed by 16 hex characters.', 404: '`not_found`: no signal with this id.' },
    }),
    proposeSource: endpoint({
      method: 'POST',
      path: '/api/v1/sources/propose',
      tag: 'Sources',
      summary: 'Propose a new signal source',
      description: 'Stores the proposal in the administrator\'s queue (it is never fetched until accepted); read its status at `status_url`. Anonymous callers are allowed.',
      access: 'anyone',
      limit: 'propose',
      requestBody: {
        schema: ProposeRequest,
        example: { url: 'https://example.com/retail-feed', name: 'Example retail feed', kind: 'business_press', rationale: 'Covers Tier 2 store openings.' },
      },
      responses: { '202': jsonResponse('Received.', ProposeResponse, { status: 'received', proposal_id: 'prp_0a1b2c3d4e5f6a7b', status_url: '/api/v1/sources/proposals/prp_0a1b2c3d4e5f6a7b' }) },
    }),
  },
});
