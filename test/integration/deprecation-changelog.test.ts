/**
 * Issue 30: v1 research is announced as deprecated the standard way (RFC 9745 Deprecation,
 * RFC 8594 Sunset, a Link to the changelog), the changelog is served as JSON Feed and Atom beside
 * its page, a wrong method is 405 with Allow, and the headers these responses send are in the
 * OpenAPI document. Against the real local service over HTTP.
 */
import { JSDOM } from 'jsdom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { RunningService } from '../../src/service/server';
import { ChangelogFeed } from '../../src/shared/surface-schemas';
import { postJson, startTestService } from '../support/local-service';

let service: RunningService;
let jwt: string;
type Responses = Record<string, { headers?: Record<string, unknown>; $ref?: string }>;
type OpenApi = { paths: Record<string, Record<string, { deprecated?: boolean; responses: Responses }>>; components: { responses: Responses; headers: Record<string, unknown> } };
let document: OpenApi;

beforeAll(async () => {
  service = await startTestService({ research: { durationMs: 50, queueMs: 20 } });
  jwt = await service.idp.issueToken('deprecation@example.com');
  document = parseYaml(await (await fetch(`${service.url}/.well-known/openapi.yaml`)).text()) as OpenApi;
});
afterAll(() => service.close());

/** The names of the headers an OpenAPI response declares, lower-cased (a $ref resolved). */
function documentedHeaders(response: { headers?: Record<string, unknown>; $ref?: string } | undefined): Set<string> {
  const resolved = response?.$ref ? document.components.responses[response.$ref.split('/').pop()!] : response;
  return new Set(Object.keys(resolved?.headers ?? {}).map((name) => name.toLowerCase()));
}

/** Headers every HTTP response has, which no API description lists. */
const TRANSPORT = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

function undocumented(response: Response, documented: Set<string>): string[] {
  return [...response.headers.keys()].filter((name) => !TRANSPORT.has(name) && !documented.has(name));
}

describe('v1 research is deprecated the standard way', () => {
  const EXPECTED = {
    deprecation: '@1793491200', // 2026-11-01T00:00:00Z, the announcement date on the changelog
    sunset: 'Sat, 01 May 2027 00:00:00 GMT', // six months later
  };

  it('sends Deprecation (RFC 9745), Sunset (RFC 8594) and a deprecation Link on success and on errors', async () => {
    const completed = await postJson(`${service.url}/api/v1/research`, { topic: 'Quick commerce in Bengaluru', preset: 'standard' }, { authorization: `Bearer ${jwt}` });
    expect(completed.status).toBe(200);
    const refused = await postJson(`${service.url}/api/v1/research`, { topic: 'Quick commerce in Bengaluru' });
    expect(refused.status).toBe(401);
    for (const response of [completed, refused]) {
      expect(response.headers.get('deprecation')).toBe(EXPECTED.deprecation);
      expect(response.headers.get('sunset')).toBe(EXPECTED.sunset);
      // An RFC 9651 Date item and an IMF-fixdate, read back as the same instants.
      expect(Number(response.headers.get('deprecation')!.slice(1)) * 1000).toBe(Date.parse('2026-11-01T00:00:00Z'));
      expect(new Date(response.headers.get('sunset')!).toISOString()).toBe('2027-05-01T00:00:00.000Z');
      const link = response.headers.get('link')!;
      expect(link).toMatch(/^<([^>]+)>;\s*rel="deprecation"/);
      const target = new URL(/^<([^>]+)>/.exec(link)![1]!, `${service.url}/api/v1/research`);
      expect(target.href).toBe(`${service.url}/developer/changelog`);
      expect((await fetch(target)).status).toBe(200);
    }
  });

  it('does not mark v2 research or the polling endpoint', async () => {
    const queued = await postJson(`${service.url}/api/v2/research`, { topic: 'Zudio fashion stores' }, { authorization: `Bearer ${jwt}` });
    expect(queued.status).toBe(202);
    expect(queued.headers.get('deprecation')).toBeNull();
    const { status_url } = (await queued.json()) as { status_url: string };
    const polled = await fetch(`${service.url}${status_url}`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(polled.status).toBe(200);
    expect(polled.headers.get('deprecation')).toBeNull();
    expect(polled.headers.get('sunset')).toBeNull();
  });

  it('marks the operation deprecated in the OpenAPI document, with the three headers on each of its responses', () => {
    const operation = document.paths['/api/v1/research']!.post!;
    expect(operation.deprecated).toBe(true);
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const name of ['deprecation', 'sunset', 'link', 'x-rate-limit-remaining']) expect(documentedHeaders(response).has(name), `${status} documents ${name}`).toBe(true);
    }
    expect(document.paths['/api/v2/research']!.post!.deprecated).toBeUndefined();
  });
});

describe('the changelog, machine-readable beside its page', () => {
  it('is a JSON Feed 1.1 listing each version and the deprecation with the dates the headers send', async () => {
    const response = await fetch(`${service.url}/developer/changelog.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/feed+json');
    const feed = ChangelogFeed.parse(await response.json());
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    const versions = feed.items.map((item) => item._retail_signal?.version);
    expect(versions).toEqual(expect.arrayContaining(['1.2.0', '1.1.0', '1.0.0', '2.0.0-preview']));
    // Newest first.
    const dates = feed.items.map((item) => item.date_published!);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(feed._retail_signal?.deprecations).toEqual([
      expect.objectContaining({ method: 'POST', path: '/api/v1/research', deprecated_at: '2026-11-01T00:00:00.000Z', sunset_at: '2027-05-01T00:00:00.000Z', replacement: { method: 'POST', path: '/api/v2/research' } }),
    ]);
    const announcement = feed.items.find((item) => item._retail_signal?.version === '2.0.0-preview')!;
    expect(announcement.date_published).toBe('2026-11-01T00:00:00.000Z');
  });

  it('is an Atom feed an XML parser reads, with the same entries as the page', async () => {
    const response = await fetch(`${service.url}/developer/changelog.atom`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/atom+xml');
    const xml = await response.text();
    const { DOMParser } = new JSDOM('').window;
    const parsed = new DOMParser().parseFromString(xml, 'application/xml');
    expect(parsed.getElementsByTagName('parsererror')).toHaveLength(0);
    const ATOM = 'http://www.w3.org/2005/Atom';
    const feed = parsed.documentElement;
    expect(feed.namespaceURI).toBe(ATOM);
    expect(feed.localName).toBe('feed');
    // RFC 4287 §4.1.1: a feed has id, title, updated and an author (here at feed level).
    for (const name of ['id', 'title', 'updated', 'author']) expect(feed.getElementsByTagNameNS(ATOM, name).length, name).toBeGreaterThan(0);
    const entries = [...feed.getElementsByTagNameNS(ATOM, 'entry')];
    const titles = entries.map((entry) => entry.getElementsByTagNameNS(ATOM, 'title')[0]!.textContent);
    expect(titles).toContain('2.0.0-preview (2026-11-01)');
    expect(titles).toContain('1.2.0 (2026-11-25)');
    for (const entry of entries) {
      expect(entry.getElementsByTagNameNS(ATOM, 'id')[0]!.textContent).toMatch(/^tag:/);
      expect(Number.isNaN(Date.parse(entry.getElementsByTagNameNS(ATOM, 'updated')[0]!.textContent!))).toBe(false);
    }
    const alternate = [...feed.getElementsByTagNameNS(ATOM, 'link')].find((link) => link.getAttribute('rel') === 'alternate')!;
    expect(new URL(alternate.getAttribute('href')!, response.url).href).toBe(`${service.url}/developer/changelog`);
    // The notes are text, with the page's words: an ampersand or angle bracket is escaped, not markup.
    const page = await (await fetch(`${service.url}/developer/changelog`)).text();
    expect(page).toContain('changelog.json');
    expect(page).toContain('changelog.atom');
    expect(xml).toContain('Link: &lt;/developer/changelog&gt;; rel=&quot;deprecation&quot;');
  });

  it('the page links its JSON Feed and Atom versions in its head, as feed readers look for them', async () => {
    const response = await fetch(`${service.url}/developer/changelog`);
    const { document: html } = new JSDOM(await response.text(), { url: response.url }).window;
    const alternates = [...html.head.querySelectorAll('link[rel="alternate"]')].map((link) => [link.getAttribute('type'), (link as HTMLLinkElement).href]);
    expect(alternates).toEqual([
      ['application/feed+json', `${service.url}/developer/changelog.json`],
      ['application/atom+xml', `${service.url}/developer/changelog.atom`],
    ]);
    // Each link leads to the feed of the type it names.
    for (const [type, href] of alternates) expect((await fetch(href!)).headers.get('content-type')).toContain(type!);
  });
});

describe('405 and the headers every response sends are documented', () => {
  it('answers a wrong method with 405 and Allow, documented on the path\'s operations', async () => {
    const response = await fetch(`${service.url}/api/v1/ask`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ error: 'method_not_allowed' });
    const documented = document.paths['/api/v1/ask']!.post!.responses['405'];
    expect(documentedHeaders(documented)).toEqual(new Set(['x-rate-limit-remaining', 'x-index-state', 'allow']));
    expect(undocumented(response, documentedHeaders(documented))).toEqual([]);
  });

  it('documents the developer pages\' Cache-Control, CSP, Referrer-Policy and session cookie', async () => {
    const home = await fetch(`${service.url}/developer`);
    expect(home.headers.get('cache-control')).toBe('no-store');
    expect(undocumented(home, documentedHeaders(document.paths['/developer']!.get!.responses['200']))).toEqual([]);
    const keys = await fetch(`${service.url}/developer/keys`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(undocumented(keys, documentedHeaders(document.paths['/developer/keys']!.get!.responses['200']))).toEqual([]);
  });

  it('documents every header of the changelog\'s three forms and of v1 research', async () => {
    for (const path of ['/developer/changelog', '/developer/changelog.json', '/developer/changelog.atom']) {
      const response = await fetch(`${service.url}${path}`);
      expect(undocumented(response, documentedHeaders(document.paths[path]!.get!.responses['200'])), path).toEqual([]);
    }
    const research = await postJson(`${service.url}/api/v1/research`, { topic: 'Quick commerce in Bengaluru' });
    expect(undocumented(research, documentedHeaders(document.paths['/api/v1/research']!.post!.responses['401']))).toEqual([]);
  });
});
