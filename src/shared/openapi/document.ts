/**
 * The OpenAPI 3.1 document, generated from the zod schemas of `service-schemas.ts`, so the
 * published contract, the client and the local service cannot drift. JSON Schema 2020-12
 * (what zod emits) is the schema dialect of OpenAPI 3.1.
 */
import { z } from 'zod';
import { stringify } from 'yaml';
// Imported for its side effect too: defining the schemas registers their ids.
import '../service-schemas';

type JsonObject = Record<string, unknown>;

const ref = (id: string): JsonObject => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: JsonObject, description: string): JsonObject => ({
  description,
  headers: { 'x-rate-limit-remaining': { $ref: '#/components/headers/RateLimitRemaining' } },
  content: { 'application/json': { schema } },
});
const errorResponse = (description: string): JsonObject => json(ref('Error'), description);

const html = (description: string): JsonObject => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

const rateLimited: JsonObject = {
  description: 'Rate limit exceeded. Wait `Retry-After` seconds.',
  headers: {
    'x-rate-limit-remaining': { $ref: '#/components/headers/RateLimitRemaining' },
    'Retry-After': { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 1 } },
  },
  content: { 'application/json': { schema: ref('Error') } },
};

const standardErrors = (...statuses: number[]): JsonObject => {
  const all: Record<number, JsonObject> = {
    400: errorResponse('`invalid_request`: malformed JSON or an invalid field; the message names the field.'),
    401: errorResponse('`unauthorized`: missing, bad, expired or revoked credential.'),
    403: errorResponse('`forbidden`.'),
    404: errorResponse('`not_found`.'),
    413: errorResponse('`payload_too_large`: body over 64 KB.'),
    415: errorResponse('`unsupported_media_type`: send `Content-Type: application/json`.'),
    429: rateLimited,
    500: errorResponse('`internal`.'),
    503: errorResponse('`unavailable`.'),
  };
  return Object.fromEntries(statuses.map((status) => [String(status), all[status]]));
};

/**
 * Every schema with an `id` (see service-schemas.ts) becomes a component, and references
 * between them point at `#/components/schemas/<id>`.
 */
function componentSchemas(): JsonObject {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonObject> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.id;
  }
  return schemas;
}

const SSE_DESCRIPTION = [
  'Server-sent events. Frames, in order: `message_start`, `clarity.confidence_updated`,',
  '`content_block_start`, then `content_block_delta` frames interleaved with `clarity.citation_emitted`',
  '(sent before the first delta that carries its `[sig_…]` marker) and further `clarity.confidence_updated`,',
  'then `content_block_stop`, `clarity.research_promotion_available` (when a report would help) and `message_stop`.',
  'A failure mid-stream is an `error` frame, after which the stream ends. Lines starting with `:` are keep-alive comments.',
  'Each frame is `event: <name>` and `data: <JSON>`; payload schemas are the `SseEvent_*` components.',
].join(' ');

export function buildOpenApiDocument(serverUrl = 'http://127.0.0.1:4318'): JsonObject {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Retail Signal question-answering service',
      version: '1.0.0',
      description:
        'Cited answers, research reports and source health for India\'s retail sector. Every response carries ' +
        '`x-rate-limit-remaining`. Errors are `{error, message}`. Limits: ask 30/60 s, research 5/5 min, ' +
        'propose 3/h; per IP for anonymous callers and per user for authenticated ones.',
    },
    servers: [{ url: serverUrl }],
    security: [{}, { bearer: [] }, { apiKey: [] }],
    paths: {
      '/api/v1/ask': {
        post: {
          operationId: 'ask',
          summary: 'Answer a question with citations (JSON, or SSE when `stream` is true).',
          description: 'Anonymous callers allowed. Send earlier user turns in `messages`, or `session_id` to continue a session.',
          requestBody: { required: true, content: { 'application/json': { schema: ref('AskRequest') } } },
          responses: {
            '200': {
              description: 'The answer. JSON when `stream` is false (the default); SSE when true.',
              headers: { 'x-rate-limit-remaining': { $ref: '#/components/headers/RateLimitRemaining' } },
              content: {
                'application/json': { schema: ref('AskResponse') },
                'text/event-stream': { schema: { type: 'string', description: SSE_DESCRIPTION } },
              },
            },
            ...standardErrors(400, 401, 413, 415, 429, 500, 503),
          },
        },
      },
      '/api/v1/research': {
        post: {
          operationId: 'researchV1',
          summary: 'Write a research report on a topic, synchronously (v1). The standard preset takes 30–90 s.',
          description: 'Authenticated callers only. Limit: 5 per 5 minutes per user. A run with too few matching signals fails with 400.',
          security: [{ bearer: [] }, { apiKey: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('ResearchRequest') } } },
          responses: { '200': json(ref('ResearchCompleted'), 'The report is ready at `report_url` (relative to the base URL).'), ...standardErrors(400, 401, 413, 415, 429, 500) },
        },
      },
      '/api/v2/research': {
        post: {
          operationId: 'researchV2',
          summary: 'Queue a research run (v2): answers at once; poll `status_url`.',
          security: [{ bearer: [] }, { apiKey: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('ResearchRequest') } } },
          responses: { '202': json(ref('ResearchQueued'), 'Queued.'), ...standardErrors(400, 401, 413, 415, 429) },
        },
      },
      '/api/v1/research/{id}': {
        get: {
          operationId: 'getResearchRun',
          summary: 'Poll a research run: `queued` → `running` → `completed` (with the v1 fields) or `failed` (with `error`).',
          security: [{ bearer: [] }, { apiKey: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': json(ref('ResearchRun'), 'The run.'), ...standardErrors(401, 404, 429) },
        },
      },
      '/api/v1/research/{id}/report': {
        get: {
          operationId: 'getResearchReport',
          summary: 'The finished report: JSON by default, markdown with `Accept: text/markdown`, HTML with `Accept: text/html`.',
          security: [{ bearer: [] }, { apiKey: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'The report.',
              headers: { 'x-rate-limit-remaining': { $ref: '#/components/headers/RateLimitRemaining' } },
              content: {
                'application/json': { schema: ref('Report') },
                'text/markdown': { schema: { type: 'string' } },
                'text/html': { schema: { type: 'string' } },
              },
            },
            ...standardErrors(401, 404, 429),
          },
        },
      },
      '/api/v1/sources/propose': {
        post: {
          operationId: 'proposeSource',
          summary: 'Propose a new signal source. Limit: 3 per hour.',
          requestBody: { required: true, content: { 'application/json': { schema: ref('SourceProposal') } } },
          responses: { '202': json(ref('SourceProposalReceived'), 'Received.'), ...standardErrors(400, 401, 413, 415, 429) },
        },
      },
      '/api/v1/sessions/{id}/visibility': {
        post: {
          operationId: 'setSessionVisibility',
          summary: 'Make a session of yours public (readable at `/ask/{session_slug}/{turn}`) or private again (extension).',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('SessionVisibilityRequest') } } },
          responses: { '200': json(ref('SessionVisibility'), 'Updated.'), ...standardErrors(400, 401, 404, 415) },
        },
      },
      '/api/v1/keys': {
        post: {
          operationId: 'issueApiKey',
          summary: 'Issue an API key for the authenticated caller. Shown once.',
          security: [{ bearer: [] }, { apiKey: [] }],
          requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } },
          description: 'Needs a bearer JWT: an API key cannot mint keys (403).',
          responses: { '201': json(ref('ApiKeyIssued'), 'Issued.'), ...standardErrors(401, 403, 415) },
        },
        get: {
          operationId: 'listApiKeys',
          summary: 'List your API keys (last four characters only).',
          security: [{ bearer: [] }, { apiKey: [] }],
          responses: { '200': json(ref('ApiKeyList'), 'Your keys.'), ...standardErrors(401) },
        },
      },
      '/api/v1/keys/{id}': {
        delete: {
          operationId: 'revokeApiKey',
          summary: 'Revoke one of your API keys; it is refused with 401 from then on.',
          security: [{ bearer: [] }, { apiKey: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': json(ref('ApiKeyRevoked'), 'Revoked.'), ...standardErrors(401, 403, 404) },
        },
      },
      '/.well-known/jwks.json': {
        get: {
          operationId: 'jwks',
          summary: 'Public keys of the development identity provider (ES256).',
          responses: { '200': json(ref('Jwks'), 'JWKS.') },
        },
      },
      '/ask/{slug}/{turn}': {
        get: {
          operationId: 'sharedAnswerPage',
          summary: 'Server-rendered page of one turn of a public session (404 while the session is private).',
          parameters: [
            { name: 'slug', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'turn', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          ],
          responses: { '200': html('The answer with its sources.'), ...standardErrors(404) },
        },
      },
      '/developer/keys': {
        get: { operationId: 'keysPage', summary: 'How to issue and present API keys; lists yours when called with a credential.', responses: { '200': html('HTML page.') } },
      },
      '/developer/changelog': {
        get: { operationId: 'changelogPage', summary: 'Changes to the interface, including the announced v2.', responses: { '200': html('HTML page.') } },
      },
      '/api/v1/signals/{id}': {
        get: {
          operationId: 'getSignal',
          summary: 'One signal, with its source and the source\'s health now (extension).',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^sig_[0-9a-f]{16}$' } }],
          responses: { '200': json(ref('SignalLookup'), 'The signal.'), ...standardErrors(400, 404, 429) },
        },
      },
      '/api/v1/sources/health': {
        get: {
          operationId: 'getSourcesHealth',
          summary: 'Health snapshot of every signal source. Cacheable for 60 seconds.',
          parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
          responses: {
            '200': {
              ...json(ref('HealthSnapshot'), 'The snapshot.'),
              headers: {
                'x-rate-limit-remaining': { $ref: '#/components/headers/RateLimitRemaining' },
                'Cache-Control': { schema: { type: 'string', const: 'max-age=60' } },
                ETag: { schema: { type: 'string' } },
              },
            },
            '304': { description: 'Not modified since the ETag sent in If-None-Match.' },
            ...standardErrors(429),
          },
        },
      },
      '/signal/{slug}': {
        get: {
          operationId: 'signalPage',
          summary: 'Server-rendered page of one signal.',
          parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': html('HTML page.'), ...standardErrors(404) },
        },
      },
      '/.well-known/openapi.yaml': {
        get: {
          operationId: 'openapi',
          summary: 'This document.',
          responses: { '200': { description: 'OpenAPI 3.1 YAML.', content: { 'application/yaml': { schema: { type: 'string' } } } } },
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      headers: {
        RateLimitRemaining: {
          description: 'Requests left in the current window of the route\'s limit.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A JWT from the identity provider, or an API key (`ck_…`).' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key (`ck_…`).' },
      },
    },
  };
}

export function openApiYaml(serverUrl?: string): string {
  return stringify(buildOpenApiDocument(serverUrl), { aliasDuplicateObjects: false });
}
