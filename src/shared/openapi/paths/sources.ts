/** Signal sources: the health snapshot, one signal, and proposals of new sources. */
import { jsonResponse, operation, pathParameter, ref, RATE_HEADER, type OpenApiArea } from '../common';

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

export const sourcesArea: OpenApiArea = {
  tags: [{ name: 'Sources', description: 'The signal corpus: source health, single signals and proposals of new sources.' }],
  paths: {
    '/api/v1/sources/health': {
      get: operation({
        operationId: 'getSourcesHealth',
        tag: 'Sources',
        summary: 'Health of every signal source',
        description: 'A snapshot of every source with its health, cadence and items in the last 24 hours. Cacheable for 60 seconds; revalidate with `If-None-Match`. Anonymous callers are allowed.',
        access: 'anyone',
        parameters: [
          { name: 'If-None-Match', in: 'header', required: false, description: 'The `ETag` of a snapshot you hold.', schema: { type: 'string' }, example: '"4f1c2a9be07d3c55a1b2"' },
        ],
        responses: {
          '200': jsonResponse(
            'The snapshot.',
            ref('HealthSnapshot'),
            {
              generated_at: '2026-11-01T10:00:00.000Z',
              stats: { sources_total: 1, healthy: 1, degraded: 0, down: 0, items_per_hour: 0.13, signals_24h: 3 },
              oracle: { miss_rate: 0.04, window: '7d', updated_at: '2026-11-01T09:00:00.000Z' },
              sources: [SOURCE],
            },
            { 'Cache-Control': { $ref: '#/components/headers/CacheControl' }, ETag: { $ref: '#/components/headers/ETag' } },
          ),
          '304': {
            description: 'Not modified since the `ETag` sent in `If-None-Match` (no body).',
            headers: { ...RATE_HEADER, 'Cache-Control': { $ref: '#/components/headers/CacheControl' }, ETag: { $ref: '#/components/headers/ETag' } },
          },
        },
      }),
    },
    '/api/v1/signals/{id}': {
      get: operation({
        operationId: 'getSignal',
        tag: 'Sources',
        summary: 'Look up one signal (extension)',
        description: 'One signal with its source and that source\'s health now. Anonymous callers are allowed.',
        access: 'anyone',
        parameters: [pathParameter('id', 'The signal id.', { type: 'string', pattern: '^sig_[0-9a-f]{16}$' }, SIGNAL.id)],
        responses: { '200': jsonResponse('The signal.', ref('SignalLookup'), { signal: SIGNAL, source: SOURCE }) },
        errors: { 400: '`id` is not `sig_` followed by 16 hex characters.', 404: '`not_found`: no signal with this id.' },
      }),
    },
    '/api/v1/sources/propose': {
      post: operation({
        operationId: 'proposeSource',
        tag: 'Sources',
        summary: 'Propose a new signal source',
        description: 'Queues a source for review. Anonymous callers are allowed.',
        access: 'anyone',
        limit: 'propose (3 per hour)',
        requestBody: {
          schema: ref('SourceProposal'),
          example: { url: 'https://example.com/retail-feed', name: 'Example retail feed', kind: 'business_press', rationale: 'Covers Tier 2 store openings.' },
        },
        responses: { '202': jsonResponse('Received.', ref('SourceProposalReceived'), { status: 'received', proposal_id: 'prp_0a1b2c3d4e5f6a7b' }) },
      }),
    },
  },
};
