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
          responses: { '200': { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } }, ...standardErrors(404) },
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
