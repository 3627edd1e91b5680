/**
 * Developer API: API keys (issued to an authenticated user, shown once, stored as SHA-256),
 * the identity provider's JWKS and the changelog page. The signed-in pages of the developer
 * area (/developer, keys, webhooks) are in developer-area.ts.
 */
import type { FastifyInstance } from 'fastify';
import { route } from '../endpoint-routes';
import { DevTokenRequest } from '../../shared/service-schemas';
import { ISSUER, userIdFor } from '../auth';
import { CHANGELOG_ATOM_PATH, CHANGELOG_JSON_PATH, changelogAtomFeed, changelogJsonFeed, type ChangelogEntry } from '../developer/changelog-feeds';
import { DEPRECATIONS, deprecatedAt, sunsetAt } from '../developer/deprecations';
import { ServiceError } from '../http-errors';
import { invalidRequest, type ServiceContext } from '../service-context';
import { escapeHtml, page } from './pages';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from '../../shared/webhooks';

export const CHANGELOG: ChangelogEntry[] = [
  {
    version: '1.3.0',
    date: '2026-12-07',
    notes: [
      'v2 research: GET /api/v2/research/{id} shows progress {stage, done, total} (planning, retrieving, writing, verifying, done); a report carries verification {sentences, supported, removed} and support spans, cost_usd with cost_basis (local, or model_usage at the operator\'s prices), and changes since the last run of its topic.',
      'v2 research schedules: POST, GET /api/v2/research/schedules, DELETE /api/v2/research/schedules/{id}, POST /api/v2/research/schedules/{id}/run; capped per tier and counted toward the research limit.',
      `Webhooks: a new event, research.changed (${WEBHOOK_EVENT_DESCRIPTIONS['research.changed'].toLowerCase()}), signed like the others. Every event: ${WEBHOOK_EVENTS.join(', ')}.`,
    ],
  },
  {
    version: '1.2.0',
    date: '2026-11-25',
    notes: [
      'Deprecation: POST /api/v1/research is deprecated now that v2 is announced. Its responses carry Deprecation: @1793491200 (RFC 9745, the announcement date 2026-11-01), Sunset: Sat, 01 May 2027 00:00:00 GMT (RFC 8594, six months later) and Link: </developer/changelog>; rel="deprecation". Move to POST /api/v2/research (202 queued, poll status_url). The OpenAPI document marks the operation deprecated: true.',
      'The changelog is machine-readable beside this page: /developer/changelog.json (JSON Feed 1.1, with the deprecations under _retail_signal) and /developer/changelog.atom (Atom).',
    ],
  },
  {
    version: '1.1.0',
    date: '2026-11-22',
    notes: [
      'v1: GET /api/v1/discover searches and browses signals (q, id, entity, segment, city, source, kind, since, until, limit ≤ 100, cursor); anonymous allowed, 60 requests / 60 s.',
      'v1: follows — POST, GET /api/v1/follow, DELETE /api/v1/follow/{id}, GET /api/v1/follow/feed?cursor=. Tier from the JWT claim `tier`: free 10 follows and 60 feed reads an hour, pro 100 and 600, team 1,000 and 6,000; over the count 403 `limit_reached`, over the rate 429.',
      'v1: POST /api/v1/predict — damped-trend forecast of an entity\'s metric with an 80% interval, its basis signals, history and cost; 5 requests / 5 min; too little history 422 `insufficient_history`.',
      'v1: webhooks — POST, GET /api/v1/webhooks, DELETE /api/v1/webhooks/{id}, GET /api/v1/webhooks/{id}/deliveries; events follow.matched and research.completed, signed with X-Clarity-Signature (t=…, v1=HMAC-SHA256 of "t.body"), up to 6 attempts over about an hour.',
      'Developer area: /developer sign-in through the development identity provider, /developer/keys to issue (shown once), list and revoke keys, /developer/webhooks to see deliveries.',
      'Credentials: a presented credential that is not valid (unknown, expired, revoked, signed by another key) is 401 with WWW-Authenticate: Bearer error="invalid_token" on every route, anonymous ones included (send the request again without it); it is checked before the body, so it comes before 400, 413 and 415. A missing credential where one is needed is 401 with WWW-Authenticate: Bearer realm="retail-signal".',
      'Credentials: sending both Authorization and X-API-Key is now 400 invalid_request, "Send one credential" (RFC 6750), instead of using X-API-Key.',
      'A token signed by another key says so ("signed by a different key: was it issued by another data directory?"); npm run service -- token takes --data-dir and says which key it signed with.',
      'x-rate-limit-remaining always counts the caller\'s bucket of the route (ask, research, propose, discover, …), errors included; routes without a limit report the caller\'s ask bucket. A signed-in caller\'s body errors now report the user\'s bucket, not the IP\'s.',
      'A wrong method on a known path is 405 with Allow and {error: "method_not_allowed", message} (was 404, or 415 for PUT with no JSON). A malformed percent-encoded path is 400 invalid_request in the usual shape.',
      'Local service: POST /api/v1/dev/token issues a development token from the embedded service\'s own identity provider (served with --dev-tokens; refused to web pages).',
      'OpenAPI document: every component compiles under JSON Schema 2020-12 strict (no $id); the error schema is ErrorBody (was Error); Confidence is a number in [0, 1]; defaults of optional fields are stated in descriptions (generators no longer make stream or preset required); tags, summaries, descriptions and examples on every operation; every status and header the service sends is documented (WWW-Authenticate on 401, Retry-After on 429, ETag and Cache-Control on 304, x-rate-limit-remaining everywhere); each SSE frame is typed (x-events on text/event-stream and the AskStreamFrame union).',
    ],
  },
  { version: '1.0.0', date: '2026-11-01', notes: ['v1 contract: ask (JSON and SSE), research (synchronous), sources health, source proposals.', 'Extensions: GET /api/v1/signals/{id}, session_id to continue a session, public sessions.'] },
  { version: '2.0.0-preview', date: '2026-11-01', notes: ['Announced: POST /api/v2/research returns 202 queued with status_url, polled at GET /api/v1/research/{id}. v1 stays for a 6-month deprecation window.'] },
];

export function registerDeveloperRoutes(app: FastifyInstance, context: ServiceContext): void {
  route(app, 'jwks', async () => context.idp.jwks());

  /** SECURITY: an API key cannot mint or revoke keys; that takes the user's own JWT. */
  const requireJwtUser = (request: Parameters<typeof context.requireUser>[0], surface: string) => {
    const user = context.requireUser(request, surface);
    if (user.via !== 'jwt') throw new ServiceError('forbidden', `${surface} needs a bearer JWT; an API key cannot manage keys.`);
    return user;
  };

  route(app, 'issueApiKey', async (request, reply) => {
    const user = requireJwtUser(request, 'Issuing an API key');
    const { key, record } = await context.keys.issue(user, context.now());
    return reply.status(201).send({ key, id: record.id, last4: record.last4, created_at: record.createdAt, note: 'Shown once. Store it now; the service keeps only its SHA-256.' });
  });

  route(app, 'listApiKeys', async (request) => {
    const user = context.requireUser(request, 'Listing API keys');
    return { keys: (await context.keys.list(user.id)).map((record) => ({ id: record.id, last4: record.last4, created_at: record.createdAt, revoked_at: record.revokedAt })) };
  });

  route<{ Params: { id: string } }>(app, 'revokeApiKey', async (request) => {
    const user = requireJwtUser(request, 'Revoking an API key');
    const record = await context.keys.revoke(user.id, request.params.id, context.now());
    return { id: record.id, revoked_at: record.revokedAt };
  });

  /**
   * The app's "Get a development token": its own embedded service signs a JWT, no command line.
   * SECURITY: off unless the service was started with --dev-tokens (the supervised embedded
   * service is); the service listens on loopback only; a request from a web page (any Origin
   * header, which browsers send on every cross-origin and same-origin POST) is refused.
   */
  route(app, 'issueDevelopmentToken', async (request, reply) => {
    if (!context.devTokens) throw new ServiceError('not_found', 'This service does not issue development tokens (start it with --dev-tokens).');
    if (request.headers.origin !== undefined) throw new ServiceError('forbidden', 'Development tokens are not issued to web pages.');
    const parsed = DevTokenRequest.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const email = parsed.data.email.trim();
    const ttlS = parsed.data.ttl_s ?? 12 * 3600;
    const issuedAt = context.now();
    const token = await context.idp.issueToken(email, ttlS, issuedAt);
    return reply.status(201).send({
      token,
      token_type: 'Bearer',
      expires_at: new Date((Math.floor(issuedAt / 1000) + ttlS) * 1000).toISOString(),
      subject: userIdFor(email),
      issuer: ISSUER,
    });
  });

  route(app, 'changelogPage', async (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    const deprecations = DEPRECATIONS.map(
      (entry) =>
        `<li><code>${escapeHtml(`${entry.method} ${entry.path}`)}</code>: deprecated since ${escapeHtml(deprecatedAt(entry).toISOString().slice(0, 10))}, removed after ${escapeHtml(sunsetAt(entry).toISOString().slice(0, 10))}. Use <code>${escapeHtml(`${entry.replacement.method} ${entry.replacement.path}`)}</code>: ${escapeHtml(entry.change)}</li>`,
    ).join('');
    return page(
      'Changelog',
      `<h1>Changelog</h1><p class="meta">Also as <a href="${CHANGELOG_JSON_PATH}">JSON Feed</a> and <a href="${CHANGELOG_ATOM_PATH}">Atom</a>.</p><h2 id="deprecations">Deprecated</h2><ul>${deprecations}</ul>${CHANGELOG.map((entry) => `<h2 id="v${escapeHtml(entry.version)}">${escapeHtml(entry.version)} <span class="meta">${escapeHtml(entry.date)}</span></h2><ul>${entry.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`).join('')}`,
      // Feed readers find the machine-readable versions from the page itself.
      `\n<link rel="alternate" type="application/feed+json" title="Retail Signal changelog (JSON Feed)" href="${CHANGELOG_JSON_PATH}">` +
        `\n<link rel="alternate" type="application/atom+xml" title="Retail Signal changelog (Atom)" href="${CHANGELOG_ATOM_PATH}">`,
    );
  });

  route(app, 'changelogJson', async (_request, reply) => reply.type('application/feed+json; charset=utf-8').send(JSON.stringify(changelogJsonFeed(CHANGELOG))));
  route(app, 'changelogAtom', async (_request, reply) => reply.type('application/atom+xml; charset=utf-8').send(changelogAtomFeed(CHANGELOG)));
}
