/**
 * arrival_visible_other_process_p95_ms (issue 48 item 2): two service processes on one
 * PostgreSQL fetch one RSS feed on loopback (cadence 1 s); an item is published, and from the
 * moment it is in the follow feed (its arrival row is written by the process that fetched it)
 * until it is in both processes' newest-first Discover and in the follow feed read through each,
 * polled every 50 ms. The process that fetched it shows it at once, so the figure is the other
 * process's delay (its sync of the feed's signals). Discover allows 60 reads a minute per
 * caller: the polls are spread over signed-in watchers. Part of `npm run bench:storage`;
 * `STORAGE_ONLY=arrival npm run bench:storage` runs it alone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevIdentityProvider } from '../../src/service/auth';
import type { PostgresCluster } from '../support/postgres-cluster';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

export const ARRIVAL_GOAL_MS = 5_000;
const ARRIVALS = Number(process.env.STORAGE_ARRIVALS ?? 20);
const POLL_MS = 50;
/** An arrival not seen everywhere after this long counts as this long (and is named in `missed`). */
const GIVE_UP_MS = 30_000;

export interface ArrivalFigures {
  arrival_visible_other_process_p95_ms: number;
  arrival_visible_other_process_p50_ms: number;
  arrival_samples: number;
  arrival_missed: number;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

export async function measureArrivalVisibility(cluster: PostgresCluster, scratch: string, database = 'arrival_bench'): Promise<ArrivalFigures> {
  const items: Array<{ title: string; at: string }> = [];
  const feed = createServer((request, response) => {
    const body = items
      .map((item, i) => `<item><title>${item.title}</title><link>http://feed.test/news/${i}.html</link><guid>http://feed.test/news/${i}.html</guid><pubDate>${new Date(item.at).toUTCString()}</pubDate><description>${item.title}.</description></item>`)
      .reverse()
      .join('');
    if (request.url === '/robots.txt') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Arrivals</title><link>http://feed.test/</link><description>d</description>${body}</channel></rss>`);
  });
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
  const address = feed.address();
  const feedUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/rss.xml`;
  const url = await cluster.createDatabase(database);
  const home = await mkdtemp(join(scratch, 'arrival-'));
  const sourcesFile = join(home, 'sources.json');
  await writeFile(sourcesFile, JSON.stringify({ sources: [{ id: 'arrivals', name: 'Arrivals', kind: 'rss', url: feedUrl, cadence_s: 1 }] }));
  const running: ServiceProcess[] = [];
  try {
    const args = (dir: string) => ['--port', '0', '--pace-ms', '0', '--no-live', '--signals', '3000', '--allow-private-sources', '--data-dir', join(home, dir), '--database', url, '--sources-file', sourcesFile];
    // A first: it puts its signing key in the database; B takes it from there.
    running.push(await startServiceProcess(args('a'), 600_000));
    running.push(await startServiceProcess(args('b'), 600_000));
    const identity = await DevIdentityProvider.open(join(home, 'a'));
    const analyst = await identity.issueToken('arrivals@example.com', 3_600, Date.now(), { tier: 'team' });
    const watchers = await Promise.all(Array.from({ length: 60 }, (_, n) => identity.issueToken(`watcher-${n}@example.com`, 3_600)));
    let turn = 0;
    const headers = (token: string) => ({ authorization: `Bearer ${token}` });
    const followed = await fetch(`${running[0]!.url}/api/v1/follow`, { method: 'POST', headers: { ...headers(analyst), 'content-type': 'application/json' }, body: JSON.stringify({ target: { type: 'query', value: 'arrival probe' } }) });
    if (followed.status !== 201) throw new Error(`follow: ${followed.status} ${await followed.text()}`);
    const feedHas = async (base: string, title: string, cursor: string): Promise<{ found: boolean; cursor: string; more: boolean }> => {
      const page = (await (await fetch(`${base}/api/v1/follow/feed?cursor=${cursor}`, { headers: headers(analyst) })).json()) as { items: Array<{ signal: { title: string } }>; next_cursor: string; has_more: boolean };
      return { found: page.items.some((item) => item.signal.title === title), cursor: page.next_cursor, more: page.has_more };
    };
    const discoverHas = async (base: string, title: string): Promise<boolean> => {
      const response = await fetch(`${base}/api/v1/discover?limit=5`, { headers: headers(watchers[turn++ % watchers.length]!) });
      if (response.status !== 200) throw new Error(`discover: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { items: Array<{ title: string }> }).items.some((item) => item.title === title);
    };
    // The feed read to its end: the probes come after this cursor.
    let cursor = '0';
    for (let more = true; more; ) ({ cursor, more } = await feedHas(running[0]!.url, '', cursor));
    const delays: number[] = [];
    let missed = 0;
    for (let i = 0; i < ARRIVALS; i += 1) {
      const title = `Arrival probe ${i} Zepto opens a dark store in Pune`;
      items.push({ title, at: new Date().toISOString() });
      // In the follow feed: its arrival row is written, by whichever process fetched it.
      const [a, b] = running.map((service) => service.url) as [string, string];
      const started = Date.now();
      let arrivedAt = 0;
      const seen = { discoverA: false, discoverB: false, feedA: false, feedB: false };
      while (!Object.values(seen).every(Boolean) && Date.now() - started < GIVE_UP_MS) {
        const polled = Date.now();
        seen.discoverA ||= await discoverHas(a, title);
        seen.discoverB ||= await discoverHas(b, title);
        seen.feedA ||= (await feedHas(a, title, cursor)).found;
        seen.feedB ||= (await feedHas(b, title, cursor)).found;
        if (!arrivedAt && (seen.feedA || seen.feedB)) arrivedAt = polled;
        if (!Object.values(seen).every(Boolean)) await pause(POLL_MS);
      }
      if (!Object.values(seen).every(Boolean) || !arrivedAt) {
        missed += 1;
        delays.push(GIVE_UP_MS);
      } else {
        delays.push(Date.now() - arrivedAt);
      }
      cursor = (await feedHas(a, title, cursor)).cursor;
    }
    return {
      arrival_visible_other_process_p95_ms: Math.round(percentile(delays, 95)),
      arrival_visible_other_process_p50_ms: Math.round(percentile(delays, 50)),
      arrival_samples: delays.length,
      arrival_missed: missed,
    };
  } finally {
    await Promise.all(running.map((service) => service.stop().catch(() => undefined)));
    feed.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** `STORAGE_ONLY=arrival npm run bench:storage`: this figure alone, in bench/results/storage-arrival-latest.json. */
export async function benchArrivalOnly(startCluster: () => Promise<PostgresCluster>, loadavg: () => number): Promise<ArrivalFigures & { load_average: { start: number; end: number } }> {
  const scratch = await mkdtemp(join(tmpdir(), 'clarity-arrival-bench-'));
  const cluster = await startCluster();
  const loadStart = loadavg();
  try {
    const figures = await measureArrivalVisibility(cluster, scratch);
    const result = { measured_at: new Date().toISOString(), load_average: { start: loadStart, end: loadavg() }, goal_arrival_visible_other_process_ms: ARRIVAL_GOAL_MS, ...figures };
    await writeFile('bench/results/storage-arrival-latest.json', `${JSON.stringify(result, null, 2)}\n`);
    console.log(
      `\nArrival seen by the other process (newest-first Discover and follow feed on both), ${figures.arrival_samples} arrivals: p95 ${figures.arrival_visible_other_process_p95_ms} ms, p50 ${figures.arrival_visible_other_process_p50_ms} ms ` +
        `(goal ≤ ${ARRIVAL_GOAL_MS}; ${figures.arrival_missed} not seen within ${GIVE_UP_MS / 1000} s; load average ${result.load_average.start} → ${result.load_average.end})`,
    );
    return { ...figures, load_average: result.load_average };
  } finally {
    await cluster.destroy();
    await rm(scratch, { recursive: true, force: true });
  }
}
