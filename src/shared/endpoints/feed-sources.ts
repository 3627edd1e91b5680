/** The feed's sources, for the service's administrator (JWT claim role "admin"), and proposal status. */
import { AcceptedProposal, FeedSourceCreated, FeedSourceDryRun, FeedSourceList, FeedSourceOne, FeedSourceWithHistory, QueuedProposal, QueuedProposalList, RejectedProposal } from '../feed-source-schemas';
import { area, endpoint } from './define';
import { jsonResponse, pathParameter, type JsonObject } from '../openapi/common';

const ADMIN = 'Needs the service administrator: a bearer JWT with the claim `role: "admin"` (`npm run service -- token --user … --role admin`).';
const FORBIDDEN = '`forbidden`: the caller is signed in but is not the administrator.';

const SOURCE: JsonObject = {
  id: 'et-retail-3f9a0c',
  name: 'ET Retail',
  kind: 'rss',
  url: 'https://example.com/retail/rss.xml',
  cadence_s: 900,
  role: 'primary',
  paused: false,
  health: 'degraded',
  health_reason: 'last fetch failed: HTTP 503: the site is unavailable (retry after 120 s).',
  last_fetch_at: '2026-11-01T09:45:00.000Z',
  last_success_at: '2026-11-01T09:30:00.000Z',
  consecutive_failures: 1,
  last_error: { kind: 'unavailable', message: 'HTTP 503: the site is unavailable (retry after 120 s).', at: '2026-11-01T09:45:00.000Z' },
  next_fetch_at: '2026-11-01T10:15:00.000Z',
  not_modified_ratio: 0.4,
  items_total: 112,
  items_24h: 9,
};
const DEFINITION_SCHEMA: JsonObject = {
  type: 'object',
  required: ['name', 'kind', 'url'],
  properties: {
    id: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' },
    name: { type: 'string', maxLength: 200 },
    kind: { type: 'string', enum: ['rss', 'atom', 'jsonfeed', 'html', 'folder'], description: '`rss` covers RSS 2.0 and RDF; `html` is a listing page whose article links are followed; `folder` is a `file:///` directory of PDF, HTML, Markdown, text and DOCX files.' },
    url: { type: 'string' },
    cadence_s: { type: 'integer', minimum: 1, maximum: 604800, default: 900 },
    role: { type: 'string', enum: ['primary', 'oracle'], default: 'primary', description: '`oracle`: a reference feed the miss rate is measured against (its items are not answered from).' },
    item_selector: { type: 'string', description: '`html` only: a CSS selector for the article links.' },
    paused: { type: 'boolean', default: false },
  },
};
const PREVIEW = [{ title: 'Zudio opens 40 stores in Tamil Nadu and Kerala', url: 'https://example.com/retail/zudio-south', published_at: '2026-11-01T07:00:00.000Z', published_at_source: 'item', summary: 'Trent’s value fashion brand Zudio opened 40 stores…' }];
const PROPOSAL = { id: 'prp_0a1b2c3d4e5f6a7b', url: 'https://example.com/retail-feed', name: 'Example retail feed', kind: 'rss', note: 'Covers Tier 2 store openings.', proposed_at: '2026-11-01T08:00:00.000Z', status: 'rejected', decided_at: '2026-11-01T09:00:00.000Z', reason: 'Duplicates an existing source.', source_id: null };
const idParameter = pathParameter('id', 'The source id.', { type: 'string' }, 'et-retail-3f9a0c');
const proposalParameter = pathParameter('id', 'The proposal id.', { type: 'string' }, 'prp_0a1b2c3d4e5f6a7b');

export const feedSourcesArea = area({
  tags: [{ name: 'Feed sources', description: 'The live feed\'s sources (fetched RSS/RDF, Atom, JSON Feed, HTML listings, folders) and the proposals queue. Health rule and limits: docs/feed.md.' }],
  endpoints: {
    listFeedSources: endpoint({
      method: 'GET',
      path: '/api/v1/sources',
      tag: 'Feed sources',
      summary: 'List the fetched sources with the facts behind their health',
      description: ADMIN,
      access: 'jwt',
      responses: { '200': jsonResponse('The sources.', FeedSourceList, { sources: [SOURCE], health_rule: 'healthy: the last fetch succeeded in full and the last success is within 2 × cadence; …' }) },
      errors: { 403: FORBIDDEN },
    }),
    addFeedSource: endpoint({
      method: 'POST',
      path: '/api/v1/sources',
      tag: 'Feed sources',
      summary: 'Add a source (fetched once first; `?dry_run=true` only previews)',
      description: `${ADMIN} The URL is fetched once to validate it; the answer previews the items found. The id is assigned when not given. The new source is then fetched at its cadence.`,
      access: 'jwt',
      parameters: [{ name: 'dry_run', in: 'query', required: false, description: '`true`: preview only, nothing is created.', schema: { type: 'string', enum: ['true', 'false'] }, example: 'true' }],
      requestBody: { schema: DEFINITION_SCHEMA, example: { name: 'ET Retail', kind: 'rss', url: 'https://example.com/retail/rss.xml', cadence_s: 900 } },
      responses: {
        '200': jsonResponse('Dry run: the preview (nothing created).', FeedSourceDryRun, { dry_run: true, source: { id: 'et-retail-3f9a0c', name: 'ET Retail', kind: 'rss', url: 'https://example.com/retail/rss.xml', cadence_s: 900 }, preview: PREVIEW }),
        '201': jsonResponse('Created.', FeedSourceCreated, { source: SOURCE, preview: PREVIEW }),
      },
      errors: { 400: 'An invalid definition, a URL of the wrong scheme for the kind, or an id already in use.', 403: FORBIDDEN, 422: '`source_unreadable`: the URL gave no items; the message says why (not a feed, 404, robots.txt disallows, body over the cap, entity declarations…).' },
    }),
    getFeedSource: endpoint({
      method: 'GET',
      path: '/api/v1/sources/{id}',
      tag: 'Feed sources',
      summary: 'One source with its recent fetch history',
      description: ADMIN,
      access: 'jwt',
      parameters: [idParameter],
      responses: { '200': jsonResponse('The source and its last 20 fetches, newest first.', FeedSourceWithHistory, { source: SOURCE, history: [{ at: '2026-11-01T09:45:00.000Z', ok: false, status: null, not_modified: false, items: 0, new_items: 0, duration_ms: 412, error: { kind: 'unavailable', message: 'HTTP 503: the site is unavailable (retry after 120 s).' } }] }) },
      errors: { 403: FORBIDDEN, 404: '`not_found`: no such source.' },
    }),
    updateFeedSource: endpoint({
      method: 'PATCH',
      path: '/api/v1/sources/{id}',
      tag: 'Feed sources',
      summary: 'Rename, change the cadence, pause or resume a source',
      description: ADMIN,
      access: 'jwt',
      parameters: [idParameter],
      requestBody: { schema: { type: 'object', additionalProperties: false, properties: { name: { type: 'string' }, cadence_s: { type: 'integer', minimum: 1 }, paused: { type: 'boolean' } } }, example: { paused: true } },
      responses: { '200': jsonResponse('The source.', FeedSourceOne, { source: { ...SOURCE, paused: true, next_fetch_at: null } }) },
      errors: { 403: FORBIDDEN, 404: '`not_found`: no such source.' },
    }),
    deleteFeedSource: endpoint({
      method: 'DELETE',
      path: '/api/v1/sources/{id}',
      tag: 'Feed sources',
      summary: 'Remove a source (its signals stay answerable)',
      description: ADMIN,
      access: 'jwt',
      parameters: [idParameter],
      responses: { '204': { description: 'Removed.' } },
      errors: { 403: FORBIDDEN, 404: '`not_found`: no such source.' },
    }),
    listSourceProposals: endpoint({
      method: 'GET',
      path: '/api/v1/sources/proposals',
      tag: 'Feed sources',
      summary: 'The proposals queue, newest first',
      description: ADMIN,
      access: 'jwt',
      responses: { '200': jsonResponse('The proposals.', QueuedProposalList, { proposals: [{ ...PROPOSAL, proposed_by: 'ip:203.0.113.7' }] }) },
      errors: { 403: FORBIDDEN },
    }),
    getSourceProposal: endpoint({
      method: 'GET',
      path: '/api/v1/sources/proposals/{id}',
      tag: 'Feed sources',
      summary: 'A proposal\'s status and the reason given',
      description: 'Anyone holding the proposal\'s id (the anonymous proposer included) reads its status.',
      access: 'anyone',
      parameters: [proposalParameter],
      responses: { '200': jsonResponse('The proposal.', QueuedProposal, PROPOSAL) },
      errors: { 404: '`not_found`: no such proposal.' },
    }),
    acceptSourceProposal: endpoint({
      method: 'POST',
      path: '/api/v1/sources/proposals/{id}/accept',
      tag: 'Feed sources',
      summary: 'Accept a proposal: it becomes a source and is fetched',
      description: `${ADMIN} The kind is the one given here, else the proposer's when it is a feed kind, else found by reading the URL.`,
      access: 'jwt',
      parameters: [proposalParameter],
      requestBody: { required: false, schema: { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', enum: ['rss', 'atom', 'jsonfeed', 'html', 'folder'] }, name: { type: 'string' }, cadence_s: { type: 'integer', minimum: 1 } } }, example: { kind: 'rss', cadence_s: 1800 } },
      responses: { '200': jsonResponse('Accepted.', AcceptedProposal, { proposal: { ...PROPOSAL, status: 'accepted', reason: null, source_id: 'et-retail-3f9a0c' }, source: SOURCE }) },
      errors: { 400: 'The proposal was already decided.', 403: FORBIDDEN, 404: '`not_found`: no such proposal.' },
    }),
    rejectSourceProposal: endpoint({
      method: 'POST',
      path: '/api/v1/sources/proposals/{id}/reject',
      tag: 'Feed sources',
      summary: 'Reject a proposal with a reason (it is never fetched)',
      description: ADMIN,
      access: 'jwt',
      parameters: [proposalParameter],
      requestBody: { schema: { type: 'object', required: ['reason'], properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } } }, example: { reason: 'Duplicates an existing source.' } },
      responses: { '200': jsonResponse('Rejected.', RejectedProposal, { proposal: PROPOSAL }) },
      errors: { 400: 'The proposal was already decided.', 403: FORBIDDEN, 404: '`not_found`: no such proposal.' },
    }),
  },
});
