/**
 * Discover, follows, predict, webhooks and the signed-in developer pages (docs/decisions/design.md §3;
 * docs/service-extensions.md). Schemas come from surface-schemas.ts (imported here so their
 * ids are registered as components).
 */
import '../surface-schemas';
import { Delivery, DeliveryList, DiscoverPage, EntityList, FeedPage, Follow, FollowList, FollowRequest, Forecast, ForecastableList, PredictRequest, Removed, Webhook, WebhookList, WebhookRequest } from '../surface-schemas';
import { area, endpoint } from './define';
import { DEVELOPER_PAGE_HEADERS, htmlResponse, jsonResponse, pathParameter, RATE_HEADER, type JsonObject } from '../openapi/common';

const ITEM = {
  id: 'sig_3f9a0c1d2e4b5a67',
  slug: 'zudio-opens-14-stores-across-pune-3f9a0c',
  title: 'Zudio opens 14 stores in Pune',
  summary: 'Zudio opened 14 new stores in Pune, taking its Maharashtra count to 96.',
  published_at: '2026-10-28T09:30:00.000Z',
  source: { id: 'src_trent_newsroom', name: 'Trent newsroom' },
  entities: { retailers: ['Zudio'], segments: ['fashion'], cities: ['Pune'], states: ['Maharashtra'] },
  metrics: { stores_opened: 14, store_count_state: 96 },
  url: 'https://trent.example/2026/10/28/zudio-opens-14-stores-in-pune-3f9a0c',
  type: 'store_opening',
};
const FOLLOW = { id: 'fol_8c1d2e3f4a5b6c7d', target: { type: 'entity', value: 'Zudio' }, created_at: '2026-11-01T10:00:00.000Z' };
const WEBHOOK = { id: 'whk_0a1b2c3d4e5f6a7b', url: 'https://hooks.example.com/retail', events: ['follow.matched', 'research.completed'], created_at: '2026-11-01T10:00:00.000Z' };
const DELETED = (id: string) => jsonResponse('Removed.', Removed, { id, deleted: true });
const TIERS_TEXT = 'The tier is the JWT claim `tier` (`free` when absent or unknown; an API key carries the tier of the JWT that issued it).';

const query = (name: string, description: string, schema: JsonObject, example?: unknown): JsonObject => ({ name, in: 'query', required: false, description, schema, ...(example === undefined ? {} : { example }) });

/** A developer-area form post: CSRF token plus fields, `application/x-www-form-urlencoded`. */
const formBody = (fields: Record<string, JsonObject>, example: Record<string, string> = {}): JsonObject => ({
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      schema: { type: 'object', properties: { csrf: { type: 'string', description: 'The token from the form the page rendered.' }, ...fields }, required: ['csrf'] },
      example: { csrf: 'b3JtLWNzcmYtdG9rZW4tZXhhbXBsZQ', ...example },
    },
  },
});
const redirect = (to: string): JsonObject => ({ description: `303 See Other: ${to}.`, headers: { ...RATE_HEADER, Location: { schema: { type: 'string' }, example: to } } });
/** A redirect that also replaces the developer session cookie (sign-in, sign-out). */
const redirectWithCookie = (to: string): JsonObject => ({ ...redirect(to), headers: { ...(redirect(to).headers as JsonObject), 'Set-Cookie': DEVELOPER_PAGE_HEADERS['Set-Cookie'] } });
/** A developer-area page: `no-store`, its CSP, no referrer, and the session cookie when there is a session. */
const devPage = (description: string, example: string): JsonObject => htmlResponse(description, example, DEVELOPER_PAGE_HEADERS);
const CSRF_403 = '`forbidden`: no developer session, or the form\'s CSRF token does not match it.';
/** A form post's body errors: `operation()` adds them only for JSON bodies. */
const FORM_ERRORS = {
  413: '`payload_too_large`: a form body over 64 KB.',
  415: '`unsupported_media_type`: the body is not `application/x-www-form-urlencoded`.',
} as const;
const page = (title: string): string => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Retail Signal</title></head><body><h1>${title}</h1></body></html>`;

export const surfacesArea = area({
  tags: [
    { name: 'Discover', description: 'Search and browse signals; resolve signal ids to their pages.' },
    { name: 'Follow', description: 'Follow entities, segments, cities, sources and queries; read the feed of new matches. Limited per tier.' },
    { name: 'Predict', description: 'Forecasts of an entity\'s metric with an interval, from a stated method.' },
    { name: 'Webhooks', description: 'Signed deliveries of follow matches and finished research runs.' },
    { name: 'Developer area', description: 'Signed-in pages: sign-in, API keys, webhook deliveries.' },
  ],
  endpoints: {
    discover: endpoint({
      method: 'GET',
      path: '/api/v1/discover',
      tag: 'Discover',
      summary: 'Search and browse signals',
      description:
        'With `q`, relevance order; without it, newest first. `id` resolves `sig_` ids to slugs (a signal\'s page is `/signal/{slug}`). ' +
        'Filters combine; the cursor is opaque and valid with the same filters. Anonymous callers are allowed.',
      access: 'anyone',
      limit: 'discover',
      parameters: [
        query('q', 'Words to search for.', { type: 'string', maxLength: 500 }, 'quick commerce Bengaluru'),
        { ...query('id', 'Signal ids: repeat the parameter or separate with commas (at most 100).', { type: 'array', items: { type: 'string', pattern: '^sig_[0-9a-f]{16}$' } }), style: 'form', explode: true },
        query('entity', 'A retailer (or its parent), segment, city or state the signal names.', { type: 'string' }, 'Zudio'),
        query('segment', 'A segment.', { type: 'string' }, 'fashion'),
        query('city', 'A city or a state.', { type: 'string' }, 'Pune'),
        query('source', 'A source id or name.', { type: 'string' }),
        query('kind', 'A signal type (`store_opening`, `results`, …) or a source kind (`exchange_filing`, …).', { type: 'string' }),
        query('since', 'Published at or after (ISO 8601).', { type: 'string' }, '2026-10-01'),
        query('until', 'Published at or before (ISO 8601).', { type: 'string' }),
        query('limit', 'Items per page, 1–100. Defaults to 20.', { type: 'integer', minimum: 1, maximum: 100 }, 20),
        query('cursor', 'The `next_cursor` of the previous page.', { type: 'string' }),
      ],
      responses: { '200': jsonResponse('A page of signals.', DiscoverPage, { items: [ITEM], next_cursor: 'eyJvZmZzZXQiOjIwfQ' }) },
      errors: { 400: 'An invalid parameter (the message names it).' },
    }),
    listEntities: endpoint({
      method: 'GET',
      path: '/api/v1/entities',
      tag: 'Discover',
      summary: 'List the entities the service knows (extension)',
      description:
        'Retailers, brands, organisations and people: the built-in gazetteer (`origin: "gazetteer"`) and those learned from fetched items (`origin: "learned"`), ' +
        'with the aliases items gave and the segments and cities they are named with. `q` matches a name or alias (a typo too); without it, the most-named come first. ' +
        'Anonymous callers are allowed; counted in the Discover bucket.',
      access: 'anyone',
      limit: 'discover',
      parameters: [
        query('q', 'A name or alias, or part of one.', { type: 'string', maxLength: 200 }, 'Vishal Mega Mart'),
        query('limit', 'Items, 1–100. Defaults to 20.', { type: 'integer', minimum: 1, maximum: 100 }, 20),
      ],
      responses: {
        '200': jsonResponse('The matching entities.', EntityList, {
          items: [{ name: 'Vishal Mega Mart', kind: 'retailer', aliases: ['VMM'], origin: 'learned', signals: 4, segments: ['grocery'], cities: ['Lucknow'] }],
        }),
      },
      errors: { 400: 'An invalid parameter (the message names it).' },
    }),
    follow: endpoint({
      method: 'POST',
      path: '/api/v1/follow',
      tag: 'Follow',
      summary: 'Follow a target',
      description:
        `Follows an entity (retailer, segment, city or state), segment, city (or state), source (id or name) or query (every word must appear). The value is canonicalised; following the same target again answers 200 with the existing follow. ${TIERS_TEXT} ` +
        'Follow counts: free 10, pro 100, team 1,000.',
      access: 'signed-in',
      limit: 'follow',
      requestBody: { schema: FollowRequest, example: { target: { type: 'entity', value: 'Zudio' } } },
      responses: { '201': jsonResponse('Followed.', Follow, FOLLOW), '200': jsonResponse('Already followed: the existing follow.', Follow, FOLLOW) },
      errors: { 400: 'A target nothing in this service could match (the message says so).', 403: '`limit_reached`: the tier\'s follow count is used up.' },
    }),
    listFollows: endpoint({
      method: 'GET',
      path: '/api/v1/follow',
      tag: 'Follow',
      summary: 'List your follows',
      description: `Your follows, your tier and how many follows it allows. ${TIERS_TEXT}`,
      access: 'signed-in',
      limit: 'follow',
      responses: { '200': jsonResponse('Your follows.', FollowList, { follows: [FOLLOW], tier: 'free', limit: 10 }) },
    }),
    unfollow: endpoint({
      method: 'DELETE',
      path: '/api/v1/follow/{id}',
      tag: 'Follow',
      summary: 'Stop following',
      description: 'Removes one of your follows.',
      access: 'signed-in',
      limit: 'follow',
      parameters: [pathParameter('id', 'A follow id.', { type: 'string' }, FOLLOW.id)],
      responses: { '200': DELETED(FOLLOW.id) },
      errors: { 404: '`not_found`: no follow of yours with this id.' },
    }),
    followFeed: endpoint({
      method: 'GET',
      path: '/api/v1/follow/feed',
      tag: 'Follow',
      summary: 'New signals matching your follows',
      description:
        'Live signals that arrived after a follow was made and match any of yours, oldest first, each with the follows it matched; at most 50 a read (`has_more` says to read again). ' +
        `Pass \`next_cursor\` back to get only newer items. A new signal is in the feed the moment it arrives. ${TIERS_TEXT}`,
      access: 'signed-in',
      limit: 'feed',
      parameters: [query('cursor', 'The `next_cursor` of the previous read; omit it for everything kept.', { type: 'string' }, '1042')],
      responses: { '200': jsonResponse('New items.', FeedPage, { items: [{ signal: ITEM, matched: [FOLLOW.id], arrived_at: '2026-11-01T10:05:00.000Z' }], next_cursor: '1043', has_more: false }) },
      errors: { 400: 'A cursor that is not one this feed gave.' },
    }),
    predict: endpoint({
      method: 'POST',
      path: '/api/v1/predict',
      tag: 'Predict',
      summary: 'Forecast an entity\'s metric',
      description:
        'Authenticated and paid (`cost_usd`). Method: damped-trend exponential smoothing (Holt, φ = 0.9) on the mean value of the metric the entity\'s signals reported per Indian fiscal quarter; ' +
        'the 80% interval is from the one-step residuals, widened for the horizon and by Student\'s t. Horizon: `next_quarter`, `next_year` (four quarters after the current one) or a fiscal quarter such as `Q3 FY27`, at most 8 quarters ahead.',
      access: 'signed-in',
      limit: 'predict',
      requestBody: { schema: PredictRequest, example: { entity: 'DMart', metric: 'revenue_cr', horizon: 'next_quarter' } },
      responses: {
        '200': jsonResponse('The forecast.', Forecast, {
          forecast: { value: 9120.5, unit: 'INR crore', period: 'Q4 FY27', interval: { low: 6210.2, high: 12030.8, level: 0.8 } },
          method: 'Damped-trend exponential smoothing (Holt, damping φ=0.9, α=0.3, β=0.1) on the mean revenue_cr …',
          basis: ['sig_3f9a0c1d2e4b5a67'],
          history: [{ period: 'Q3 FY27', value: 8890, signal: 'sig_3f9a0c1d2e4b5a67' }],
          confidence: 0.42,
          cost_usd: 0.00234,
        }),
      },
      errors: { 400: 'A horizon that is not after the current quarter or more than 8 quarters ahead.', 422: '`insufficient_history`: fewer than 4 fiscal quarters with values for this entity and metric.' },
    }),
    forecastable: endpoint({
      method: 'GET',
      path: '/api/v1/predict/metrics',
      tag: 'Predict',
      summary: 'Which of an entity\'s metrics can be forecast (extension)',
      description:
        'Every metric the signals about the entity carry, each judged by its own history: a forecast is offered when it has values in at least 5 fiscal quarters spanning at least 270 days, ' +
        'the values are not all the same, and forecasting its last (up to 3) quarters from the ones before missed by at most half its typical value. ' +
        'Otherwise `reason` says which test failed, with the observations and the days they span. A learned entity is accepted by name or alias. Anonymous callers are allowed; counted in the Discover bucket.',
      access: 'anyone',
      limit: 'discover',
      parameters: [{ ...query('entity', 'A retailer, brand, segment or city, by name or alias.', { type: 'string', minLength: 1, maxLength: 120 }, 'DMart'), required: true }],
      responses: {
        '200': jsonResponse('The entity\'s metrics, judged.', ForecastableList, {
          entity: 'DMart',
          rule: 'A forecast is offered when the metric has values in at least 5 fiscal quarters spanning at least 270 days, …',
          metrics: [
            { metric: 'store_count_national', unit: 'count', observations: 29, quarters: 7, span_days: 476, first_at: '2025-07-10T09:30:00.000Z', last_at: '2026-10-29T09:30:00.000Z', offered: true, reason: null, backtest_error: 0.01 },
            { metric: 'stores_closed', unit: 'count', observations: 1, quarters: 1, span_days: 0, first_at: '2026-03-02T09:30:00.000Z', last_at: '2026-03-02T09:30:00.000Z', offered: false, reason: 'not_enough_history', backtest_error: null },
          ],
        }),
      },
      errors: { 400: 'No `entity`, or one longer than 120 characters.' },
    }),
    createWebhook: endpoint({
      method: 'POST',
      path: '/api/v1/webhooks',
      tag: 'Webhooks',
      summary: 'Register a webhook',
      description:
        'Events are POSTed as JSON `{id, type, created_at, data}` with `X-Clarity-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body" keyed with the secret>`, `X-Clarity-Event` and `X-Clarity-Delivery`. ' +
        'A non-2xx answer, a redirect or no answer within 10 s is retried after 2, 4, 8, 16 and 32 minutes (at most 6 attempts). Only http(s) URLs; private, loopback and reserved addresses are refused ' +
        'unless the service runs with `--allow-private-webhooks`. The secret is in this answer only.',
      access: 'signed-in',
      limit: 'webhooks',
      requestBody: { schema: WebhookRequest, example: { url: WEBHOOK.url, events: WEBHOOK.events } },
      responses: { '201': jsonResponse('Registered, with its secret (shown once).', Webhook, { ...WEBHOOK, secret: 'whsec_Q2xhcml0eVdlYmhvb2tTZWNyZXQxMjM0' }) },
      errors: { 400: 'A URL that is not http(s), carries credentials or points at a private address.' },
    }),
    listWebhooks: endpoint({
      method: 'GET',
      path: '/api/v1/webhooks',
      tag: 'Webhooks',
      summary: 'List your webhooks',
      description: 'Your webhooks, without their secrets.',
      access: 'signed-in',
      limit: 'webhooks',
      responses: { '200': jsonResponse('Your webhooks.', WebhookList, { webhooks: [WEBHOOK] }) },
    }),
    deleteWebhook: endpoint({
      method: 'DELETE',
      path: '/api/v1/webhooks/{id}',
      tag: 'Webhooks',
      summary: 'Remove a webhook',
      description: 'Removes the webhook; its pending retries stop.',
      access: 'signed-in',
      limit: 'webhooks',
      parameters: [pathParameter('id', 'A webhook id.', { type: 'string' }, WEBHOOK.id)],
      responses: { '200': DELETED(WEBHOOK.id) },
      errors: { 404: '`not_found`: no webhook of yours with this id.' },
    }),
    rotateWebhookSecret: endpoint({
      method: 'POST',
      path: '/api/v1/webhooks/{id}/rotate-secret',
      tag: 'Webhooks',
      summary: 'Rotate a webhook\'s signing secret',
      description: 'A new secret, in this answer only; the old one stops signing at once (retries of earlier deliveries are signed with the new one).',
      access: 'signed-in',
      limit: 'webhooks',
      parameters: [pathParameter('id', 'A webhook id.', { type: 'string' }, WEBHOOK.id)],
      requestBody: { schema: { type: 'object' }, example: {}, required: false, description: 'Empty JSON object.' },
      responses: {
        '200': jsonResponse('The webhook with its new secret (shown once).', Webhook, {
          ...WEBHOOK,
          secret: 'whsec_N3wS3cr3tAbCdEfGhIjKlMnOpQrStUv',
          note: 'The new secret is shown once; the old one no longer signs deliveries.',
        }),
      },
      errors: { 404: '`not_found`: no webhook of yours with this id.' },
    }),
    redeliverWebhookDelivery: endpoint({
      method: 'POST',
      path: '/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      tag: 'Webhooks',
      summary: 'Send a delivery again',
      description: 'Sends a logged delivery again now, as a new delivery (its own id and attempts, `redelivery_of` naming the first) with the same body, so the event id in it is the same. Retried like any delivery.',
      access: 'signed-in',
      limit: 'webhooks',
      parameters: [
        pathParameter('id', 'A webhook id.', { type: 'string' }, WEBHOOK.id),
        pathParameter('deliveryId', 'One of its deliveries.', { type: 'string' }, 'dlv_5e6f7a8b9c0d1e2f'),
      ],
      requestBody: { schema: { type: 'object' }, example: {}, required: false, description: 'Empty JSON object.' },
      responses: {
        '202': jsonResponse('The new delivery, pending (watch it in the deliveries list).', Delivery, {
          id: 'dlv_9a8b7c6d5e4f3a2b',
          event: 'research.completed',
          created_at: '2026-11-01T11:00:00.000Z',
          state: 'pending',
          attempts: [],
          next_attempt_at: '2026-11-01T11:00:00.000Z',
          redelivery_of: 'dlv_5e6f7a8b9c0d1e2f',
        }),
      },
      errors: { 404: '`not_found`: no webhook of yours with this id, or no such delivery of it.' },
    }),
    webhookDeliveries: endpoint({
      method: 'GET',
      path: '/api/v1/webhooks/{id}/deliveries',
      tag: 'Webhooks',
      summary: 'A webhook\'s deliveries',
      description: 'Deliveries, newest first (the last 100), each with every attempt.',
      access: 'signed-in',
      limit: 'webhooks',
      parameters: [pathParameter('id', 'A webhook id.', { type: 'string' }, WEBHOOK.id)],
      responses: {
        '200': jsonResponse('Deliveries.', DeliveryList, {
          deliveries: [
            {
              id: 'dlv_5e6f7a8b9c0d1e2f',
              event: 'research.completed',
              created_at: '2026-11-01T10:00:00.000Z',
              state: 'delivered',
              attempts: [
                { attempt: 1, at: '2026-11-01T10:00:00.000Z', status: 500, ok: false, error: 'HTTP 500' },
                { attempt: 2, at: '2026-11-01T10:02:00.000Z', status: 204, ok: true, error: null },
              ],
              next_attempt_at: null,
            },
          ],
        }),
      },
      errors: { 404: '`not_found`: no webhook of yours with this id.' },
    }),
    developerHome: endpoint({
      method: 'GET',
      path: '/developer',
      tag: 'Developer area',
      summary: 'Developer area home',
      description: 'The development identity provider\'s sign-in form (email and tier), or links once signed in. Sets an `HttpOnly; SameSite=Strict` session cookie scoped to `/developer`.',
      access: 'anyone',
      responses: { '200': devPage('HTML page.', page('Developer area')) },
    }),
    developerSignIn: endpoint({
      method: 'POST',
      path: '/developer/sign-in',
      tag: 'Developer area',
      summary: 'Sign in',
      description: 'Form post from `/developer` with its CSRF token. Replaces the session (a new cookie).',
      access: 'anyone',
      formBody: formBody({ email: { type: 'string' }, tier: { type: 'string', enum: ['free', 'pro', 'team'] } }, { email: 'analyst@example.com', tier: 'free' }),
      responses: { '303': redirectWithCookie('/developer/keys') },
      errors: { 400: 'An email that is not one.', 403: CSRF_403, ...FORM_ERRORS },
    }),
    developerSignOut: endpoint({
      method: 'POST',
      path: '/developer/sign-out',
      tag: 'Developer area',
      summary: 'Sign out',
      description: 'Ends the session.',
      access: 'anyone',
      formBody: formBody({}),
      responses: { '303': redirectWithCookie('/developer') },
      errors: { 403: CSRF_403, ...FORM_ERRORS },
    }),
    keysPage: endpoint({
      method: 'GET',
      path: '/developer/keys',
      tag: 'Developer area',
      summary: 'API keys page',
      description: 'How to issue and present API keys; your keys (last four characters) when signed in or called with a credential, with issue and revoke forms when signed in.',
      access: 'anyone',
      responses: { '200': devPage('HTML page.', page('API keys')) },
    }),
    keysPageIssue: endpoint({
      method: 'POST',
      path: '/developer/keys',
      tag: 'Developer area',
      summary: 'Issue a key from the page',
      description: 'The answer page shows the new key once (`Cache-Control: no-store`).',
      access: 'anyone',
      formBody: formBody({}),
      responses: { '200': devPage('The new key, shown once.', page('Your new API key')), '303': redirect('/developer (when signed out)') },
      errors: { 403: CSRF_403, ...FORM_ERRORS },
    }),
    keysPageRevoke: endpoint({
      method: 'POST',
      path: '/developer/keys/{id}/revoke',
      tag: 'Developer area',
      summary: 'Revoke a key from the page',
      description: 'Revokes one of your keys.',
      access: 'anyone',
      parameters: [pathParameter('id', 'An API key id.', { type: 'string' }, 'key_0f1e2d3c4b5a6978')],
      formBody: formBody({}),
      responses: { '303': redirect('/developer/keys') },
      errors: { 403: CSRF_403, 404: '`not_found`: no key of yours with this id.', ...FORM_ERRORS },
    }),
    webhooksPage: endpoint({
      method: 'GET',
      path: '/developer/webhooks',
      tag: 'Developer area',
      summary: 'Webhook deliveries page',
      description: 'Your webhooks and every delivery attempt (signed in; otherwise 303 to `/developer`).',
      access: 'anyone',
      responses: { '200': devPage('HTML page.', page('Webhooks')), '303': redirect('/developer') },
    }),
  },
});
