/**
 * A fake remote Retail Signal service (issue #14): a plain Node http server, not our Fastify
 * service, that follows the interface but makes the other choices it allows. By default it
 * answers like a well-behaved service (Anthropic-shaped SSE, a docs/decisions/design.md §3 health snapshot,
 * queued research with a JSON report); each VARIANT below overrides one route to make one
 * allowed (or hostile) choice. docs/compatibility.md tables every variant and its test.
 *
 * It records every request (path, Authorization, X-API-Key, body) so tests can check what the
 * client sent, and it has a second origin (`other`) for report and status URLs on another host.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export const CITE = 'sig_00000000000000a1';
export const CITE_2 = 'sig_00000000000000b2';
/** The answer every streaming variant must deliver, whole, through the bridge. */
export const ANSWER_PARTS = ['Quick commerce orders in Bengaluru ', 'grew 41% year on year ', `[${CITE}].`];
export const ANSWER = ANSWER_PARTS.join('');
export const REPORT_MARKDOWN = `# Quick commerce in Bengaluru\n\nDark stores doubled in a year [${CITE}] and delivery times fell [${CITE_2}].\n`;

export interface FakeRequest {
  method: string;
  path: string;
  authorization: string | null;
  apiKey: string | null;
  body: unknown;
}

export interface FakeContext {
  /** Base URL of this server and of the second origin. */
  url: string;
  otherUrl: string;
  /** How many times this method + path has been asked, this one included. */
  count: number;
}

export type FakeHandler = (request: FakeRequest, response: ServerResponse, context: FakeContext) => void;
/** Handlers by `METHOD /path`; a path ending in `*` matches by prefix. */
export type FakeRoutes = Record<string, FakeHandler>;

// ── Wire helpers ─────────────────────────────────────────────────────────────────────────
export const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
export const dataOnly = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
export const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
  void response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const openSse = (response: ServerResponse): void => void response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });

export const START = frame('message_start', { message: { id: 'msg_1', session_id: 'ses_fake', session_slug: 'fake-slug' } });
export const BLOCK_START = frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
export const DELTAS = ANSWER_PARTS.map((text) => frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })).join('');
export const BLOCK_STOP = frame('content_block_stop', { index: 0 });
export const CITATION = frame('clarity.citation_emitted', { citation: { id: CITE, title: 'Dark stores double', source_name: 'Business press', url: 'https://press.example/a1' } });
export const CONFIDENCE = frame('clarity.confidence_updated', { confidence: 0.72 });
export const STOP = frame('message_stop', {});

/** After the frames: close (default), stay open in silence, or keep sending pings. */
export type StreamEnd = 'close' | 'silence' | 'pings';

/** Sends `body` as one SSE response and ends it as `end` says. */
export function stream(body: string, end: StreamEnd = 'close'): FakeHandler {
  return (_request, response) => {
    openSse(response);
    if (end === 'close') return void response.end(body);
    response.write(body);
    if (end === 'pings') {
      const timer = setInterval(() => response.write(frame('ping', {})), 50);
      response.on('close', () => clearInterval(timer));
    }
  };
}

/** Requests a `hang` handler took and never answered, and whether the client gave each up. */
export interface HungRequests {
  /** `METHOD /path` of each, in the order they came. */
  taken: string[];
  /** How many the client has closed (aborted) so far. */
  closedByClient(): number;
}

/**
 * A handler that takes the request and never answers it (a service that accepted the
 * connection and hung), recording it and whether the client closes it. The test's `close()`
 * ends the connection at last.
 */
export function hang(): { handler: FakeHandler; hung: HungRequests } {
  const taken: string[] = [];
  let closed = 0;
  return {
    hung: { taken, closedByClient: () => closed },
    handler: (request, response) => {
      taken.push(`${request.method} ${request.path}`);
      response.on('close', () => {
        if (!response.writableEnded) closed += 1;
      });
    },
  };
}

// ── The well-behaved defaults ────────────────────────────────────────────────────────────
export const HEALTH_SNAPSHOT = {
  generated_at: '2026-11-21T10:00:00Z',
  stats: { sources_total: 3, healthy: 1, degraded: 1, down: 1, items_per_hour: 12, signals_24h: 290 },
  oracle: { miss_rate: 0.04, window: '24h', updated_at: '2026-11-21T09:55:00Z' },
  sources: [
    { id: 'src_nse', name: 'NSE filings', kind: 'exchange_filing', health: 'healthy', cadence: 'hourly', items_24h: 200, last_item_at: '2026-11-21T09:58:00Z' },
    { id: 'src_press', name: 'Business press', kind: 'press', health: 'degraded', cadence: 'every 15 min', items_24h: 80, last_item_at: '2026-11-21T08:00:00Z' },
    { id: 'src_jobs', name: 'Job boards', kind: 'jobs', health: 'down', cadence: 'daily', items_24h: 10, last_item_at: null },
  ],
};

export const REPORT_JSON = {
  id: 'r1',
  topic: 'Quick commerce in Bengaluru',
  preset: 'standard',
  status: 'completed',
  created_at: '2026-11-21T10:00:00Z',
  markdown: REPORT_MARKDOWN,
  citations: [
    { id: CITE, slug: 'dark-stores', title: 'Dark stores double', summary: 'Dark stores doubled.', body: '…', source_id: 'src_press', url: 'https://press.example/a1', published_at: '2026-11-01T00:00:00Z', type: 'expansion', entities: { retailers: [], segments: [], cities: [], states: [] }, metrics: {} },
    { id: CITE_2, slug: 'delivery', title: 'Delivery times fall', summary: 'Faster.', body: '…', source_id: 'src_press', url: 'https://press.example/b2', published_at: '2026-11-02T00:00:00Z', type: 'pricing', entities: { retailers: [], segments: [], cities: [], states: [] }, metrics: {} },
  ],
  citation_count: 2,
  cost_usd: 0.42,
};

export const DEFAULT_ROUTES: FakeRoutes = {
  'POST /api/v1/ask': (request, response, context) => {
    if ((request.body as { stream?: boolean } | undefined)?.stream) return stream(START + BLOCK_START + CITATION + DELTAS + CONFIDENCE + BLOCK_STOP + STOP)(request, response, context);
    json(response, 200, { content: ANSWER, citations: [CITE], confidence: 0.72, session_id: 'ses_fake', session_slug: 'fake-slug' });
  },
  'GET /api/v1/sources/health': (_request, response) => json(response, 200, HEALTH_SNAPSHOT, { 'cache-control': 'max-age=60' }),
  'POST /api/v1/research': (_request, response) => json(response, 200, { status: 'completed', report_url: '/api/v1/research/r1/report', citation_count: 2, cost_usd: 0.42 }),
  'POST /api/v2/research': (_request, response) => json(response, 202, { status: 'queued', status_url: '/api/v1/research/r1' }),
  'GET /api/v1/research/r1': (_request, response) => json(response, 200, { id: 'r1', status: 'completed', report_url: '/api/v1/research/r1/report', citation_count: 2, cost_usd: 0.42 }),
  'GET /api/v1/research/r1/report': (_request, response) => json(response, 200, REPORT_JSON),
};

// ── The variants ─────────────────────────────────────────────────────────────────────────
export type VariantArea = 'stream' | 'json-answer' | 'health' | 'research' | 'errors' | 'credential';

export interface FakeVariant {
  id: string;
  area: VariantArea;
  /** What this service does differently, in a line (docs/compatibility.md repeats it). */
  description: string;
  routes: FakeRoutes;
  /** Routes of the second origin (report and status URLs on another host). */
  otherRoutes?: FakeRoutes;
}

const ask = (streamed: FakeHandler, asJson?: FakeHandler): FakeRoutes => ({
  'POST /api/v1/ask': (request, response, context) =>
    (request.body as { stream?: boolean } | undefined)?.stream || !asJson ? streamed(request, response, context) : asJson(request, response, context),
});
const jsonAnswer = (patch: Record<string, unknown>): FakeRoutes => ({
  // This service ignores `stream` and always answers JSON (the client accepts it as one event).
  'POST /api/v1/ask': (_request, response) => json(response, 200, { content: ANSWER, citations: [CITE], confidence: 0.72, session_id: 'ses_fake', session_slug: 'fake-slug', ...patch }),
});
const health = (snapshot: unknown, headers: Record<string, string> = {}, status = 200): FakeRoutes => ({
  'GET /api/v1/sources/health': (_request, response) => json(response, status, snapshot, headers),
});
const poll = (...bodies: unknown[]): FakeRoutes => ({
  'GET /api/v1/research/r1': (_request, response, context) => json(response, 200, bodies[Math.min(context.count, bodies.length) - 1]),
});
const withSources = (sources: unknown[], patch: Record<string, unknown> = {}): Record<string, unknown> => ({ ...HEALTH_SNAPSHOT, sources, ...patch });
const deltasAs = (make: (text: string) => string): string => ANSWER_PARTS.map(make).join('');

export const VARIANTS: FakeVariant[] = [
  // Streams: names, shapes, orders, extra frames, endings.
  { id: 'stream-delta-no-index', area: 'stream', description: '`content_block_delta` frames without `index`', routes: ask(stream(START + deltasAs((text) => frame('content_block_delta', { delta: { type: 'text_delta', text } })) + CITATION + STOP)) },
  { id: 'stream-delta-other-type', area: 'stream', description: '`delta.type` is `text` / `output_text_delta`, not `text_delta`', routes: ask(stream(START + deltasAs((text) => frame('content_block_delta', { index: 0, delta: { type: text.length % 2 ? 'text' : 'output_text_delta', text } })) + CITATION + STOP)) },
  { id: 'stream-flat-text', area: 'stream', description: 'flat `content_block_delta {text}` (no `delta` object)', routes: ask(stream(START + deltasAs((text) => frame('content_block_delta', { text })) + CITATION + STOP)) },
  { id: 'stream-data-only', area: 'stream', description: 'no `event:` lines: each frame named by its payload `type` (Anthropic wire style)', routes: ask(stream(dataOnly({ type: 'message_start', message: { id: 'm', session_id: 'ses_d' } }) + deltasAs((text) => dataOnly({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })) + dataOnly({ type: 'clarity.citation_emitted', citation: { id: CITE } }) + dataOnly({ type: 'message_stop' }))) },
  { id: 'stream-silence-after-stop', area: 'stream', description: '`message_stop`, then the connection stays open and silent', routes: ask(stream(START + CITATION + DELTAS + STOP, 'silence')) },
  { id: 'stream-pings-after-stop', area: 'stream', description: '`message_stop`, then `ping` frames forever', routes: ask(stream(START + CITATION + DELTAS + STOP, 'pings')) },
  { id: 'stream-error-after-stop', area: 'stream', description: '`message_stop`, then an `error` frame, then close', routes: ask(stream(START + CITATION + DELTAS + STOP + frame('error', { error: { error: 'internal', message: 'late failure' } }))) },
  {
    id: 'stream-frames-after-stop',
    area: 'stream',
    description: 'a delta, a citation, confidence and an error after `message_stop`',
    routes: ask(stream(START + DELTAS + STOP + frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' LATE TEXT' } }) + CITATION + CONFIDENCE + frame('error', { error: { error: 'internal', message: 'late failure' } }), 'silence')),
  },
  { id: 'stream-service-frames-first', area: 'stream', description: 'service-specific frames before `message_start`, confidence before any text', routes: ask(stream(CITATION + CONFIDENCE + START + DELTAS + STOP)) },
  { id: 'stream-flat-citation', area: 'stream', description: 'flat citation frame `{id, title, …}` (no `citation` wrapper)', routes: ask(stream(START + DELTAS + frame('clarity.citation_emitted', { id: CITE, title: 'Dark stores double', source_name: 'Business press' }) + STOP)) },
  { id: 'stream-flat-error', area: 'stream', description: 'flat error frame `{error: "overloaded", message}` mid-answer', routes: ask(stream(START + frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ANSWER_PARTS[0] } }) + frame('error', { error: 'overloaded', message: 'The answer engine is overloaded; try again in a minute.' }))) },
  { id: 'stream-confidence-string', area: 'stream', description: 'confidence frame with `"0.72"` (a string)', routes: ask(stream(START + DELTAS + frame('clarity.confidence_updated', { confidence: '0.72' }) + STOP)) },
  { id: 'stream-confidence-object', area: 'stream', description: 'confidence frame with `{score: 0.72}`', routes: ask(stream(START + DELTAS + frame('clarity.confidence_updated', { confidence: { score: 0.72, basis: 'retrieval' } }) + STOP)) },
  { id: 'stream-numeric-session', area: 'stream', description: '`message_start` with a numeric `session_id` and no slug', routes: ask(stream(frame('message_start', { message: { id: 7, session_id: 4242 } }) + DELTAS + STOP)) },
  { id: 'stream-extras', area: 'stream', description: 'unknown events, unknown fields, comments and CRLF line ends mixed in', routes: ask(stream((START + frame('clarity.sentiment', { mood: 'up' }) + ': keep-alive\n\n' + frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ANSWER_PARTS[0], extra: 1 }, trace: 'x' }) + frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ANSWER_PARTS.slice(1).join('') } }) + CITATION + frame('message_delta', { usage: { output_tokens: 9 } }) + STOP).replace(/\n/g, '\r\n'))) },
  // JSON answers (the service ignores `stream`).
  { id: 'json-confidence-numeric-string', area: 'json-answer', description: 'JSON answer with confidence `"0.72"`', routes: jsonAnswer({ confidence: '0.72' }) },
  { id: 'json-confidence-null', area: 'json-answer', description: 'JSON answer with confidence `null`', routes: jsonAnswer({ confidence: null }) },
  { id: 'json-confidence-object', area: 'json-answer', description: 'JSON answer with confidence `{score: 0.72}`', routes: jsonAnswer({ confidence: { score: 0.72 } }) },
  { id: 'json-confidence-out-of-range', area: 'json-answer', description: 'JSON answer with confidence `250`', routes: jsonAnswer({ confidence: 250 }) },
  { id: 'json-confidence-words', area: 'json-answer', description: 'JSON answer with confidence `"very high"`', routes: jsonAnswer({ confidence: 'very high' }) },
  { id: 'json-numeric-session', area: 'json-answer', description: 'JSON answer with a numeric `session_id` and citations as `{id}` objects', routes: jsonAnswer({ session_id: 4242, session_slug: undefined, citations: [{ id: CITE, title: 'Dark stores double' }] }) },
  // Health snapshots.
  { id: 'health-no-generated-at', area: 'health', description: 'no `generated_at`', routes: health({ ...HEALTH_SNAPSHOT, generated_at: undefined }) },
  { id: 'health-other-stat-names', area: 'health', description: 'stats named `total`, `ok`, `warning`, `failing`, `hourly_items`, `signals_last_24h`', routes: health({ ...HEALTH_SNAPSHOT, stats: { total: 3, ok: 1, warning: 1, failing: 1, hourly_items: 12, signals_last_24h: 290 } }) },
  { id: 'health-stats-unnamed', area: 'health', description: 'stats with names the app has never seen (counts computed from the list)', routes: health({ ...HEALTH_SNAPSHOT, stats: { roster: { active: 3 }, throughput: 'steady' } }) },
  { id: 'health-oracle-minimal', area: 'health', description: 'oracle is `{missRate: 4}` (a percentage, no window, no updated_at)', routes: health({ ...HEALTH_SNAPSHOT, oracle: { missRate: 4 } }) },
  { id: 'health-list-named-feeds', area: 'health', description: 'the source list is called `feeds`', routes: health({ generated_at: HEALTH_SNAPSHOT.generated_at, stats: HEALTH_SNAPSHOT.stats, oracle: HEALTH_SNAPSHOT.oracle, feeds: HEALTH_SNAPSHOT.sources }) },
  { id: 'health-numeric-cadence', area: 'health', description: 'cadence in seconds (`3600`, `900`, `86400`)', routes: health(withSources(HEALTH_SNAPSHOT.sources.map((s, i) => ({ ...s, cadence: [3600, 900, 86400][i] })))) },
  { id: 'health-other-words', area: 'health', description: 'health words `OK`, `warning`, `offline`', routes: health(withSources(HEALTH_SNAPSHOT.sources.map((s, i) => ({ ...s, health: ['OK', 'warning', 'offline'][i] })))) },
  { id: 'health-unknown-word', area: 'health', description: 'a health word no one knows (`maintenance`)', routes: health(withSources(HEALTH_SNAPSHOT.sources.map((s, i) => ({ ...s, health: i === 0 ? 'maintenance' : s.health })))) },
  { id: 'health-no-ids', area: 'health', description: 'sources without `id`, `name` or `kind` (only the promised fields)', routes: health(withSources(HEALTH_SNAPSHOT.sources.map(({ health: h, cadence, items_24h }, i) => (i === 0 ? { health: h, cadence, items_24h } : { name: `Feed ${i}`, health: h, cadence, items_24h })))) },
  { id: 'health-missing-promised', area: 'health', description: 'a source without `items_24h` (a promised field): the error names it', routes: health(withSources(HEALTH_SNAPSHOT.sources.map((s, i) => (i === 1 ? { ...s, items_24h: undefined } : s)))) },
  { id: 'health-500-repeated', area: 'health', description: '500 on every health request (the monitor backs off: 10 s, 20 s, 40 s…)', routes: health({ error: 'internal', message: 'Broken.' }, {}, 500) },
  { id: 'health-429-retry-after', area: 'health', description: '429 with `Retry-After: 120` on the health snapshot', routes: health({ error: 'rate_limited', message: 'Slow down.' }, { 'retry-after': '120' }, 429) },
  // Research: statuses, report shapes, other hosts.
  { id: 'research-poll-no-id', area: 'research', description: 'poll responses without `id`', routes: poll({ status: 'running' }, { status: 'completed', report_url: '/api/v1/research/r1/report' }) },
  { id: 'research-in-progress', area: 'research', description: 'status `in_progress` (read as running), then `done`', routes: poll({ id: 'r1', status: 'in_progress' }, { id: 'r1', status: 'done', report_url: '/api/v1/research/r1/report' }) },
  { id: 'research-completed-no-url', area: 'research', description: '`completed` without `report_url`', routes: poll({ id: 'r1', status: 'completed' }) },
  { id: 'research-unknown-status', area: 'research', description: 'a status no one knows (`paused_for_review`)', routes: poll({ id: 'r1', status: 'paused_for_review' }) },
  { id: 'research-never-finishes', area: 'research', description: '`running` forever (the client gives up after its limit)', routes: poll({ id: 'r1', status: 'running' }) },
  { id: 'research-report-markdown-only', area: 'research', description: 'JSON report with only `{markdown}`', routes: { 'GET /api/v1/research/r1/report': (_q, response) => json(response, 200, { markdown: REPORT_MARKDOWN }) } },
  { id: 'research-report-id-citations', area: 'research', description: 'JSON report whose citations are ids (`["sig_…"]`)', routes: { 'GET /api/v1/research/r1/report': (_q, response) => json(response, 200, { markdown: REPORT_MARKDOWN, citations: [CITE, CITE_2] }) } },
  { id: 'research-report-text-markdown', area: 'research', description: 'report served as `text/markdown`', routes: { 'GET /api/v1/research/r1/report': (_q, response) => void response.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' }).end(REPORT_MARKDOWN) } },
  { id: 'research-v1-minimal', area: 'research', description: 'v1 `completed` without `citation_count`/`cost_usd`, absolute report_url', routes: { 'POST /api/v1/research': (_q, response, context) => json(response, 200, { status: 'completed', report_url: `${context.url}/api/v1/research/r1/report` }) } },
  {
    id: 'research-report-other-host',
    area: 'research',
    description: '`report_url` on another host (refused unless allow-listed in Settings; then fetched)',
    routes: poll({ id: 'r1', status: 'completed', report_url: 'OTHER/reports/r1' }),
    otherRoutes: { 'GET /reports/r1': (_q, response) => json(response, 200, { markdown: REPORT_MARKDOWN, citations: [CITE] }) },
  },
  {
    id: 'research-status-other-host',
    area: 'research',
    description: '`status_url` on another host (polled only when allow-listed)',
    routes: { 'POST /api/v2/research': (_q, response, context) => json(response, 202, { status: 'queued', status_url: `${context.otherUrl}/runs/r1` }) },
    otherRoutes: { 'GET /runs/r1': (_q, response, context) => json(response, 200, { status: 'completed', report_url: `${context.otherUrl}/reports/r1` }), 'GET /reports/r1': (_q, response) => json(response, 200, { markdown: REPORT_MARKDOWN }) },
  },
  // Errors and statuses.
  { id: 'error-402', area: 'errors', description: '402 `{error: "payment_required", message}` on ask', routes: { 'POST /api/v1/ask': (_q, response) => json(response, 402, { error: 'payment_required', message: 'Your plan has no answers left this month.' }) } },
  { id: 'error-402-bare', area: 'errors', description: '402 with no body', routes: { 'POST /api/v1/ask': (_q, response) => void response.writeHead(402).end() } },
  { id: 'error-429-seconds', area: 'errors', description: '429 with `Retry-After: 17`', routes: { 'POST /api/v1/ask': (_q, response) => json(response, 429, { error: 'rate_limited', message: 'Slow down.' }, { 'retry-after': '17' }) } },
  { id: 'error-429-date', area: 'errors', description: '429 with `Retry-After` as an HTTP date', routes: { 'POST /api/v1/ask': (_q, response) => json(response, 429, { error: 'rate_limited', message: 'Slow down.' }, { 'retry-after': new Date(Date.now() + 40_000).toUTCString() }) } },
  { id: 'error-429-no-header', area: 'errors', description: '429 without `Retry-After`', routes: { 'POST /api/v1/ask': (_q, response) => json(response, 429, { error: 'rate_limited', message: 'Slow down.' }) } },
  {
    id: 'strict-session-id',
    area: 'errors',
    description: 'a strict service answers 400 to the `session_id` extension',
    routes: ask((request, response, context) => {
      if ((request.body as Record<string, unknown>).session_id !== undefined) return json(response, 400, { error: 'invalid_request', message: 'Unknown field: session_id.' });
      return stream(START + DELTAS + CITATION + STOP)(request, response, context);
    }),
  },
  // Credentials.
  {
    id: 'credential-invalid-token',
    area: 'credential',
    description: '401 + `WWW-Authenticate: Bearer error="invalid_token"` to any credential; anonymous ask and health work',
    routes: Object.fromEntries(
      Object.entries(DEFAULT_ROUTES).map(([route, handler]) => [
        route,
        (request: FakeRequest, response: ServerResponse, context: FakeContext) => {
          if (request.authorization || request.apiKey) {
            return json(response, 401, { error: 'unauthorized', message: 'The token has expired.' }, { 'www-authenticate': 'Bearer error="invalid_token", error_description="The token has expired"' });
          }
          handler(request, response, context);
        },
      ]),
    ),
  },
];

export function variant(id: string): FakeVariant {
  const found = VARIANTS.find((v) => v.id === id);
  if (!found) throw new Error(`No fake-service variant "${id}".`);
  return found;
}

// ── The server ───────────────────────────────────────────────────────────────────────────
export interface FakeRemoteService {
  url: string;
  /** The second origin, for URLs on another host. */
  other: { url: string; requests: FakeRequest[] };
  requests: FakeRequest[];
  close(): Promise<void>;
}

function listen(routes: () => FakeRoutes, fallback: FakeRoutes, requests: FakeRequest[], urls: () => { url: string; otherUrl: string }): Promise<{ server: Server; url: string }> {
  const counts = new Map<string, number>();
  const server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      const path = new URL(incoming.url ?? '/', 'http://x').pathname;
      const header = (name: string): string | null => (typeof incoming.headers[name] === 'string' ? (incoming.headers[name] as string) : null);
      const request: FakeRequest = { method: incoming.method ?? 'GET', path, authorization: header('authorization'), apiKey: header('x-api-key'), body };
      requests.push(request);
      const key = `${request.method} ${path}`;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      const table = { ...fallback, ...routes() };
      const handler = table[key] ?? Object.entries(table).find(([route]) => route.endsWith('*') && key.startsWith(route.slice(0, -1)))?.[1];
      if (!handler) return json(response, 404, { error: 'not_found', message: `No route ${key}.` });
      handler(request, response, { ...urls(), count });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    resolve({ server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
  }));
}

/** Starts the fake service (and its other origin) with the variant's routes over the defaults. */
export async function startFakeRemoteService(chosen: FakeVariant | null = null): Promise<FakeRemoteService> {
  const requests: FakeRequest[] = [];
  const otherRequests: FakeRequest[] = [];
  let urls = { url: '', otherUrl: '' };
  // `OTHER` in a variant's JSON stands for the other origin (its port is known only now).
  const substitute = (routes: FakeRoutes): FakeRoutes =>
    Object.fromEntries(
      Object.entries(routes).map(([key, handler]) => [
        key,
        (request: FakeRequest, response: ServerResponse, context: FakeContext) => {
          const end = response.end.bind(response) as (chunk?: unknown) => ServerResponse;
          response.end = ((chunk?: unknown) => end(typeof chunk === 'string' ? chunk.replaceAll('OTHER/', `${urls.otherUrl}/`) : chunk)) as typeof response.end;
          handler(request, response, context);
        },
      ]),
    );
  const main = await listen(() => substitute(chosen?.routes ?? {}), DEFAULT_ROUTES, requests, () => urls);
  const other = await listen(() => chosen?.otherRoutes ?? {}, {}, otherRequests, () => urls);
  urls = { url: main.url, otherUrl: other.url };
  return {
    url: main.url,
    other: { url: other.url, requests: otherRequests },
    requests,
    close: async () => {
      for (const { server } of [main, other]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
