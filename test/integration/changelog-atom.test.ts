/**
 * "What's new in the service" reads the changelog of the service in use (issue 30): the JSON
 * Feed where a service has one, else its Atom feed. The app's client against variant services
 * over real HTTP: one that serves only the Atom feed our service writes, one with another
 * service's Atom (HTML content, its own titles), one with neither, and a hostile one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import type { RunningService } from '../../src/service/server';
import { startFakeRemoteService, type FakeRemoteService, type FakeRoutes } from '../support/fake-remote-service';
import { startTestService } from '../support/local-service';

let local: RunningService;
let ourAtom: string;
const started: FakeRemoteService[] = [];

beforeAll(async () => {
  local = await startTestService();
  ourAtom = await (await fetch(`${local.url}/developer/changelog.atom`)).text();
}, 60_000);
afterAll(async () => {
  await Promise.all(started.map((service) => service.close()));
  await local?.close();
});

const atom = (body: string) => (_request: unknown, response: ServerResponse) => void response.writeHead(200, { 'content-type': 'application/atom+xml' }).end(body);

async function changelogFrom(routes: FakeRoutes) {
  const service = await startFakeRemoteService({ id: 'changelog-variant', area: 'health', description: 'changelog variant', routes });
  started.push(service);
  return { service, result: await new RetailSignalClient({ baseUrl: service.url }).getChangelog() };
}

describe("What's new in the service", () => {
  it('reads the JSON Feed where the service has one (versions, notes, the deprecations it lists)', async () => {
    const result = await new RetailSignalClient({ baseUrl: local.url }).getChangelog();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.entries.length).toBeGreaterThan(0);
    expect(result.value.deprecations.map((entry) => entry.path)).toContain('/api/v1/research');
  });

  it('falls back to the Atom feed of a service that offers only that: the same entries as the JSON Feed', async () => {
    const json = await new RetailSignalClient({ baseUrl: local.url }).getChangelog();
    const { service, result } = await changelogFrom({ 'GET /developer/changelog.atom': atom(ourAtom) });
    expect(service.requests.map((request) => request.path)).toEqual(['/developer/changelog.json', '/developer/changelog.atom']);
    expect(result.ok).toBe(true);
    if (!result.ok || !json.ok) return;
    expect(result.value.entries.map((entry) => [entry.version, entry.date, entry.notes])).toEqual(json.value.entries.map((entry) => [entry.version, entry.date, entry.notes]));
    expect(result.value.pageUrl).toBe(`${service.url}/developer/changelog`);
    expect(result.value.deprecations).toEqual([]);
  });

  it("reads another service's Atom: HTML content as text, its own titles and page link", async () => {
    const feed = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Other service releases</title>
  <link rel="self" href="/releases.atom"/>
  <link rel="alternate" type="text/html" href="/releases"/>
  <entry>
    <id>urn:other:2.3.0</id>
    <title type="text">v2.3.0 — faster answers</title>
    <updated>2026-11-20T08:00:00Z</updated>
    <content type="html">&lt;ul&gt;&lt;li&gt;Answers stream sooner&lt;/li&gt;&lt;li&gt;&lt;script&gt;x&lt;/script&gt;New &amp;amp; better ranks&lt;/li&gt;&lt;/ul&gt;</content>
  </entry>
  <entry>
    <id>urn:other:notes</id>
    <title>Maintenance window</title>
    <published>2026-11-18T00:00:00Z</published>
    <summary>Read-only for an hour.</summary>
  </entry>
</feed>`;
    const { service, result } = await changelogFrom({ 'GET /developer/changelog.json': (_request, response) => void response.writeHead(406).end(), 'GET /developer/changelog.atom': atom(feed) });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.pageUrl).toBe(`${service.url}/releases`);
    expect(result.value.entries).toEqual([
      { version: '2.3.0', date: '2026-11-20', title: 'v2.3.0 — faster answers', notes: ['Answers stream sooner', 'xNew & better ranks'] },
      { version: null, date: '2026-11-18', title: 'Maintenance window', notes: ['Read-only for an hour.'] },
    ]);
  });

  it('says plainly when a service publishes neither, and refuses an Atom feed that declares entities', async () => {
    const none = await changelogFrom({});
    expect(none.result).toMatchObject({ ok: false, error: { code: 'not_found' } });
    if (!none.result.ok) expect(none.result.error.message).toContain('/developer/changelog.atom');
    const hostile = await changelogFrom({ 'GET /developer/changelog.atom': atom('<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x SYSTEM "file:///etc/passwd">]><feed xmlns="http://www.w3.org/2005/Atom"><entry><title>&x;</title></entry></feed>') });
    expect(hostile.result).toMatchObject({ ok: false, error: { code: 'bad_response' } });
    if (!hostile.result.ok) expect(hostile.result.error.message).toMatch(/DOCTYPE or entities/);
  });
});
