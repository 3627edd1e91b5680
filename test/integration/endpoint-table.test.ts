/**
 * The endpoint table (src/shared/endpoints/table.ts) is the only list of the service's HTTP
 * endpoints: the service registers exactly its rows, the served OpenAPI document has exactly
 * its rows (with each row's id, summary, limit bucket, request schema and error statuses), a
 * route registered outside it stops the service from starting, and the app (src/main) writes no
 * service path of its own: it calls rows.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
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

/** Every TypeScript file under `dir`. */
async function sourcesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourcesUnder(path)));
    else if (/\.tsx?$/.test(entry.name)) files.push(path);
  }
  return files;
}

/** A string literal that starts with a service path: `'/api/v1/…'`, `"/api/v2/…"`, `` `/api/v1/${…}` ``. */
const HAND_WRITTEN_PATH = /['"`]\/api\/v\d+\//;

describe('the app writes no service path outside the table', () => {
  it('no string in src/main starts with /api/vN/: callers name a row (`call(id, …)` or `ENDPOINTS[id].path`)', async () => {
    const found: string[] = [];
    for (const file of await sourcesUnder('src/main')) {
      (await readFile(file, 'utf8')).split('\n').forEach((line, index) => {
        const code = line.trim();
        if (code.startsWith('*') || code.startsWith('//') || code.startsWith('/*')) return;
        if (HAND_WRITTEN_PATH.test(code)) found.push(`${file}:${index + 1}: ${code}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('the check finds a hand-written path', () => {
    expect(HAND_WRITTEN_PATH.test("client.request('GET', `/api/v1/follow/${id}`)")).toBe(true);
    expect(HAND_WRITTEN_PATH.test("fetch(new URL('/api/v2/research', url))")).toBe(true);
    expect(HAND_WRITTEN_PATH.test("client.call('unfollow', { params: { id } }, 'an answer')")).toBe(false);
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

  it('tolerates fields it does not know, reads each status with its own schema, and names what a lying service sent', async () => {
    // Another service, not ours: a plain server answering a few rows its own way.
    const answers: Record<string, [number, unknown]> = {
      'GET /api/v1/follow': [200, { follows: [], tier: 'pro', limit: 100, region: 'in-west' }],
      'GET /api/v1/follow/feed': [200, { items: 'none today', next_cursor: 7 }],
      'POST /api/v1/sources': [201, { source: { id: 'src_a', name: 'A', kind: 'sitemap', url: 'https://a.example/feed', cadence_s: 600, health: 'resting' }, preview: [] }],
    };
    const other = createServer((request, response) => {
      const [status, body] = answers[`${request.method} ${new URL(request.url ?? '/', 'http://x').pathname}`] ?? [404, { error: 'not_found', message: 'No such route.' }];
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const client = new RetailSignalClient({ baseUrl: `http://127.0.0.1:${(other.address() as AddressInfo).port}` });
      const follows = await client.call('listFollows', {}, 'the follows');
      expect(follows.ok && follows.value.limit).toBe(100);
      // The 201 is read as a created source (the 200 would be a dry run's preview); unknown words still read.
      const created = await client.call('addFeedSource', { body: { url: 'https://a.example/feed', kind: 'rss' } }, 'the new source');
      expect(created.ok && 'id' in created.value.source && created.value.source.id).toBe('src_a');
      const feed = await client.call('followFeed', {}, 'a feed');
      expect(feed).toEqual({ ok: false, error: { code: 'bad_response', message: 'The service sent a feed the app cannot read.' } });
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
