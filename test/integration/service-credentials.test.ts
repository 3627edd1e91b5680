/**
 * The local service's side of "works with any service" (#14) and of the integrator's document
 * (#20): how credentials are refused, which bucket `x-rate-limit-remaining` counts, 405 and bad
 * paths in the service's error shape, and development tokens for the app's embedded service.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { ask, postJson, startTestService } from '../support/local-service';
import { serviceEntry } from '../support/built-code';
import { seedServiceFolder } from '../support/prepared-service-folder';

let service: RunningService;
let jwt: string;
beforeAll(async () => {
  service = await startTestService({ devTokens: true });
  jwt = await service.idp.issueToken('analyst@example.com');
});
afterAll(() => service.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const examplePath = (url: string): string =>
  url.replace(':id', 'sig_0000000000000000').replace(':slug', 'some-slug').replace(':turn', '1');

describe('a presented but invalid credential', () => {
  it('is 401 invalid_token with WWW-Authenticate on every route, anonymous ones included', async () => {
    expect(service.routes.length).toBeGreaterThan(15);
    for (const route of service.routes) {
      const response = await fetch(`${service.url}${examplePath(route.url)}`, {
        method: route.method,
        headers: { ...bearer('expired.or.forged'), ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { 'content-type': 'application/json' }) },
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: '{}' }),
      });
      expect(response.status, `${route.method} ${route.url}`).toBe(401);
      expect(response.headers.get('www-authenticate'), `${route.method} ${route.url}`).toMatch(/^Bearer realm="retail-signal", error="invalid_token", error_description="[^"]+"$/);
      expect(response.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
      expect(await response.json()).toEqual({ error: 'unauthorized', message: 'The bearer token is not valid for this service.' });
    }
  });

  it('comes before a body error: a stale token with malformed JSON is 401, not 400', async () => {
    const response = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { ...bearer('stale'), 'content-type': 'text/plain' }, body: '{' });
    expect(response.status).toBe(401);
  });

  it('a missing credential where one is needed is 401 with a plain Bearer challenge', async () => {
    const response = await fetch(`${service.url}/api/v1/keys`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="retail-signal"');
  });

  it('both Authorization and X-API-Key is 400 saying to send one', async () => {
    const response = await postJson(`${service.url}/api/v1/ask`, ask('Zudio stores'), { ...bearer(jwt), 'x-api-key': jwt });
    expect(response.status).toBe(400);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_request"');
    expect(((await response.json()) as { message: string }).message).toBe('Send one credential: either `Authorization: Bearer …` or `X-API-Key`, not both.');
  });
});

describe('x-rate-limit-remaining', () => {
  it('counts the signed-in caller\'s bucket of the route, body errors included', async () => {
    const caller = bearer(await service.idp.issueToken('buckets@example.com'));
    for (let i = 0; i < 3; i += 1) expect((await postJson(`${service.url}/api/v1/ask`, ask('Zudio stores'), caller)).headers.get('x-rate-limit-remaining')).toBe(String(29 - i));
    // Bad JSON, 415 and 413 on ask: the user's ask bucket (26 left), not the IP's.
    const badJson = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { ...caller, 'content-type': 'application/json' }, body: '{"messages": [' });
    expect([badJson.status, badJson.headers.get('x-rate-limit-remaining')]).toEqual([400, '27']);
    const notJson = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { ...caller, 'content-type': 'text/plain' }, body: 'hi' });
    expect([notJson.status, notJson.headers.get('x-rate-limit-remaining')]).toEqual([415, '27']);
    const tooBig = await postJson(`${service.url}/api/v1/ask`, ask('x'.repeat(70 * 1024)), caller);
    expect([tooBig.status, tooBig.headers.get('x-rate-limit-remaining')]).toEqual([413, '27']);
    // Research has its own bucket (5 per 5 min), errors included; a route without a limit reports ask's.
    const research = await fetch(`${service.url}/api/v2/research`, { method: 'POST', headers: { ...caller, 'content-type': 'application/json' }, body: '{"topic": ' });
    expect([research.status, research.headers.get('x-rate-limit-remaining')]).toEqual([400, '5']);
    expect((await fetch(`${service.url}/api/v1/sources/health`, { headers: caller })).headers.get('x-rate-limit-remaining')).toBe('27');
  });
});

describe('wrong methods and bad paths', () => {
  it('a wrong method on a known path is 405 with Allow, in the error shape', async () => {
    const response = await fetch(`${service.url}/api/v1/ask`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
    expect(await response.json()).toEqual({ error: 'method_not_allowed', message: 'PUT is not allowed on /api/v1/ask; use POST.' });
    const keys = await fetch(`${service.url}/api/v1/keys`, { method: 'PATCH' });
    expect(keys.headers.get('allow')).toBe('POST, GET, HEAD');
  });

  it('a malformed percent-encoded path is 400 in the error shape, with the rate header', async () => {
    const response = await fetch(`${service.url}/signal/%ff%fe`);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
    expect(await response.json()).toEqual({ error: 'invalid_request', message: 'The path is not valid percent-encoded UTF-8.' });
  });
});

describe('development tokens', () => {
  it('the embedded service issues a token it accepts; web pages are refused', async () => {
    const issued = await postJson(`${service.url}/api/v1/dev/token`, { email: 'settings@example.com' });
    expect(issued.status).toBe(201);
    const body = (await issued.json()) as { token: string; token_type: string; expires_at: string };
    expect(body.token_type).toBe('Bearer');
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now() + 11 * 3600_000);
    expect((await fetch(`${service.url}/api/v1/keys`, { headers: bearer(body.token) })).status).toBe(200);
    const fromPage = await postJson(`${service.url}/api/v1/dev/token`, { email: 'settings@example.com' }, { origin: 'https://example.com' });
    expect(fromPage.status).toBe(403);
    expect(((await postJson(`${service.url}/api/v1/dev/token`, { email: 'nobody' })).status)).toBe(400);
  });

  it('a service started without --dev-tokens does not issue them, and says so', async () => {
    const plain = await startTestService();
    try {
      const response = await postJson(`${plain.url}/api/v1/dev/token`, { email: 'settings@example.com' });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { message: string }).message).toContain('--dev-tokens');
    } finally {
      await plain.close();
    }
  });

  it('the CLI token command signs with the key of --data-dir; another directory\'s service says why it refuses it', async () => {
    const [mine, other] = await Promise.all([mkdtemp(join(tmpdir(), 'clarity-token-')), mkdtemp(join(tmpdir(), 'clarity-token-'))]);
    // Each with the migrated empty database a first start leaves (the suite's copy, no key in it): the key is the folder's own.
    await Promise.all([mine, other].map((dir) => seedServiceFolder(dir, { corpus: false })));
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [...serviceEntry(), 'token', '--user', 'cli@example.com', '--data-dir', mine]);
      expect(stderr).toContain(mine);
      const token = stdout.trim();
      const accepting = await startTestService({ dataDir: mine });
      const refusing = await startTestService({ dataDir: other });
      try {
        expect((await fetch(`${accepting.url}/api/v1/keys`, { headers: bearer(token) })).status).toBe(200);
        const refused = await fetch(`${refusing.url}/api/v1/keys`, { headers: bearer(token) });
        expect(refused.status).toBe(401);
        expect(((await refused.json()) as { message: string }).message).toMatch(/^The bearer token was signed by a different key: was it issued by another data directory\?/);
      } finally {
        await Promise.all([accepting.close(), refusing.close()]);
      }
    } finally {
      await Promise.all([rm(mine, { recursive: true, force: true }), rm(other, { recursive: true, force: true })]);
    }
  });
});
