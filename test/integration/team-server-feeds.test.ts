/**
 * A team server's feed as one service (issue 48, decision 0040), two service processes on one
 * real PostgreSQL fetching real HTTP feeds on loopback:
 * - a follow feed read page by page, alternately through either process, while a fixture feed
 *   publishes 30 matching items: no item twice, all of them there at the end, each naming both
 *   follows it matched; `has_more` false only at the end;
 * - a signal one process fetched is in the other's newest-first Discover and follow feed within
 *   5 s (a wait for the condition with that deadline), and `follow.matched` is sent once per match;
 * - four sources of one host are never fetched at once across the two processes (the host
 *   records overlapping requests), and a host's Retry-After holds for both.
 * Beside team-server.test.ts (its own file so the two can run in parallel).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevIdentityProvider } from '../../src/service/auth';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { sharedPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { FAST_ARGS, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { pollUntil, waitFor } from '../support/wait-for';

let cluster: PostgresCluster;
const running = new Set<ServiceProcess>();
const dirs: string[] = [];
/** `follow.matched` deliveries the webhook receiver took: delivery id and signal id. */
const matchedEvents: Array<{ delivery: string; signal: string }> = [];
let receiver: Server;
let receiverUrl: string;

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    }),
  );

beforeAll(async () => {
  cluster = await sharedPostgresCluster();
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const event = JSON.parse(body) as { id: string; type: string; data: { signal?: { id: string } } };
      if (event.type === 'follow.matched' && event.data.signal) matchedEvents.push({ delivery: event.id, signal: event.data.signal.id });
      response.end('ok');
    });
  });
  receiverUrl = `${await listen(receiver)}/hook`;
}, 120_000);

afterAll(async () => {
  await Promise.all([...running].map((service) => service.kill9()));
  await cluster?.destroy();
  receiver?.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-team-feeds-'));
  dirs.push(dir);
  return dir;
}

/**
 * Two processes on one new database, each with its own data directory, fetching `sources`.
 * `tokensFromA`: tests sign their tokens with A's data directory's key, so B starts once A has put
 * it in the database (before A listens); otherwise both start at once.
 */
async function twoProcesses(database: string, sources: unknown[], extra: (n: number) => string[] = () => [], tokensFromA = true): Promise<{ a: ServiceProcess; b: ServiceProcess; dirA: string }> {
  const url = await cluster.createDatabase(database);
  // Each data directory as a first start of the sample leaves it (the suite's copy of its corpus cache); the database is PostgreSQL.
  const [dirA, dirB, config] = await Promise.all([tempDir().then((dir) => seedServiceFolder(dir, { database: false })), tempDir().then((dir) => seedServiceFolder(dir, { database: false })), tempDir()]);
  const sourcesFile = join(config, 'sources.json');
  await writeFile(sourcesFile, JSON.stringify({ sources }));
  const args = (dir: string, n: number) => [...FAST_ARGS, '--allow-private-webhooks', '--allow-private-sources', '--data-dir', dir, '--database', url, '--sources-file', sourcesFile, ...extra(n)];
  if (!tokensFromA) {
    const [a, b] = await Promise.all([startServiceProcess(args(dirA, 0)), startServiceProcess(args(dirB, 1))]);
    running.add(a).add(b);
    return { a, b, dirA };
  }
  // A first: it puts the signing key of its data directory in the database before it listens, B
  // takes it from there (B starts while A's index still warms; both are ready before the test goes on).
  const a = await startServiceProcess(args(dirA, 0), undefined, undefined, {}, 'listening');
  running.add(a);
  const b = await startServiceProcess(args(dirB, 1));
  running.add(b);
  await a.readyAt;
  return { a, b, dirA };
}

const post = (url: string, body: unknown, token: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });

interface FeedPage {
  items: Array<{ signal: { id: string; title: string }; matched: string[] }>;
  next_cursor: string;
  has_more: boolean;
}
async function readFeed(base: string, token: string, cursor?: string): Promise<FeedPage> {
  const response = await fetch(`${base}/api/v1/follow/feed${cursor ? `?cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`feed read: ${response.status} ${await response.text()}`);
  return (await response.json()) as FeedPage;
}
/**
 * Newest-first Discover, title → id. Discover allows 60 reads a minute per caller: the polls
 * below are spread over several signed-in watchers, each its own bucket.
 */
function discoverWatchers(tokens: string[]): (base: string) => Promise<Map<string, string>> {
  let next = 0;
  return async (base) => {
    const token = tokens[next++ % tokens.length]!;
    const response = await fetch(`${base}/api/v1/discover?limit=20`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) throw new Error(`discover: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { items: Array<{ id: string; title: string }> };
    return new Map(page.items.map((item) => [item.title, item.id]));
  };
}

describe('follow feeds and arrivals on two processes', () => {
  let web: FixtureWeb;
  beforeAll(async () => {
    web = await startFixtureWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  it('reads a follow feed page by page through both processes while items arrive: none twice, all there, each naming both its follows; the other process sees an arrival within 5 s; one follow.matched per match', async () => {
    const { a, b, dirA } = await twoProcesses('team_feeds', [{ id: 'desk', name: 'Team Desk', kind: 'rss', url: `${web.url}/rss.xml`, cadence_s: 1 }]);
    // Pro: 600 feed reads an hour (the reads below poll while the items come).
    const identity = await DevIdentityProvider.open(dirA);
    const analyst = await identity.issueToken('pager@example.com', 3_600, Date.now(), { tier: 'pro' });
    const newestTitles = discoverWatchers(await Promise.all(Array.from({ length: 12 }, (_, n) => identity.issueToken(`watcher-${n}@example.com`, 3_600))));
    const hook = await post(`${b.url}/api/v1/webhooks`, { url: receiverUrl, events: ['follow.matched'] }, analyst);
    expect(hook.status).toBe(201);
    const hookId = ((await hook.json()) as { id: string }).id;
    // Two follows every published item matches, and sample follows whose backfills overlap.
    const targets = [
      { type: 'query', value: 'Zepto dark store' },
      { type: 'query', value: 'Zepto Pune' },
      { type: 'segment', value: 'grocery' },
      { type: 'city', value: 'Mumbai' },
      { type: 'city', value: 'Bengaluru' },
      { type: 'entity', value: 'DMart' },
    ];
    const follows: string[] = [];
    for (const [n, target] of targets.entries()) {
      const made = await post(`${n % 2 === 0 ? a.url : b.url}/api/v1/follow`, { target }, analyst);
      expect(made.status).toBe(201);
      follows.push(((await made.json()) as { id: string }).id);
    }

    const titles = Array.from({ length: 30 }, (_, i) => `Zepto opens dark store number ${i + 1} in Pune`);
    const read: FeedPage['items'] = [];
    let cursor: string | undefined;
    let published = 0;
    let reads = 0;
    const deadline = Date.now() + 180_000;
    // The items arrive one every 250 ms, whatever the reader does; the reader, once at the end of
    // the feed, waits for the next fetch of the feed by either process before reading again.
    const publishNext = (): void => {
      if (published >= titles.length) return;
      const i = published;
      web.publish('rss', { id: `team-zepto-${i + 1}`, title: titles[i]!, html: `<p>Quick commerce firm Zepto opened dark store ${i + 1} in Pune.</p>`, published: new Date().toISOString() });
      published += 1;
    };
    const feedFetches = (): number => web.requests.filter((request) => request.path === '/rss.xml').length;
    publishNext();
    const arrivals = setInterval(publishNext, 250);
    try {
      for (;;) {
        const fetchesBefore = feedFetches();
        const page = await readFeed(reads % 2 === 0 ? a.url : b.url, analyst, cursor);
        reads += 1;
        read.push(...page.items);
        cursor = page.next_cursor;
        const got = new Set(read.map((item) => item.signal.title));
        if (published === titles.length && !page.has_more && titles.every((title) => got.has(title))) break;
        if (Date.now() > deadline) throw new Error(`after 180 s, ${titles.filter((title) => !got.has(title)).length} of the 30 items are not in the feed`);
        if (!page.has_more) await waitFor(() => feedFetches() > fetchesBefore, { what: `the next fetch of the feed (${titles.filter((title) => !got.has(title)).length} of the 30 items not read yet)`, timeout: Math.max(0, deadline - Date.now()), interval: 20 });
      }
    } finally {
      clearInterval(arrivals);
    }
    const ids = read.map((item) => item.signal.id);
    expect(ids.length - new Set(ids).size).toBe(0);
    for (const title of titles) {
      const item = read.find((candidate) => candidate.signal.title === title)!;
      expect({ title, matched: item.matched }).toEqual({ title, matched: [follows[0], follows[1]] });
    }
    // Nothing more: the end said so.
    expect((await readFeed(a.url, analyst, cursor)).items).toEqual([]);

    // One more: the process that fetched it shows it first; the other within 5 s, in its
    // newest-first Discover and in the follow feed read there from the end cursor.
    const title = 'Zepto opens dark store number 31 in Pune';
    web.publish('rss', { id: 'team-zepto-31', title, html: '<p>Quick commerce firm Zepto opened dark store 31 in Pune.</p>', published: new Date().toISOString() });
    const [fetcher, id] = await waitFor(
      async () => {
        for (const service of [a, b]) {
          const found = (await newestTitles(service.url)).get(title);
          if (found) return [service, found] as const;
        }
        return null;
      },
      { what: 'the 31st item fetched by either process', timeout: Math.max(0, deadline - Date.now()), interval: 50 },
    );
    const other = fetcher === a ? b : a;
    let inDiscover = false;
    let inFeed = false;
    await pollUntil(
      async () => {
        inDiscover ||= (await newestTitles(other.url)).get(title) === id;
        inFeed ||= (await readFeed(other.url, analyst, cursor)).items.some((item) => item.signal.id === id);
        return inDiscover && inFeed;
      },
      (seen) => seen,
      { timeout: 5_000, interval: 100 },
    );
    expect({ inDiscover, inFeed }).toEqual({ inDiscover: true, inFeed: true });

    // follow.matched: every one of the 31 delivered, each once, though both processes hold them.
    const all = new Set([...ids.filter((signal) => read.find((item) => item.signal.id === signal)!.signal.title.startsWith('Zepto opens dark store')), id]);
    expect(all.size).toBe(31);
    type Deliveries = { deliveries: Array<{ state: string }> };
    const delivered = () => new Set(matchedEvents.map((event) => event.signal).filter((signal) => all.has(signal)));
    await waitFor(() => delivered().size === all.size, { what: `every match delivered (${all.size - delivered().size} not yet)`, timeout: Math.max(0, deadline - Date.now()), interval: 20 });
    // Then no delivery left pending (its state is recorded after the receiver answered). The
    // analyst's webhooks bucket allows 30 reads a minute: a few polls, well apart.
    await waitFor(
      async () => {
        const response = await fetch(`${b.url}/api/v1/webhooks/${hookId}/deliveries`, { headers: { authorization: `Bearer ${analyst}` } });
        return response.status === 200 && ((await response.json()) as Deliveries).deliveries.every((delivery) => delivery.state !== 'pending');
      },
      { what: 'no follow.matched delivery pending', timeout: Math.max(10_000, deadline - Date.now()), interval: 250 },
    );
    const perSignal = new Map<string, number>();
    for (const event of matchedEvents) if (all.has(event.signal)) perSignal.set(event.signal, (perSignal.get(event.signal) ?? 0) + 1);
    expect([...perSignal.values()].every((count) => count === 1)).toBe(true);
    expect(new Set(matchedEvents.map((event) => event.delivery)).size).toBe(matchedEvents.length);
  }, 300_000);
});

describe('politeness across processes', () => {
  /** One host with four feeds; each answer takes 500 ms, so requests at once would overlap. */
  interface Seen {
    path: string;
    agent: string;
    start: number;
    end: number;
    status: number;
  }
  const seen: Seen[] = [];
  let host: Server;
  let hostUrl: string;
  let throttleNext = false;

  beforeAll(async () => {
    host = createServer((request, response) => {
      const record: Seen = { path: request.url ?? '/', agent: String(request.headers['user-agent'] ?? ''), start: Date.now(), end: 0, status: 200 };
      seen.push(record);
      setTimeout(() => {
        const finish = (status: number, type: string, body: string, headers: Record<string, string> = {}): void => {
          record.status = status;
          response.writeHead(status, { 'content-type': type, ...headers }).end(body, () => (record.end = Date.now()));
        };
        if (record.path === '/robots.txt') return finish(404, 'text/plain', 'none');
        if (throttleNext) {
          throttleNext = false;
          return finish(429, 'text/plain', 'slow down', { 'retry-after': '2' });
        }
        const n = /feed-(\d)/.exec(record.path)?.[1] ?? '0';
        finish(200, 'application/rss+xml', `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed ${n}</title><link>${hostUrl}/</link><description>d</description><item><title>Nykaa opens beauty store ${n} in Delhi</title><link>${hostUrl}/news/${n}.html</link><guid>${hostUrl}/news/${n}.html</guid><pubDate>${new Date(Date.parse('2026-11-20T06:00:00Z')).toUTCString()}</pubDate><description>Nykaa opened store ${n}.</description></item></channel></rss>`);
      }, 500);
    });
    hostUrl = await listen(host);
  });
  afterAll(() => host?.close());

  /** Every pair of requests the host saw overlapping in time. */
  const overlaps = (): Array<[Seen, Seen]> => {
    const done = seen.filter((request) => request.end > 0).sort((x, y) => x.start - y.start);
    const found: Array<[Seen, Seen]> = [];
    for (let i = 1; i < done.length; i += 1) if (done[i]!.start < done[i - 1]!.end) found.push([done[i - 1]!, done[i]!]);
    return found;
  };

  it("never fetches one host's four sources at once across two processes, and holds the host's Retry-After for both", async () => {
    const sources = [1, 2, 3, 4].map((n) => ({ id: `feed-${n}`, name: `Feed ${n}`, kind: 'rss', url: `${hostUrl}/feed-${n}.xml`, cadence_s: 1 }));
    await twoProcesses('team_polite', sources, (n) => ['--contact-url', `https://example.com/process-${n}`], false);
    const deadline = Date.now() + 120_000;
    const feedRequests = () => seen.filter((request) => request.path.startsWith('/feed-') && request.end > 0);
    // Both processes take part, each source fetched more than once.
    await waitFor(() => new Set(feedRequests().map((request) => request.agent)).size === 2 && [1, 2, 3, 4].every((n) => feedRequests().filter((request) => request.path === `/feed-${n}.xml`).length >= 2), {
      what: 'each source fetched twice, by both processes together',
      timeout: Math.max(0, deadline - Date.now()),
      interval: 20,
    });
    expect(overlaps()).toEqual([]);

    // The next request is answered 429 with Retry-After: 2. No request to the host, from either
    // process, starts in the 2 s after it.
    throttleNext = true;
    const throttled = await waitFor(() => seen.find((request) => request.status === 429 && request.end > 0), { what: 'the 429', timeout: Math.max(0, deadline + 60_000 - Date.now()), interval: 20 });
    const after = await waitFor(() => {
      const later = seen.filter((request) => request.start > throttled.end);
      return later.length >= 2 && later;
    }, { what: 'two requests after the 429', timeout: Math.max(0, deadline + 60_000 - Date.now()), interval: 20 });
    expect(after[0]!.start - throttled.end).toBeGreaterThanOrEqual(1_950);
    expect(overlaps()).toEqual([]);
  }, 240_000);
});
