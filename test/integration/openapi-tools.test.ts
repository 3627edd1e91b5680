/**
 * The served OpenAPI document through the tools integrators use (#20), none of them ours:
 * - Ajv 2020 in strict mode compiles every component schema and validates every example;
 * - openapi-typescript generates a client's types, compiled with TypeScript under `strict`;
 * - Spectral's `spectral:oas` ruleset reports no error and no warning;
 * - Prism, as a validating proxy (`prism proxy --errors`) in front of the real service, sees a
 *   traffic script over every operation with zero violations, and refuses what the document forbids.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Spectral, Document } from '@stoplight/spectral-core';
import { Yaml } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { spectralRuleset } from '../support/spectral-ruleset';
import { runTraffic, type TrafficResult } from '../support/openapi-traffic';

/** The one-time secret a supervising app would start the service with (the admin-token route). */
const ADMIN_SECRET = 'openapi-tools-one-time-secret';
import { ask, postJson, startTestService } from '../support/local-service';

type JsonObject = Record<string, unknown>;
let service: RunningService;
let yamlText: string;
let document: { paths: Record<string, Record<string, JsonObject>>; components: { schemas: Record<string, JsonObject> } };
let workDir: string;

beforeAll(async () => {
  service = await startTestService({ devTokens: true, adminBootstrapSecret: ADMIN_SECRET, research: { durationMs: 50, queueMs: 20 } });
  yamlText = await (await fetch(`${service.url}/.well-known/openapi.yaml`)).text();
  document = parseYaml(yamlText) as typeof document;
  workDir = await mkdtemp(join(tmpdir(), 'clarity-openapi-'));
});
afterAll(async () => {
  await service.close();
  await rm(workDir, { recursive: true, force: true });
});

const BASE = 'https://retail-signal.example/openapi.json';
function strictAjv(): InstanceType<typeof Ajv2020> {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  // The document itself is not a schema: its top-level fields are declared as annotations so the
  // components can be reached by JSON pointer; each component is then compiled in strict mode.
  ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'servers', 'tags', 'security', 'paths', 'webhooks', 'components', 'externalDocs']);
  ajv.addSchema(document as object, BASE, undefined, false);
  return ajv;
}

describe('Ajv 2020, strict mode', () => {
  it('compiles every component schema', () => {
    const ajv = strictAjv();
    const names = Object.keys(document.components.schemas);
    expect(names.length).toBeGreaterThan(40);
    const failures: string[] = [];
    for (const name of names) {
      try {
        ajv.compile({ $ref: `${BASE}#/components/schemas/${name}` });
      } catch (error) {
        failures.push(`${name}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('every request and response body has an example, and each JSON example matches its schema', () => {
    const ajv = strictAjv();
    const missing: string[] = [];
    let checked = 0;
    const walk = (node: unknown, at: string): void => {
      if (!node || typeof node !== 'object') return;
      const content = (node as { content?: Record<string, { schema?: JsonObject; example?: unknown }> }).content;
      for (const [mediaType, media] of Object.entries(content ?? {})) {
        if (media.example === undefined) missing.push(`${at} ${mediaType}`);
        else if (mediaType === 'application/json' && media.schema) {
          const validate = ajv.compile(resolveLocalRefs(media.schema));
          expect(validate(media.example), `${at}: ${ajv.errorsText(validate.errors)}`).toBe(true);
          checked += 1;
        }
      }
      for (const [key, value] of Object.entries(node)) if (key !== 'content') walk(value, `${at}/${key}`);
    };
    walk(document.paths, '#/paths');
    walk((document.components as JsonObject).responses, '#/components/responses');
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(25);
  });
});

/** `#/components/…` → the same pointer in the document added to Ajv. */
function resolveLocalRefs(schema: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${BASE}#/`)) as JsonObject;
}

describe('openapi-typescript', () => {
  it('generates types that compile under strict and type each stream frame', async () => {
    const types = astToString(await openapiTS(yamlText));
    await writeFile(join(workDir, 'api.d.ts'), types);
    await writeFile(join(workDir, 'client.ts'), await readFile(join(process.cwd(), 'test/support/openapi-client-usage.ts.txt'), 'utf8'));
    const program = ts.createProgram([join(workDir, 'client.ts')], {
      strict: true,
      noEmit: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: [],
      lib: ['lib.es2022.d.ts'],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  });
});

describe('Spectral, spectral:oas', () => {
  it('reports no error and no warning', async () => {
    const spectral = new Spectral();
    spectral.setRuleset(spectralRuleset(oas));
    const results = await spectral.run(new Document(yamlText, Yaml, 'openapi.yaml'));
    const serious = results.filter((result) => result.severity <= 1).map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`);
    expect(serious).toEqual([]);
  });
});

describe('Prism as a validating proxy', () => {
  let prism: ChildProcess | null = null;
  let upstream: Server;
  let proxyUrl = '';
  let traffic: TrafficResult;

  beforeAll(async () => {
    await writeFile(join(workDir, 'openapi.yaml'), yamlText);
    // In front of the real service, a pass-through that lies about one signal, to prove Prism
    // validates response bodies (a document whose schemas it cannot compile validates nothing).
    upstream = createServer((incoming, outgoing) => {
      if (incoming.url === `/api/v1/signals/${LYING_SIGNAL}`) {
        outgoing.writeHead(200, { 'content-type': 'application/json', 'x-rate-limit-remaining': '30' });
        outgoing.end(JSON.stringify({ signal: { id: 'not-a-signal-id' }, source: { health: 'splendid' } }));
        return;
      }
      const forwarded = httpRequest(`${service.url}${incoming.url}`, { method: incoming.method, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    const upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const port = await freePort();
    prism = spawn(process.execPath, [PRISM, 'proxy', join(workDir, 'openapi.yaml'), upstreamUrl, '--errors', '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        log += chunk.toString();
        if (log.includes('Prism is listening')) resolve();
      };
      prism!.stdout!.on('data', onData);
      prism!.stderr!.on('data', onData);
      prism!.once('exit', (code) => reject(new Error(`Prism exited (${code}):\n${log}`)));
    });
    proxyUrl = `http://127.0.0.1:${port}`;
    traffic = await runTraffic(proxyUrl, service, ADMIN_SECRET);
  }, 60_000);
  afterAll(async () => {
    prism?.kill();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('sees every operation of the document answered with zero violations', () => {
    expect(traffic.violations).toEqual([]);
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.filter((operation) => !traffic.operations.has(operation)).sort()).toEqual([...traffic.direct.keys()].sort());
    // The redirect-only form posts (sent around Prism, which follows redirects) answered their documented 303.
    expect(Object.fromEntries(traffic.direct)).toEqual({ 'POST /developer/sign-in': 303, 'POST /developer/keys/{id}/revoke': 303, 'POST /developer/sign-out': 303 });
    // Errors went through it too, each with its documented status.
    for (const status of [200, 201, 202, 304, 400, 401, 403, 404, 413, 429]) expect(traffic.statuses.has(status), `status ${status}`).toBe(true);
  });

  it('refuses a request body the document forbids, without forwarding it', async () => {
    const response = await postJson(`${proxyUrl}/api/v1/ask`, { messages: [] });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(await response.json())).toContain('messages');
    // So is a body in a media type the operation does not take.
    const text = await fetch(`${proxyUrl}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(ask('Zudio')) });
    expect(text.status).toBe(422);
    expect(JSON.stringify(await text.json())).toContain('Supported content types: application/json');
  });

  it('refuses a response body the document forbids', async () => {
    const response = await fetch(`${proxyUrl}/api/v1/signals/${LYING_SIGNAL}`);
    expect(response.status).toBe(500);
    const problem = (await response.json()) as { type: string; validation: Array<{ location: string[] }> };
    expect(problem.type).toContain('VIOLATIONS');
    expect(problem.validation.map((violation) => violation.location.join('.'))).toEqual(expect.arrayContaining([expect.stringContaining('signal')]));
    // The same route, through the same proxy, with the real service behind it, passes.
    const id = ((await (await postJson(`${proxyUrl}/api/v1/ask`, ask('Zudio stores in Pune'))).json()) as { citations: string[] }).citations[0]!;
    expect((await fetch(`${proxyUrl}/api/v1/signals/${id}`)).status).toBe(200);
  });
});

const LYING_SIGNAL = 'sig_1111111111111111';
const PRISM = join(process.cwd(), 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}
