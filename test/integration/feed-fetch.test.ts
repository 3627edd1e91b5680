/**
 * The feed against the fixture web on loopback: every kind of source read into signals, and every
 * fault landing in that source's health with a reason while the other sources go on.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedService } from '../../src/service/feed/feed-service';
import { fetchResource } from '../../src/service/feed/http-fetcher';
import { createSignalStore } from '../../src/service/server';
import type { SignalStore } from '../../src/service/signal-store';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { waitFor } from '../support/wait-for';

let web: FixtureWeb;
let store: SignalStore;
let feed: FeedService;
let folder: string;

const SOURCES = {
  rss: '/rss.xml', rdf: '/rdf.xml', atom: '/atom.xml', json: '/feed.json', news: '/news/', pdf: '/pdf-feed.xml',
  timeout: '/slow.xml', reset: '/reset.xml', missing: '/404.xml', gone: '/410.xml', broken: '/500.xml', busy: '/503.xml',
  loop: '/loop-a', loopback: '/to-loopback', big: '/big.xml', bomb: '/bomb.xml', laughs: '/laughs.xml', malformed: '/malformed.xml',
  htmlfeed: '/html-as-feed.xml', huge: '/huge.xml', dupes: '/dupes.xml', dates: '/dates.xml', cp1252: '/cp1252.xml', scripts: '/scripts.xml', robots: '/private/feed.xml',
} as const;
const KIND: Record<string, 'rss' | 'atom' | 'jsonfeed' | 'html'> = { atom: 'atom', json: 'jsonfeed', news: 'html' };

const until = async (check: () => boolean, ms = 60_000): Promise<void> => void (await waitFor(check, { timeout: ms, interval: 50 }));

beforeAll(async () => {
  web = await startFixtureWeb();
  store = createSignalStore({ signalCount: 300 });
  folder = await mkdtemp(join(tmpdir(), 'clarity-feed-folder-'));
  await writeFile(join(folder, 'notes.md'), '# Kalyan Jewellers adds 15 showrooms in Kerala\n\nKalyan Jewellers opened 15 showrooms in Kochi and Thrissur.');
  await writeFile(join(folder, 'corrupt.pdf'), Buffer.from('%PDF-1.4\nthis is not really a pdf\n%%EOF'));
  feed = new FeedService({ store, allowedPrivateHosts: [web.host], politeIntervalMs: 0, tickMs: 20, limits: { connectTimeoutMs: 2_000, totalTimeoutMs: 4_000 }, maxItemsPerFetch: 2_000, contactUrl: 'https://example.org/contact' });
  for (const [id, path] of Object.entries(SOURCES)) await feed.add({ id, name: `Fixture ${id}`, kind: KIND[id] ?? 'rss', url: `${web.url}${path}`, cadence_s: 3_600 });
  await feed.add({ id: 'folder', name: 'My PDFs', kind: 'folder', url: pathToFileURL(folder).href, cadence_s: 3_600 });
  feed.start();
  await until(() => feed.sources().every((source) => source.state.last_fetch_at !== null));
}, 120_000);

afterAll(async () => {
  await feed?.close();
  await web?.close();
  await rm(folder, { recursive: true, force: true });
});

const entry = (id: string) => feed.snapshotParts(Date.now()).entries.find((source) => source.id === id)!;
const signalsOf = (id: string) => [...store.allSignals()].filter((signal) => signal.source_id === id);

describe('feed sources of each kind', () => {
  it('reads RSS, RDF, Atom, JSON Feed, an HTML listing and a PDF into answerable signals', () => {
    for (const id of ['rss', 'rdf', 'atom', 'json', 'news', 'pdf', 'folder']) {
      expect(signalsOf(id).length, id).toBeGreaterThan(0);
    }
    expect(entry('rss')).toMatchObject({ health: 'healthy', consecutive_failures: 0, last_error: null, items_total: 4 });
    const dmart = signalsOf('rss').find((signal) => signal.title.includes('Avenue Supermarts'))!;
    expect(dmart.id).toMatch(/^sig_[0-9a-f]{16}$/);
    // Tracking parameters and the fragment are gone from the canonical URL.
    expect((dmart as unknown as { canonical_url: string }).canonical_url).toBe(`${web.url}/news/dmart-q2.html`);
    expect(dmart.url).toBe(`${web.url}/news/dmart-q2.html`);
    expect(dmart.entities.retailers).toContain('DMart');
    expect(dmart.metrics).toMatchObject({ revenue_cr: 14_050, growth_yoy_pct: 14 });
    expect(dmart.type).toBe('results');
    expect(store.index.search('Avenue Supermarts revenue Q2').map((hit) => hit.signal.id)).toContain(dmart.id);
    // The listing's article pages were followed; navigation and other sites were not.
    const news = signalsOf('news');
    expect(news.map((signal) => signal.url).sort()).toEqual([`${web.url}/news/reliance-trends-closure.html`, `${web.url}/news/tanishq-expansion.html`]);
    expect(news.find((signal) => signal.title.includes('Reliance Trends'))!.entities).toMatchObject({ cities: ['Kolkata'], states: ['West Bengal'] });
    expect(news.every((signal) => !/TRACKING-CODE|Navigation menu/.test(signal.body))).toBe(true);
    // The PDF behind a feed link was read as a document.
    expect(signalsOf('pdf')[0]!.body).toContain('Diwali grew 22%');
    const blinkit = signalsOf('atom').find((signal) => signal.title.includes('Blinkit'))!;
    expect(blinkit.entities.cities).toEqual(expect.arrayContaining(['Bengaluru', 'Hyderabad']));
  });

  it('links the same story from two sources as corroborating, with a higher confidence', () => {
    const rss = signalsOf('rss').find((signal) => signal.title.includes('Avenue Supermarts')) as unknown as { id: string; corroborated_by: string[]; confidence: number };
    const atom = signalsOf('atom').find((signal) => signal.title.includes('Avenue Supermarts')) as unknown as { id: string; corroborated_by: string[]; confidence: number };
    expect(rss.corroborated_by).toContain(atom.id);
    expect(atom.corroborated_by).toContain(rss.id);
    expect(rss.confidence).toBeGreaterThan(0.5);
  });

  it('identifies itself with a contact URL and honours robots.txt', () => {
    expect(web.requests.find((request) => request.path === '/rss.xml')!.userAgent).toMatch(/ClarityRetailSignal\/1\.0 \(\+https:\/\/example\.org\/contact\)/);
    expect(web.requests.some((request) => request.path === '/private/feed.xml')).toBe(false);
    expect(entry('robots')).toMatchObject({ health: 'degraded', last_error: { kind: 'robots_disallowed' } });
  });
});

describe('faults land in health with a reason', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['timeout', 'timeout', /within/],
    ['reset', 'connection_reset', /reset|closed/],
    ['missing', 'not_found', /404/],
    ['gone', 'gone', /410/],
    ['broken', 'server_error', /500/],
    ['busy', 'unavailable', /503.*retry after 120 s/],
    ['loop', 'redirect_loop', /loop/i],
    ['loopback', 'redirect_blocked', /localhost/],
    ['big', 'body_too_large', /10 MB cap/],
    ['bomb', 'decompressed_too_large', /50 MB cap/],
    ['laughs', 'entity_declarations', /entities/],
    ['htmlfeed', 'not_a_feed', /HTML page/],
  ];
  for (const [id, kind, message] of cases) {
    it(`${id}: ${kind}`, () => {
      const state = entry(id);
      expect(state.health).toBe('degraded');
      expect(state.consecutive_failures).toBe(1);
      expect(state.last_error).toMatchObject({ kind });
      expect((state.last_error as { message: string }).message).toMatch(message);
      expect(typeof state.health_reason).toBe('string');
    });
  }

  // Issue 44: an ill-formed feed is read as feedparser's loose parser reads it; its health says so.
  it('malformed: read with errors, its item kept, the first error named', () => {
    const state = entry('malformed');
    expect(state.health).toBe('degraded');
    expect(state.consecutive_failures).toBe(0);
    expect(state.items_total).toBe(1);
    expect(state.health_reason).toMatch(/read with errors \(the first: .*title.*line 1\)/);
  });

  it('waits at least the Retry-After before the next fetch of a 503', () => {
    const state = entry('busy');
    expect(Date.parse(state.next_fetch_at as string) - Date.parse(state.last_fetch_at as string)).toBeGreaterThanOrEqual(119_000);
  });

  it('reads a 10,000-item feed up to its cap and says so', () => {
    expect(entry('huge')).toMatchObject({ health: 'degraded', items_total: 2_000 });
    expect(entry('huge').health_reason).toMatch(/10,000 items/);
  });

  it('keeps one signal per URL when GUIDs repeat, dates undated items by the fetch and clamps future dates', () => {
    expect(signalsOf('dupes')).toHaveLength(2);
    const dated = signalsOf('dates') as unknown as Array<{ title: string; published_at_source: string; published_at: string }>;
    expect(dated).toHaveLength(2);
    for (const signal of dated) {
      expect(signal.published_at_source).toBe('fetch');
      expect(Date.parse(signal.published_at)).toBeLessThanOrEqual(Date.now());
    }
  });

  it('decodes Windows-1252 and keeps no trace of scripts or event handlers', () => {
    expect(signalsOf('cp1252')[0]!.title).toBe('Café chain’s “big” Pune launch – 12 outlets');
    const hostile = signalsOf('scripts')[0]!;
    expect(JSON.stringify([hostile.title, hostile.summary, hostile.body])).not.toMatch(/script|onclick|onerror|steal|cookie|alert|color:red/i);
    expect(hostile.body).toContain('MedPlus opened 30 stores.');
  });

  it('reads a folder and reports the corrupt PDF in it', () => {
    expect(signalsOf('folder').map((signal) => signal.title)).toEqual(['Kalyan Jewellers adds 15 showrooms in Kerala']);
    expect(entry('folder').health).toBe('degraded');
    expect(entry('folder').health_reason).toMatch(/corrupt\.pdf/);
  });

  it('refuses loopback and private addresses unless allowed', async () => {
    await expect(fetchResource({ url: `${web.url}/rss.xml`, userAgent: 'test', allowPrivate: false })).rejects.toMatchObject({ kind: 'blocked_address' });
    await expect(fetchResource({ url: 'http://10.0.0.1/feed.xml', userAgent: 'test', allowPrivate: false })).rejects.toMatchObject({ kind: 'blocked_address' });
    await expect(fetchResource({ url: `http://localhost:${new URL(web.url).port}/rss.xml`, userAgent: 'test', allowPrivate: false })).rejects.toMatchObject({ kind: 'blocked_address' });
  });
});

describe('refetching', () => {
  it('answers a refetch with 304, finds a newly published item, and updates a changed one in place', async () => {
    const before = signalsOf('rss').length;
    await feed.fetchNow('rss');
    expect(entry('rss').not_modified_ratio).toBeGreaterThan(0);
    expect(web.requests.filter((request) => request.path === '/rss.xml').at(-1)!.ifNoneMatch).toMatch(/^"/);
    web.publish('rss', { id: 'senco-q2', title: 'Senco Gold opens 12 showrooms in Odisha', html: '<p>Senco Gold opened 12 showrooms in Bhubaneswar.</p>', published: new Date().toISOString() });
    await feed.fetchNow('rss');
    expect(signalsOf('rss')).toHaveLength(before + 1);
    const senco = signalsOf('rss').find((signal) => signal.title.includes('Senco'))!;
    expect(senco.entities.states).toContain('Odisha');
    expect(store.index.search('Senco Gold showrooms Odisha')[0]!.signal.id).toBe(senco.id);
    web.publish('rss', { id: 'senco-q2', title: 'Senco Gold opens 14 showrooms in Odisha', html: '<p>Corrected: 14 showrooms.</p>', published: new Date().toISOString() });
    await feed.fetchNow('rss');
    const updated = store.getSignal(senco.id) as unknown as { title: string; updated_at: string | null };
    expect(updated.title).toBe('Senco Gold opens 14 showrooms in Odisha');
    expect(updated.updated_at).not.toBeNull();
    expect(signalsOf('rss')).toHaveLength(before + 1);
  });
});

describe('stopping', () => {
  it('stops a fetch under way when the feed closes, rather than waiting out its 30 s timeout', { timeout: 15_000 }, async () => {
    const stopping = new FeedService({ store: createSignalStore({ signalCount: 0 }), allowedPrivateHosts: [web.host], politeIntervalMs: 0, tickMs: 20 });
    await stopping.add({ id: 'hangs', name: 'Hangs', kind: 'rss', url: `${web.url}/slow.xml` });
    const seen = web.requests.filter((request) => request.path === '/slow.xml').length;
    stopping.start();
    await until(() => web.requests.filter((request) => request.path === '/slow.xml').length > seen);
    await stopping.close();
    expect(stopping.source('hangs')!.state.last_error).toMatchObject({ kind: 'network', message: expect.stringMatching(/stopped/) });
  });
});
