/**
 * What one row of the endpoint table says (`table.ts`): method, path, who may call, its limit
 * bucket, request and response schemas, error statuses, summary and the documentation prose.
 * The service registers its routes from these rows (`src/service/endpoint-routes.ts`), the
 * OpenAPI document is generated from them (`../openapi/document.ts`), and the app's client types
 * its calls from them (`src/main/services/service-client/api-client.ts`).
 */
import { z } from 'zod';
import { BODY_SCHEMA, type JsonObject, type JsonResponse, type OperationSpec } from '../openapi/common';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface EndpointSpec extends Omit<OperationSpec, 'operationId'> {
  method: HttpMethod;
  /** OpenAPI form: `/api/v1/signals/{id}`. */
  path: `/${string}`;
  /** Registered only on a service started with this option (documented either way). */
  onlyWith?: 'adminBootstrapSecret';
}

/** One row; the table's key is its `operationId`. */
export function endpoint<Spec extends EndpointSpec>(spec: Spec): Spec {
  return spec;
}

export interface EndpointArea<Endpoints extends Record<string, EndpointSpec>> {
  /** The OpenAPI tags this area's rows use. */
  tags: Array<{ name: string; description: string }>;
  endpoints: Endpoints;
  /** Components that are not zod schemas with an id (those are added for you). */
  components?: { schemas?: Record<string, JsonObject>; examples?: Record<string, JsonObject> };
}

/** The rows of one area (ask, research, sources, …) with their tags. */
export function area<Endpoints extends Record<string, EndpointSpec>>(value: EndpointArea<Endpoints>): EndpointArea<Endpoints> {
  return value;
}

type SuccessStatus = '200' | '201' | '202';

/** The parsed JSON body a call to this endpoint answers with (its 2xx JSON responses), or unknown. */
export type ResponseOf<Spec extends EndpointSpec> = {
  [Status in keyof Spec['responses'] & SuccessStatus]: Spec['responses'][Status] extends JsonResponse<infer Schema> ? (Schema extends z.ZodType ? z.output<Schema> : unknown) : unknown;
}[keyof Spec['responses'] & SuccessStatus];

/** The JSON body a call sends (what the request schema accepts), or `undefined` for none. */
export type RequestOf<Spec extends EndpointSpec> = Spec['requestBody'] extends { schema: infer Schema } ? (Schema extends z.ZodType ? z.input<Schema> : JsonObject) : undefined;

/**
 * The zod schema of the row's 2xx JSON answer (what `ResponseOf` types), or null when it has
 * none: the one for `status` when the row declares it (a dry run's 200 and a creation's 201
 * differ), else the first declared.
 */
export function responseSchema(spec: EndpointSpec, status?: number): z.ZodType | null {
  const own = status === undefined ? undefined : (spec.responses[String(status)] as JsonResponse | undefined)?.[BODY_SCHEMA];
  if (own instanceof z.ZodType) return own;
  for (const status of ['200', '201', '202'] as const) {
    const schema = (spec.responses[status] as JsonResponse | undefined)?.[BODY_SCHEMA];
    if (schema instanceof z.ZodType) return schema;
  }
  return null;
}

/** The row's path with its parameters filled in, each percent-encoded: `/api/v1/signals/sig_…`. */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${path} needs the path parameter ${name}.`);
    return encodeURIComponent(value);
  });
}

/** `/api/v1/signals/{id}` → `/api/v1/signals/:id` (Fastify's form). */
export function routePattern(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** The path parameters' names: `{id}` and `{deliveryId}` → `['id', 'deliveryId']`. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
}
