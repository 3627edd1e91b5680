/**
 * The endpoint table (src/shared/endpoints/table.ts) is the only list of the service's HTTP
 * endpoints: the service registers exactly its rows, the served OpenAPI document has exactly
 * its rows (with each row's id, summary, limit bucket, request schema and error statuses), and a
 * route registered outside it stops the service from starting.
 */
import Fastify from 'fastify';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathParameterNames, routePattern } from '../../src/shared/endpoints/define';
import { endpointRows, tableProblems } from '../../src/shared/endpoints/table';
import { schemaOf, ERROR_RESPONSE_NAMES, type ErrorStatus } from '../../src/shared/openapi/common';
import { guardEndpointTable, route } from '../../src/service/endpoint-routes';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import type { RunningService } from '../../src/service/server';
import { ask, postJson, startTestService } from '../support/local-service';

type Operation = { operationId: string; summary: string; description: string; parameters?: Array<{ name: string; in: string }>; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, unknown> };
const rows = endpointRows();
const key = (method: string, url: string): string => `${method.toUpperCase()} ${url}`;

let full: RunningService;
let plain: RunningService;
let document: { paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  [full, plain] = await Promise.all([startTestService({ devTokens: true, adminBootstrapSecret: 'endpoint-table-secret' }), startTestService()]);
  document = parseYaml(await (await fetch(`${full.url}/.well-known/openapi.yaml`)).text()) as typeof document;
});
afterAll(async () => {
  await Promise.all([full?.close(), plain?.close()]);
});

describe('the endpoint table', () => {
  it('declares each endpoint once: no id in two areas, no method and path twice', () => {
    expect(rows.length).toBeGreaterThan(40);
    expect(tableProblems()).toEqual([]);
  });

  it('documents every path parameter its path has', () => {
    for (const row of rows) {
      const documented = (row.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      expect(documented.sort(), `${row.id}`).toEqual(pathParameterNames(row.path).sort());
    }
  });
});

describe('the service registers exactly the table', () => {
  it('every row, and no other route, with every option on', () => {
    const registered = full.routes.map((entry) => key(entry.method, entry.url)).sort();
    expect(registered).toEqual(rows.map((row) => key(row.method, routePattern(row.path))).sort());
  });

  it('without the admin secret, every row but the ones that need it', () => {
    const registered = plain.routes.map((entry) => key(entry.method, entry.url)).sort();
    expect(registered).toEqual(rows.filter((row) => !row.onlyWith).map((row) => key(row.method, routePattern(row.path))).sort());
  });

  it('refuses at start a route that is not a row, or that disagrees with its row', async () => {
    const app = Fastify();
    guardEndpointTable(app);
    expect(() => app.get('/api/v1/not-in-the-table', async () => ({}))).toThrow(/not a row of the endpoint table/);
    expect(() => app.route({ method: 'POST', url: '/api/v1/signals/:id', config: { endpoint: 'getSignal' }, handler: async () => ({}) })).toThrow(/not a row/);
    expect(() => app.route({ method: 'GET', url: '/api/v1/signal/:id', config: { endpoint: 'getSignal' }, handler: async () => ({}) })).toThrow(/not a row/);
    route(app, 'getSignal', async () => ({ ok: true }));
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/api/v1/signals/sig_0000000000000000' })).json()).toEqual({ ok: true });
    await app.close();
  });
});

describe('the served OpenAPI document is generated from the table', () => {
  it('has exactly the rows, each under its id and summary', () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => `${key(method, path)} ${operation.operationId}`));
    expect(documented.sort()).toEqual(rows.map((row) => `${key(row.method, row.path)} ${row.id}`).sort());
    for (const row of rows) expect(document.paths[row.path]![row.method.toLowerCase()]!.summary).toBe(row.summary);
  });

  it('names each row’s limit bucket, request schema and error statuses', () => {
    for (const row of rows) {
      const operation = document.paths[row.path]![row.method.toLowerCase()]!;
      if (row.limit) expect(operation.description, row.id).toContain(`Rate limit: the ${row.limit} bucket (`);
      else expect(operation.description, row.id).toContain('No rate limit of its own');
      if (row.requestBody) expect(operation.requestBody?.content['application/json']?.schema, row.id).toEqual(schemaOf(row.requestBody.schema));
      for (const status of Object.keys(row.errors ?? {})) {
        expect(operation.responses, `${row.id} ${status}`).toHaveProperty(status);
        expect(ERROR_RESPONSE_NAMES[Number(status) as ErrorStatus], `${row.id} ${status}`).toBeDefined();
      }
    }
  });

  it('states the limits in its description from the same buckets', async () => {
    const text = await (await fetch(`${full.url}/.well-known/openapi.yaml`)).text();
    const info = (parseYaml(text) as { info: { description: string } }).info.description;
    expect(info).toContain('ask 30/60 s, research 5/5 min, propose 3/h');
    expect(info).toContain('discover 60/60 s');
    expect(info).toContain('free 60, pro 600, team 6,000');
  });
});

describe('the app’s client calls a row through one typed request function', () => {
  it('fills the path from the row, sends the body its schema types, and reads the answer with the row’s schema', async () => {
    const client = new RetailSignalClient({ baseUrl: full.url });
    const answer = (await (await postJson(`${full.url}/api/v1/ask`, ask('Zudio stores in Pune'))).json()) as { citations: string[]; session_id: string };
    const lookup = await client.call('getSignal', { params: { id: answer.citations[0]! } }, 'a signal');
    expect(lookup.ok && lookup.value.signal.id).toBe(answer.citations[0]);
    const shared = await client.call('setSessionVisibility', { params: { id: answer.session_id }, body: { public: true } }, 'sharing settings');
    expect(shared.ok && shared.value.public).toBe(true);
    const token = await client.call('issueDevelopmentToken', { body: { email: 'analyst@example.com' }, options: { withoutCredential: true } }, 'a development token');
    expect(token.ok && token.value.token_type).toBe('Bearer');
    // @ts-expect-error: the row's request schema types the body (`email` is required).
    const refused = await client.call('issueDevelopmentToken', { body: { ttl_s: 60 } }, 'a development token');
    expect(!refused.ok && refused.error.code).toBe('invalid_request');
    // A path parameter is encoded, so it cannot reach another route.
    const odd = await client.call('getSignal', { params: { id: '../sources/health' } }, 'a signal');
    expect(!odd.ok && odd.error.status).toBe(400);
  });
});
