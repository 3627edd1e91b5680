/**
 * The browser host refuses any page, asset or WebSocket request without the per-launch token,
 * or with a foreign Origin or Host (DNS rebinding), and serves the bridge to the right page.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { startBrowserHost, type RunningBrowserHost } from '../../src/main/browser-host/browser-host';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';

let web: RunningBrowserHost;
let dir: string;
let host: BridgeHost;
let launch: Awaited<ReturnType<typeof get>>;
let session: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clarity-web-'));
  await mkdir(join(dir, 'renderer/assets'), { recursive: true });
  await writeFile(join(dir, 'renderer/index.html'), '<!doctype html><title>Clarity</title>');
  await writeFile(join(dir, 'renderer/assets/app.js'), 'console.log(1)');
  await writeFile(join(dir, 'secret.txt'), 'outside the renderer');
  const settings = await SettingsStore.open(join(dir, 'data'));
  const credentials = new CredentialStore({ keychain: null, detail: 'test' }, () => 'bearer');
  host = await createBridgeHost({ settings, conversations: await ConversationStore.open(join(dir, 'data')), library: await LibraryStore.open(join(dir, 'data')), dataDir: join(dir, 'data'), credentials, localService: null });
  web = await startBrowserHost({ host, rendererDir: join(dir, 'renderer') });
  // The launch link is good once: trade it here, as the browser would, and keep the session.
  launch = await get(`/?token=${web.token}`);
  session = /clarity_session=([^;]+)/.exec(String(launch.headers['set-cookie']))?.[1] ?? '';
});
afterAll(async () => {
  await web.close();
  await rm(dir, { recursive: true, force: true });
});

/** A raw request, so the Host header can be forged (fetch will not). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: web.port, path, headers: { host: `127.0.0.1:${web.port}`, ...headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const cookie = `clarity_session=${'x'}`;

function connect(headers: Record<string, string>): Promise<{ opened: boolean; socket: WebSocket }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${web.port}/bridge`, { headers });
    socket.once('open', () => resolve({ opened: true, socket }));
    socket.once('error', () => resolve({ opened: false, socket }));
  });
}

describe('browser host access control', () => {
  it('listens on loopback only', () => {
    const address = web.server.address();
    expect(typeof address === 'object' && address?.address).toBe('127.0.0.1');
  });

  it('refuses the page without the token, and with a wrong one', async () => {
    expect((await get('/')).status).toBe(403);
    expect((await get('/assets/app.js')).status).toBe(403);
    expect((await get('/?token=wrong')).status).toBe(403);
    expect((await get('/', { cookie })).status).toBe(403);
  });

  it('trades the launch token for an HttpOnly, SameSite=Strict cookie and serves the page with a CSP', async () => {
    expect(launch.status).toBe(303);
    expect(launch.headers.location).toBe('/');
    const setCookie = String(launch.headers['set-cookie']);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    const page = await get('/', { cookie: `clarity_session=${session}` });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("object-src 'none'");
  });

  it('the launch token works once, and the session cookie is a different random value', async () => {
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session).not.toBe(web.token);
    const again = await get(`/?token=${web.token}`);
    expect(again.status).toBe(403);
    expect(JSON.parse(again.body)).toEqual({ error: 'forbidden', message: expect.stringContaining('already used') });
    expect(again.headers['set-cookie']).toBeUndefined();
    // The printed token is not a session either.
    expect((await get('/', { cookie: `clarity_session=${web.token}` })).status).toBe(403);
    expect((await connect({ origin: web.origin, cookie: `clarity_session=${web.token}` })).opened).toBe(false);
  });

  it('a malformed percent-encoding is a 400 in the error shape, with the usual headers', async () => {
    for (const path of ['/%E0%A4%A', '/%ff%fe', '/assets/%']) {
      const response = await get(path, { cookie: `clarity_session=${session}` });
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toContain('application/json');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(JSON.parse(response.body)).toEqual({ error: 'invalid_request', message: expect.stringContaining('percent-encoding') });
    }
  });

  it('refuses a foreign Host header even with the cookie (DNS rebinding)', async () => {
    expect((await get('/', { cookie: `clarity_session=${session}`, host: `evil.example:${web.port}` })).status).toBe(403);
  });

  it('never serves files outside the renderer build', async () => {
    const response = await get('/../secret.txt', { cookie: `clarity_session=${session}` });
    expect(response.body).not.toContain('outside the renderer');
    const encoded = await get('/%2e%2e/secret.txt', { cookie: `clarity_session=${session}` });
    expect(encoded.body).not.toContain('outside the renderer');
  });

  it('refuses WebSockets without the cookie, from a foreign Origin, or to a foreign Host', async () => {
    const good = { origin: web.origin, cookie: `clarity_session=${session}` };
    expect((await connect({ origin: web.origin })).opened).toBe(false);
    expect((await connect({ ...good, origin: 'http://evil.example' })).opened).toBe(false);
    expect((await connect({ ...good, host: `evil.example:${web.port}` })).opened).toBe(false);
    const { opened, socket } = await connect(good);
    expect(opened).toBe(true);
    socket.close();
  });

  it('answers bridge calls over an accepted socket and refuses unknown methods', async () => {
    const { socket } = await connect({ origin: web.origin, cookie: `clarity_session=${session}` });
    const call = (frame: object): Promise<{ result: { ok: boolean; value?: unknown; error?: { code: string } } }> =>
      new Promise((resolve) => {
        socket.once('message', (data) => resolve(JSON.parse(data.toString())));
        socket.send(JSON.stringify(frame));
      });
    expect((await call({ t: 'invoke', id: 1, method: 'settings.get' })).result).toEqual({ ok: true, value: { service: { mode: 'local' }, credentialPresentation: 'bearer', trustedHosts: [], display: { timeZone: 'ist', costCurrency: 'usd', inrPerUsd: null } } });
    expect((await call({ t: 'invoke', id: 2, method: 'fs.readFile', args: '/etc/passwd' })).result.error?.code).toBe('unknown_method');
    expect((await call({ t: 'invoke', id: 3, method: 'service.set', args: { mode: 'remote', baseUrl: 'javascript:alert(1)' } })).result.error?.code).toBe('invalid_argument');
    expect(host.pushListenerCount).toBe(1);
    socket.close();
    await expect.poll(() => host.pushListenerCount).toBe(0);
  });
});
