import type { FastifyServerOptions } from 'fastify';

/**
 * No route declares a Fastify schema (bodies and queries are checked with zod against the
 * endpoint table): Fastify's default compilers are never used, and requiring them (Ajv and
 * fast-json-stringify, at Fastify() itself) was a tenth of the main thread before the service
 * listened (decision 0040, start at scale round 6). A route that declares one fails the start, saying so.
 */
export const NO_SCHEMA_COMPILERS = { buildValidator: noSchemaCompiler, buildSerializer: noSchemaCompiler } as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
function noSchemaCompiler(): never {
  throw new Error('A route declares a Fastify schema, but this service checks requests with zod and loads no schema compiler (server.ts NO_SCHEMA_COMPILERS).');
}
