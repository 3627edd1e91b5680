/**
 * Managing the feed's sources from main (source-admin.ts) against the real local service over
 * HTTP, started by the real supervisor: the app becomes the embedded service's administrator with
 * its one-time secret, and nobody else can; the fixture web plays the outside world. On a remote
 * service the controls follow the service's answer to the analyst's credential.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { SourceAdmin } from '../../src/main/services/sources/source-admin';
import type { Credential } from '../../src/main/services/service-client/api-client';
import type { FixtureWeb } from '../support/fixture-web';
import { startSupervisedService, type SupervisedService } from '../support/supervised-service';
import { pollUntil } from '../support/wait-for';

let supervisor: LocalServiceSupervisor;
let url: string;
let web: FixtureWeb;
let service: SupervisedService | undefined;

beforeAll(async () => {
  // The folder begins with the migrated database a first start leaves (the suite's copy): these tests are about sources.
  service = await startSupervisedService('clarity-source-admin-', ['--no-sample', '--allow-private-sources'], { corpus: false });
  ({ supervisor, url, web } = service);
}, 200_000);

afterAll(async () => {
  await service?.close();
});

const claims = (token: string): Record<string, unknown> => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
const localAdmin = (): SourceAdmin =>
  new SourceAdmin({ service: () => ({ mode: 'local', baseUrl: url }), localAdminToken: () => supervisor.adminToken, userCredential: async () => null });
const remoteAs = (credential: Credential | null): SourceAdmin =>
  new SourceAdmin({ service: () => ({ mode: 'remote', baseUrl: url }), localAdminToken: () => null, userCredential: async () => credential });

const until = <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => pollUntil(read, done, { timeout: timeoutMs, interval: 200 });

describe('the administrator right on the embedded service', () => {
  it('the supervisor holds an admin token the service accepts on its sources surface', async () => {
    const token = supervisor.adminToken;
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(claims(token!).role).toBe('admin');
    const response = await fetch(`${url}/api/v1/sources`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
  });

  it('another local process cannot become administrator: the dev-token route gives no admin role, and the secret read from the environment is already spent', async () => {
    // The loopback dev-token route any local process can call: an ordinary user, refused.
    const devToken = (await (await fetch(`${url}/api/v1/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'intruder@example.com' }) })).json()) as { token: string };
    expect(claims(devToken.token).role).toBeUndefined();
    expect((await fetch(`${url}/api/v1/sources`, { headers: { authorization: `Bearer ${devToken.token}` } })).status).toBe(403);
    // A process of the same user can read the child's environment; the secret there works once only.
    const environ = await readFile(`/proc/${supervisor.pid}/environ`, 'utf8');
    const secret = /(?:^|\0)CLARITY_ADMIN_SECRET=([^\0]+)/.exec(environ)?.[1];
    expect(secret).toBeTruthy();
    const replay = await fetch(`${url}/api/v1/dev/admin-token`, { method: 'POST', headers: { 'x-clarity-admin-secret': secret!, 'content-type': 'application/json' }, body: '{}' });
    expect(replay.status).toBe(403);
    const guessed = await fetch(`${url}/api/v1/dev/admin-token`, { method: 'POST', headers: { 'x-clarity-admin-secret': 'not-the-secret', 'content-type': 'application/json' }, body: '{}' });
    expect(guessed.status).toBe(403);
    // A web page cannot ask either.
    const fromPage = await fetch(`${url}/api/v1/dev/admin-token`, { method: 'POST', headers: { 'x-clarity-admin-secret': secret!, origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(fromPage.status).toBe(403);
  });
});

describe('sources managed from main', () => {
  it('previews a feed, adds it, and reads the facts behind its health and its fetch history', async () => {
    const admin = localAdmin();
    const first = await admin.overview();
    expect(first.ok && first.value.access).toBe('admin');
    expect(first.ok && first.value.sources).toEqual([]);

    const preview = await admin.preview({ url: `${web.url}/rss.xml`, kind: 'rss', name: '', cadenceS: 900 });
    expect(preview.ok).toBe(true);
    if (!preview.ok) return;
    expect(preview.value.items.map((item) => item.title)).toContain('Zepto raises ₹3,200 crore in fresh funding to expand dark stores');
    // A blank name becomes the feed's own title (the host only for a feed without one, source-hosts);
    // nothing was added by the preview.
    expect(preview.value.source.name).toBe('Retail Desk');
    const still = await admin.overview();
    expect(still.ok && still.value.sources).toEqual([]);

    const added = await admin.add({ url: `${web.url}/rss.xml`, kind: 'rss', name: 'Retail Wire', cadenceS: 900 });
    expect(added.ok).toBe(true);
    if (!added.ok) return;
    expect(added.value.source).toMatchObject({ name: 'Retail Wire', kind: 'rss', cadenceS: 900, paused: false });
    const id = added.value.source.id;

    const fetched = await until(
      () => admin.overview(),
      (result) => result.ok && (result.value.sources[0]?.itemsTotal ?? 0) > 0,
    );
    expect(fetched.ok).toBe(true);
    if (!fetched.ok) return;
    const source = fetched.value.sources[0]!;
    expect(source).toMatchObject({ id, health: 'healthy', consecutiveFailures: 0, lastError: null });
    expect(source.itemsTotal).toBeGreaterThanOrEqual(4);
    expect(source.lastFetchAt).not.toBeNull();
    expect(source.lastSuccessAt).not.toBeNull();
    expect(source.nextFetchAt).not.toBeNull();
    expect(fetched.value.healthRule).toMatch(/healthy/);

    const history = await admin.history(id);
    expect(history.ok && history.value.history[0]).toMatchObject({ ok: true, status: 200 });

    // Edit, pause (no next fetch while paused), resume.
    const renamed = await admin.update(id, { name: 'Retail Wire (India)', cadenceS: 3_600 });
    expect(renamed.ok && renamed.value).toMatchObject({ name: 'Retail Wire (India)', cadenceS: 3_600 });
    const paused = await admin.update(id, { paused: true });
    expect(paused.ok && paused.value).toMatchObject({ paused: true, nextFetchAt: null });
    const resumed = await admin.update(id, { paused: false });
    expect(resumed.ok && resumed.value.paused).toBe(false);

    const removed = await admin.remove(id);
    expect(removed).toEqual({ ok: true, value: { removed: true } });
    const after = await admin.overview();
    expect(after.ok && after.value.sources).toEqual([]);
    const gone = await admin.remove(id);
    expect(!gone.ok && gone.error.status).toBe(404);
  }, 60_000);

  it('says why an address gives no items (422), and adds nothing', async () => {
    const admin = localAdmin();
    const preview = await admin.preview({ url: `${web.url}/html-as-feed.xml`, kind: 'rss', name: 'Not a feed', cadenceS: 900 });
    expect(preview.ok).toBe(false);
    if (preview.ok) return;
    expect(preview.error.status).toBe(422);
    expect(preview.error.message).toMatch(/gave no items/);
    const missing = await admin.add({ url: `${web.url}/404.xml`, kind: 'rss', name: 'Missing', cadenceS: 900 });
    expect(!missing.ok && missing.error.status).toBe(422);
    expect(!missing.ok && missing.error.message).toMatch(/404/);
    const overview = await admin.overview();
    expect(overview.ok && overview.value.sources).toEqual([]);
  }, 30_000);

  it('lists proposals; accepting one makes it a fetched source, rejecting one records the reason', async () => {
    const admin = localAdmin();
    const propose = async (body: Record<string, unknown>): Promise<string> => {
      const response = await fetch(`${url}/api/v1/sources/propose`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status).toBe(202);
      return ((await response.json()) as { proposal_id: string }).proposal_id;
    };
    const atomId = await propose({ url: `${web.url}/atom.xml`, name: 'Quick Commerce Daily', kind: 'atom', rationale: 'Covers dark stores' });
    const spamId = await propose({ url: 'https://casino.example/feed', name: 'Casino news' });
    const overview = await admin.overview();
    expect(overview.ok).toBe(true);
    if (!overview.ok) return;
    expect(overview.value.proposals?.map((proposal) => proposal.id).sort()).toEqual([atomId, spamId].sort());
    expect(overview.value.proposals?.every((proposal) => proposal.status === 'pending')).toBe(true);

    const accepted = await admin.accept(atomId, { kind: 'atom' });
    expect(accepted.ok && accepted.value.proposal).toMatchObject({ status: 'accepted' });
    expect(accepted.ok && accepted.value.source).toMatchObject({ name: 'Quick Commerce Daily', kind: 'atom' });
    const rejected = await admin.reject(spamId, 'Not about retail in India.');
    expect(rejected.ok && rejected.value).toMatchObject({ status: 'rejected', reason: 'Not about retail in India.' });

    const after = await admin.overview();
    expect(after.ok && after.value.sources.map((source) => source.name)).toEqual(['Quick Commerce Daily']);
    if (accepted.ok) await admin.remove(accepted.value.source.id);
  }, 30_000);
});

describe('on a remote service the service decides who is administrator', () => {
  it('an ordinary credential or none gets no controls, with the reason; an administrator’s does', async () => {
    const anonymous = await remoteAs(null).overview();
    expect(anonymous.ok && anonymous.value).toMatchObject({ access: 'not_admin', mode: 'remote', sources: [] });
    expect(anonymous.ok && anonymous.value.accessReason).toMatch(/credential is missing or was not accepted/);

    const devToken = (await (await fetch(`${url}/api/v1/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'analyst@example.com' }) })).json()) as { token: string };
    const ordinary = await remoteAs({ secret: devToken.token, presentAs: 'bearer' }).overview();
    expect(ordinary.ok && ordinary.value.access).toBe('not_admin');
    expect(ordinary.ok && ordinary.value.accessReason).toMatch(/not an administrator's/);

    const administrator = await remoteAs({ secret: supervisor.adminToken!, presentAs: 'bearer' }).overview();
    expect(administrator.ok && administrator.value.access).toBe('admin');
  });

  it('a service without the sources surface says so instead of showing controls', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_request, response) => response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found","message":"No route."}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    try {
      const admin = new SourceAdmin({ service: () => ({ mode: 'remote', baseUrl: `http://127.0.0.1:${address.port}` }), localAdminToken: () => null, userCredential: async () => null });
      const overview = await admin.overview();
      expect(overview.ok && overview.value).toMatchObject({ access: 'unsupported', sources: [] });
    } finally {
      server.close();
    }
  });
});
