/**
 * The OpenAPI 3.1 document, generated from the zod schemas of `service-schemas.ts`, so the
 * published contract, the client and the local service cannot drift. JSON Schema 2020-12
 * (what zod emits) is the schema dialect of OpenAPI 3.1.
 *
 * The operations are the rows of the endpoint table (`../endpoints/table.ts`), each written out
 * by `operation()` from `common.ts`; nothing here lists paths.
 */
import { z } from 'zod';
import { stringify } from 'yaml';
// Imported for its side effect too: defining the schemas registers their ids.
import { ConfidenceValue } from '../service-schemas';
import { interfaceLimitsLine, surfaceLimitsLine } from '../endpoints/limits';
import { AREAS, endpointRows } from '../endpoints/table';
import { errorResponses, HEADERS, operation, type JsonObject } from './common';

/**
 * What the interface promises for confidence (docs/decisions/design.md §3): a number in [0, 1]. The client's zod
 * schema accepts more (0–100, low/medium/high) because other services send those; the document
 * publishes what a service must send.
 */
const DOCUMENTED_CONFIDENCE: JsonObject = {
  type: 'number',
  minimum: 0,
  maximum: 1,
  description: 'How well the cited signals support the answer: a number in [0, 1].',
};

/**
 * Every schema with an `id` (see service-schemas.ts) becomes a component, and references
 * between them point at `#/components/schemas/<id>`. Two fixes make them usable by tools:
 * no `$id` (JSON Schema 2020-12 forbids a fragment there, and strict validators refuse it), and
 * an optional property's default is stated in its description instead of a `default` keyword,
 * which generators such as openapi-typescript read as "always present".
 */
function componentSchemas(): Record<string, JsonObject> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
    override: (context) => {
      if (context.zodSchema !== ConfidenceValue) return;
      for (const key of Object.keys(context.jsonSchema)) delete (context.jsonSchema as JsonObject)[key];
      Object.assign(context.jsonSchema, DOCUMENTED_CONFIDENCE);
    },
  }) as { schemas: Record<string, JsonObject> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
    delete schema.id;
    moveDefaultsToDescriptions(schema);
  }
  return schemas;
}

function moveDefaultsToDescriptions(schema: JsonObject): void {
  const properties = schema.properties as Record<string, JsonObject> | undefined;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (!required.has(name) && 'default' in property) {
      const stated = `Defaults to \`${JSON.stringify(property.default)}\`.`;
      const description = typeof property.description === 'string' ? property.description : '';
      if (!description.includes(JSON.stringify(property.default))) property.description = `${description} ${stated}`.trim();
      delete property.default;
    }
    moveDefaultsToDescriptions(property);
  }
  if (schema.items && typeof schema.items === 'object') moveDefaultsToDescriptions(schema.items as JsonObject);
}

const description = (): string => `Cited answers, research reports and source health for India's retail sector.

**Errors** are \`{error, message}\` (\`ErrorBody\`) with the statuses listed on each operation. A wrong method on a known
path is \`405\` with \`Allow\`; a malformed percent-encoded path is \`400\`.

**Credentials**: a JWT or an API key as \`Authorization: Bearer …\`, or an API key as \`X-API-Key\`. Send one: both at
once is \`400 invalid_request\` (RFC 6750). A presented credential that is not valid (unknown, expired, revoked, signed
by another key) is \`401\` with \`WWW-Authenticate: Bearer error="invalid_token"\` on every route, including those open
to anonymous callers: send the request again without it.

**Limits**: ${interfaceLimitsLine()}; per IP for anonymous callers and per user for signed-in ones.
Extensions: ${surfaceLimitsLine()}. Each operation names its bucket. Every response carries \`x-rate-limit-remaining\`: what is left in the caller's bucket of the route, or of the ask
bucket on routes without a limit. A \`429\` carries \`Retry-After\` in seconds.`.replace(/(?<!\n)\n(?!\n)/g, ' ');

export function buildOpenApiDocument(serverUrl = 'http://127.0.0.1:4318'): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const schemas = componentSchemas();
  const examples: Record<string, JsonObject> = {};
  for (const { id, method, path, onlyWith: _onlyWith, ...spec } of endpointRows()) {
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation({ operationId: id, ...spec }) };
  }
  for (const area of AREAS) {
    Object.assign(schemas, area.components?.schemas);
    Object.assign(examples, area.components?.examples);
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Retail Signal question-answering service',
      version: '1.1.0',
      description: description(),
      contact: { name: 'Retail Signal developer area', url: `${serverUrl}/developer/changelog` },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl, description: 'This service.' }],
    tags: AREAS.flatMap((area) => area.tags).sort((a, b) => a.name.localeCompare(b.name)),
    security: [{}, { bearer: [] }, { apiKey: [] }],
    paths,
    components: {
      schemas,
      responses: usedResponses(paths),
      headers: HEADERS,
      ...(Object.keys(examples).length > 0 ? { examples } : {}),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A JWT from the identity provider, or an API key (`ck_…`).' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key (`ck_…`).' },
      },
    },
  };
}

/** The shared error responses the paths refer to (an unused component is noise to readers and linters). */
function usedResponses(paths: Record<string, JsonObject>): Record<string, JsonObject> {
  const text = JSON.stringify(paths);
  return Object.fromEntries(Object.entries(errorResponses()).filter(([name]) => text.includes(`"#/components/responses/${name}"`)));
}

export function openApiYaml(serverUrl?: string): string {
  return stringify(buildOpenApiDocument(serverUrl), { aliasDuplicateObjects: false });
}
