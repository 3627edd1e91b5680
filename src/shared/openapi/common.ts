/**
 * Building blocks of the OpenAPI document, shared by every area of the endpoint table
 * (`src/shared/endpoints/`). `document.ts` turns each row into an operation with `operation()`,
 * which adds what every route of this service can answer, so no row forgets it:
 *   - 401 with `WWW-Authenticate` (a presented but invalid or expired credential is refused on
 *     every route, anonymous ones included; docs/decisions/design.md §3),
 *   - 400 for two credentials at once, or a malformed percent-encoded path,
 *   - 400/413/415 on routes with a body, 429 with `Retry-After` on routes with a limit, 500,
 *   - `x-rate-limit-remaining` and `x-index-state` on every response.
 */
import { z } from 'zod';
import { interfaceLimitsLine, limitProse, type LimitBucketName } from '../endpoints/limits';

export type JsonObject = Record<string, unknown>;

export const ref = (id: string): JsonObject => ({ $ref: `#/components/schemas/${id}` });

/** A JSON body's schema: a zod schema with a `.meta({ id })` (written as a reference to its component), or plain JSON Schema. */
export type BodySchema = z.ZodType | JsonObject;

/** A zod schema becomes a reference to its component; it must have an id (`.meta({ id })`). */
export function schemaOf(schema: BodySchema): JsonObject {
  if (!(schema instanceof z.ZodType)) return schema;
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('A body schema in the endpoint table needs `.meta({ id })` so the OpenAPI document can name it.');
  return ref(id);
}

/** Where a JSON response keeps its zod schema for the client (a symbol: never written into the document). */
export const BODY_SCHEMA: unique symbol = Symbol('body schema');

/** A JSON response; it remembers its zod schema, so a client's call is typed and read from the table. */
export type JsonResponse<Schema extends BodySchema = BodySchema> = JsonObject & { readonly [BODY_SCHEMA]?: Schema };
const header = (id: string): JsonObject => ({ $ref: `#/components/headers/${id}` });
const response = (id: string, description?: string): JsonObject => ({ $ref: `#/components/responses/${id}`, ...(description ? { description } : {}) });

/** The headers on every response (docs/decisions/design.md §3; the index's state: decision 0040). */
export const RATE_HEADER = { 'x-rate-limit-remaining': header('RateLimitRemaining'), 'x-index-state': header('IndexState') };

/** A JSON response with its example. */
export function jsonResponse<Schema extends BodySchema>(description: string, schema: Schema, example: unknown, headers: JsonObject = {}): JsonResponse<Schema> {
  return {
    description,
    headers: { ...RATE_HEADER, ...headers },
    content: { 'application/json': { schema: schemaOf(schema), example } },
    ...(schema instanceof z.ZodType ? { [BODY_SCHEMA]: schema } : {}),
  };
}

/** A server-rendered HTML page (escaped; the schema is a string). */
export function htmlResponse(description: string, example: string, headers: JsonObject = {}): JsonObject {
  return { description, headers: { ...RATE_HEADER, ...headers }, content: { 'text/html': { schema: { type: 'string' }, example } } };
}

/** What every signed-in developer-area page sends besides the rate header (developer-area.ts `render`). */
export const DEVELOPER_PAGE_HEADERS: JsonObject = {
  'Cache-Control': header('NoStore'),
  'Content-Security-Policy': header('PageCsp'),
  'Referrer-Policy': header('NoReferrer'),
  'Set-Cookie': header('DeveloperSessionCookie'),
};

/** The headers of a deprecated operation (RFC 9745, RFC 8594): on every response it sends. */
export const DEPRECATION_HEADERS: JsonObject = { Deprecation: header('Deprecation'), Sunset: header('Sunset'), Link: header('DeprecationLink') };

export const pathParameter = (name: string, description: string, schema: JsonObject, example: unknown): JsonObject => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
  example,
});

/** Who may call: anyone (a credential is optional), a signed-in caller, or a caller with a JWT. */
export type Access = 'anyone' | 'signed-in' | 'jwt';
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 413 | 415 | 422 | 429 | 500 | 503;

export const SECURITY: Record<Access, JsonObject[]> = {
  anyone: [{}, { bearer: [] }, { apiKey: [] }],
  'signed-in': [{ bearer: [] }, { apiKey: [] }],
  jwt: [{ bearer: [] }],
};

const UNAUTHORIZED_TEXT: Record<Access, string> = {
  anyone:
    '`unauthorized`: a credential was presented but is not valid (unknown, expired, revoked, or signed by another key). ' +
    'Anonymous callers are allowed here: send the request again without the credential, and renew it.',
  'signed-in': '`unauthorized`: no credential, or one that is not valid (unknown, expired, revoked, or signed by another key).',
  jwt: '`unauthorized`: no bearer JWT, or one that is not valid (expired, or signed by another key).',
};

export interface OperationSpec {
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  access: Access;
  /** The route's rate limit, if it has one (its bucket is what `x-rate-limit-remaining` counts). */
  limit?: LimitBucketName;
  parameters?: JsonObject[];
  /** A JSON body. */
  requestBody?: { schema: BodySchema; example: unknown; description?: string; required?: boolean };
  /** A body that is not JSON (the developer area's form posts), as OpenAPI writes it; its 413/415 go in `errors`. */
  formBody?: JsonObject;
  /** Success (and 304) responses. */
  responses: Record<string, JsonObject>;
  /** Error statuses this operation answers besides the ones added for every route. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** Extra fields (`x-…`). */
  extensions?: JsonObject;
  /** Deprecated: `deprecated: true`, and the Deprecation, Sunset and Link headers on every response. */
  deprecated?: boolean;
}

/** An operation with every status and header the service can send on it. */
export function operation(spec: OperationSpec): JsonObject {
  const hasPathParameters = (spec.parameters ?? []).some((parameter) => parameter.in === 'path');
  const bucket = spec.limit
    ? `Rate limit: the ${limitProse(spec.limit)}, which \`x-rate-limit-remaining\` counts down.`
    : 'No rate limit of its own: `x-rate-limit-remaining` reports the caller\'s ask bucket.';
  const errors: Partial<Record<ErrorStatus, JsonObject>> = {
    400: response(
      'BadRequest',
      '`invalid_request`: ' +
        [
          spec.errors?.[400],
          spec.requestBody ? 'Malformed JSON or an invalid field (the message names it).' : undefined,
          hasPathParameters ? 'A malformed percent-encoded path.' : undefined,
          'Both `Authorization` and `X-API-Key` sent: send one credential.',
        ]
          .filter(Boolean)
          .join(' '),
    ),
    401: response('Unauthorized', UNAUTHORIZED_TEXT[spec.access]),
  };
  for (const [status, description] of Object.entries(spec.errors ?? {}) as Array<[string, string]>) {
    if (status !== '400') errors[Number(status) as ErrorStatus] = response(ERROR_RESPONSE_NAMES[Number(status) as ErrorStatus], description);
  }
  if (spec.requestBody) {
    errors[413] ??= response('PayloadTooLarge');
    errors[415] ??= response('UnsupportedMediaType');
  }
  if (spec.limit) errors[429] ??= response('RateLimited');
  // A request to this path with a method it does not have (never this operation's own).
  errors[405] ??= response('MethodNotAllowed');
  errors[500] ??= response('Internal');
  const responses: Record<string, JsonObject> = { ...spec.responses, ...Object.fromEntries(Object.entries(errors).sort(([a], [b]) => Number(a) - Number(b))) };
  if (spec.deprecated) {
    // Each response, the shared error ones included, is written out here with the headers added.
    const shared = errorResponses();
    for (const [status, value] of Object.entries(responses)) {
      const name = typeof value.$ref === 'string' ? value.$ref.split('/').pop()! : null;
      const resolved = name ? { ...shared[name], ...(value.description ? { description: value.description } : {}) } : value;
      responses[status] = { ...resolved, headers: { ...(resolved.headers as JsonObject), ...DEPRECATION_HEADERS } };
      delete responses[status].$ref;
    }
  }
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: `${spec.description}\n\n${bucket}`,
    security: SECURITY[spec.access],
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody
      ? {
          requestBody: {
            required: spec.requestBody.required ?? true,
            ...(spec.requestBody.description ? { description: spec.requestBody.description } : {}),
            content: { 'application/json': { schema: schemaOf(spec.requestBody.schema), example: spec.requestBody.example } },
          },
        }
      : {}),
    ...(spec.formBody ? { requestBody: spec.formBody } : {}),
    responses,
    ...(spec.deprecated ? { deprecated: true } : {}),
    ...spec.extensions,
  };
}

export const ERROR_RESPONSE_NAMES: Record<ErrorStatus, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableContent',
  429: 'RateLimited',
  500: 'Internal',
  503: 'Unavailable',
};

const errorExample = (error: string, message: string): JsonObject => ({ error, message });

/** One reusable response per error status, each with the headers the service sends on it. */
export function errorResponses(): Record<string, JsonObject> {
  const errorResponse = (status: ErrorStatus, description: string, example: JsonObject, headers: JsonObject = {}): [string, JsonObject] => [
    ERROR_RESPONSE_NAMES[status],
    { description, headers: { ...RATE_HEADER, ...headers }, content: { 'application/json': { schema: ref('ErrorBody'), example } } },
  ];
  return Object.fromEntries([
    errorResponse(400, '`invalid_request`.', errorExample('invalid_request', 'Invalid field `messages`: Too small: expected array to have >=1 items.')),
    errorResponse(
      401,
      '`unauthorized`. `WWW-Authenticate` says why: `error="invalid_token"` for a presented credential that is not valid.',
      errorExample('unauthorized', 'The bearer token has expired. Get a new one.'),
      { 'WWW-Authenticate': header('WwwAuthenticate') },
    ),
    errorResponse(403, '`forbidden`.', errorExample('forbidden', 'Issuing an API key needs a bearer JWT; an API key cannot manage keys.')),
    errorResponse(404, '`not_found`.', errorExample('not_found', 'No signal sig_0000000000000000.')),
    errorResponse(
      405,
      '`method_not_allowed`: this path does not take the method used (not this operation\'s own method). `Allow` lists the ones it takes (RFC 9110 §15.5.6).',
      errorExample('method_not_allowed', 'PUT is not allowed on /api/v1/ask; use POST.'),
      { Allow: header('Allow') },
    ),
    errorResponse(413, '`payload_too_large`: the body is over 64 KB.', errorExample('payload_too_large', 'Request body is over 64 KB.')),
    errorResponse(415, '`unsupported_media_type`: send `Content-Type: application/json`.', errorExample('unsupported_media_type', 'Send the body as JSON with `Content-Type: application/json`.')),
    errorResponse(422, 'The request is well-formed but cannot be served (the message says why).', errorExample('unprocessable', 'Too little history to forecast this metric.')),
    errorResponse(429, '`rate_limited`: wait `Retry-After` seconds.', errorExample('rate_limited', 'Rate limit reached: 30 requests per window. Retry in 42 s.'), {
      'Retry-After': header('RetryAfter'),
    }),
    errorResponse(500, '`internal`.', errorExample('internal', 'The service hit an internal error.')),
    errorResponse(503, '`unavailable`: try again later.', errorExample('unavailable', 'The service is unavailable.')),
  ]);
}

export const HEADERS: Record<string, JsonObject> = {
  RateLimitRemaining: {
    description:
      `Requests left in the caller's bucket for this route's limit (${interfaceLimitsLine()}; the extensions' buckets on their routes). ` +
      'Routes without a limit of their own report the caller\'s ask bucket. The caller is the authenticated user, ' +
      'or the IP address for anonymous callers and for a credential that was refused.',
    schema: { type: 'integer', minimum: 0 },
    example: 29,
  },
  IndexState: {
    description:
      '`ready` once the service\'s search index holds every signal; `warming` while it takes them in after a start. ' +
      'Meanwhile an ask is answered from the database\'s full-text search (cited and verified, ranked differently), ' +
      'and other routes that read signals answer once the index is ready.',
    schema: { type: 'string', enum: ['warming', 'ready', 'failed'] },
    example: 'ready',
  },
  RetryAfter: { description: 'Whole seconds until the window resets.', schema: { type: 'integer', minimum: 1 }, example: 42 },
  WwwAuthenticate: {
    description:
      'RFC 6750 challenge: `Bearer realm="retail-signal"` when a credential is needed, ' +
      '`Bearer realm="retail-signal", error="invalid_token", error_description="…"` when the one presented is not valid.',
    schema: { type: 'string' },
    example: 'Bearer realm="retail-signal", error="invalid_token", error_description="The bearer token has expired."',
  },
  ETag: { description: 'Validator of the snapshot\'s data; send it back as `If-None-Match`.', schema: { type: 'string' }, example: '"4f1c2a9be07d3c55a1b2"' },
  CacheControl: { description: 'The snapshot may be cached for 60 seconds.', schema: { type: 'string' }, example: 'max-age=60' },
  Allow: { description: 'The methods this path takes (HEAD wherever GET is).', schema: { type: 'string' }, example: 'POST' },
  Deprecation: {
    description: 'RFC 9745: this operation is deprecated, since the date given as an RFC 9651 Date (`@` and seconds since the epoch): the day its replacement was announced on the changelog.',
    schema: { type: 'string', pattern: '^@-?[0-9]{1,15}$' },
    example: '@1793491200',
  },
  Sunset: {
    description: 'RFC 8594: the operation may stop answering after this HTTP-date, six months after the deprecation (the interface\'s deprecation window).',
    schema: { type: 'string' },
    example: 'Sat, 01 May 2027 00:00:00 GMT',
  },
  DeprecationLink: {
    description: 'RFC 8288 link, relation `deprecation` (RFC 9745 §3): the changelog that says what replaces the operation. Relative to the request URL.',
    schema: { type: 'string' },
    example: '</developer/changelog>; rel="deprecation"; type="text/html"',
  },
  NoStore: { description: 'Developer-area pages (they may show a key once, or a session\'s data) are never stored.', schema: { type: 'string', const: 'no-store' }, example: 'no-store' },
  PageCsp: {
    description: 'The developer area\'s pages run no script, cannot be framed, and post forms only to this origin.',
    schema: { type: 'string' },
    example: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  },
  NoReferrer: { description: 'Links out of the developer area send no referrer.', schema: { type: 'string', const: 'no-referrer' }, example: 'no-referrer' },
  DeveloperSessionCookie: {
    description: 'The developer-area session (`HttpOnly; SameSite=Strict`, path `/developer`); an empty one with `Max-Age=0` on sign-out.',
    schema: { type: 'string' },
    example: 'rs_dev_session=ZGV2LXNlc3Npb24tZXhhbXBsZQ; Path=/developer; HttpOnly; SameSite=Strict; Max-Age=28800',
  },
};
