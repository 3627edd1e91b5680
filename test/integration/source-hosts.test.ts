/**
 * Issue 47, item 2: intranet sources with consent. The real service started by the real supervisor
 * with `--allow-source-host 127.0.0.1` (and not --allow-private-sources) fetches the fixture web on
 * 127.0.0.1 and still refuses every other private host, a redirect to one included; main asks
 * before a private host the analyst has not allowed, and says a remote service's refusal in words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { privateHostOf } from '../../src/main/services/sources/private-hosts';
import { SourceAdmin } from '../../src/main/services/sources/source-admin';
import type { FixtureWeb } from '../support/fixture-web';
import { startSupervisedService, type SupervisedService } from '../support/supervised-service';

let supervisor: LocalServiceSupervisor;
let url: string;
let web: FixtureWeb;
let service: SupervisedService | undefined;

beforeAll(async () => {
  // The folder begins with the migrated database a first start leaves (the suite's copy): these tests are about sources.
  service = await startSupervisedService('clarity-source-hosts-', ['--no-sample', '--allow-source-host', '127.0.0.1'], { corpus: false });
  ({ supervisor, url, web } = service);
}, 200_000);

afterAll(async () => {
  await service?.close();
});

const port = (): string => web.host.split(':')[1]!;
const local = (allowed: string[]): SourceAdmin =>
  new SourceAdmin({ service: () => ({ mode: 'local', baseUrl: url }), localAdminToken: () => supervisor.adminToken, userCredential: async () => null, allowedHosts: () => allowed });

describe('the service with one allowed private host', () => {
  it('fetches that host', async () => {
    const preview = await local(['127.0.0.1']).preview({ url: `${web.url}/rss.xml`, kind: 'rss', name: '', cadenceS: 900 });
    expect(preview.ok && preview.value.items.length).toBeGreaterThan(0);
  });

  it("names a new feed by its own title when the analyst types no name, by the typed name otherwise, and a titleless listing by its host", async () => {
    const admin = local(['127.0.0.1']);
    const titled = await admin.preview({ url: `${web.url}/open-world.xml`, kind: 'rss', name: '', cadenceS: 900 });
    expect(titled.ok && titled.value.source.name).toBe('Open world desk');
    const typed = await admin.preview({ url: `${web.url}/open-world.xml`, kind: 'rss', name: 'Retail desk', cadenceS: 900 });
    expect(typed.ok && typed.value.source.name).toBe('Retail desk');
    const listing = await admin.preview({ url: `${web.url}/news/`, kind: 'html', name: '', cadenceS: 900 });
    expect(listing.ok && listing.value.source.name).toBe('127.0.0.1');
  });

  it('refuses another private host, and a redirect from the allowed host to another one', async () => {
    const admin = { authorization: `Bearer ${supervisor.adminToken}`, 'content-type': 'application/json' };
    const other = await fetch(`${url}/api/v1/sources?dry_run=true`, { method: 'POST', headers: admin, body: JSON.stringify({ url: `http://localhost:${port()}/rss.xml`, kind: 'rss', name: 'Other' }) });
    expect(other.status).toBe(422);
    expect(((await other.json()) as { message: string }).message).toMatch(/localhost is a loopback host/);
    const redirected = await fetch(`${url}/api/v1/sources?dry_run=true`, { method: 'POST', headers: admin, body: JSON.stringify({ url: `${web.url}/to-loopback`, kind: 'rss', name: 'Redirect' }) });
    expect(redirected.status).toBe(422);
    expect(((await redirected.json()) as { message: string }).message).toMatch(/redirect led to a refused address/);
  });
});

describe('consent in main', () => {
  it('asks before a private host the analyst has not allowed, and names it', async () => {
    const asked = await local(['127.0.0.1']).preview({ url: `http://localhost:${port()}/rss.xml`, kind: 'rss', name: '', cadenceS: 900 });
    expect(asked.ok).toBe(false);
    if (asked.ok) return;
    expect(asked.error).toMatchObject({ code: 'private_host', host: 'localhost', message: 'localhost is on your private network. Fetch it from this computer?' });
    const none = await local([]).add({ url: `${web.url}/rss.xml`, kind: 'rss', name: '', cadenceS: 900 });
    expect(!none.ok && none.error.code).toBe('private_host');
  });

  it('tells a private address from a public one, by name through the resolver', async () => {
    expect(await privateHostOf('http://10.1.2.3/feed')).toBe('10.1.2.3');
    expect(await privateHostOf('http://[fe80::1]/feed')).toBe('[fe80::1]');
    expect(await privateHostOf('https://8.8.8.8/feed')).toBeNull();
    expect(await privateHostOf('https://news.intranet.example/feed', async () => ['192.168.4.20'])).toBe('news.intranet.example');
    expect(await privateHostOf('https://www.example.com/feed', async () => ['93.184.216.34'])).toBeNull();
    expect(await privateHostOf('file:///tmp/docs')).toBeNull();
  });

  it('a remote service that refuses a private address is said in words', async () => {
    const remote = new SourceAdmin({ service: () => ({ mode: 'remote', baseUrl: url }), localAdminToken: () => null, userCredential: async () => ({ secret: supervisor.adminToken!, presentAs: 'bearer' }), allowedHosts: () => [] });
    const refused = await remote.preview({ url: `http://localhost:${port()}/rss.xml`, kind: 'rss', name: '', cadenceS: 900 });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.message).toBe(`${new URL(url).host} does not fetch localhost: it is on a private network, and that service fetches only public addresses. Ask its administrator, or add the source on the local service.`);
  });
});
