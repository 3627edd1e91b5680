/**
 * The feed's figures (issue 26), under `ingest` in bench/results/latest.json:
 * - items_per_s: one fetch of a 10,000-item feed through the feed service's own path (read,
 *   made into signals, entities learned into the world registry that tagging and questions
 *   read, clustered, corroborated, stored; ingest-path.ts, a process of its own), with a new
 *   retailer named in every tenth item (goal ≥ 500/s with learning on, issue 43);
 *   items_per_s_learning_off beside it from the same run, and the load average around both;
 * - fetch_to_answerable_p95_ms: from the fixture serving the feed that carries a new item to
 *   Discover returning it, through the real service over HTTP (goal ≤ 5,000);
 * - rss_mb_10k_sources: resident memory added by the scheduler holding 10,000 sources (≤ 200 MB);
 * - dedup_precision / dedup_recall: pairwise, on a labelled set of near-duplicate stories (≥ 0.95).
 * `npm run bench:ingest` runs it alone and writes only the `ingest` key.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FeedService } from '../../src/service/feed/feed-service';
import { NearDuplicateIndex } from '../../src/service/feed/near-duplicate';
import { createSignalStore, startService } from '../../src/service/server';
import { closeMemoryDatabase } from '../../src/service/store/embedded';
import { startFixtureWeb } from '../support/fixture-web';
import type { IngestPathResult } from './ingest-path';

const run = promisify(execFile);

export interface IngestBenchResult {
  items_per_s: number;
  items_per_s_learning_off: number;
  /** Entities learned from the 10,000 items (1,000 invented retailers). */
  learned_entities: number;
  /** 1-minute load average before and after the two ingestion runs (the machine is shared). */
  load_average: { before: number; after: number };
  fetch_to_answerable_p95_ms: number;
  fetch_to_answerable_samples: number;
  rss_mb_10k_sources: number;
  dedup_precision: number;
  dedup_recall: number;
  dedup_pairs: { stories: number; items: number; true_pairs: number };
}

const RETAILERS = ['Zudio', 'DMart', 'Blinkit', 'Zepto', 'Nykaa', 'Croma', 'Tanishq', 'Kalyan Jewellers', 'MedPlus', 'V-Mart', 'Westside', 'Reliance Trends'];
const CITIES = ['Pune', 'Bengaluru', 'Chennai', 'Jaipur', 'Lucknow', 'Kochi', 'Indore', 'Nagpur', 'Surat', 'Patna'];

/** One ingestion run in a process of its own (ingest-path.ts), learning on or off. */
async function ingestionRun(learning: boolean): Promise<IngestPathResult> {
  const script = fileURLToPath(new URL('./ingest-path.ts', import.meta.url));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, CLARITY_INGEST_LEARNING: learning ? '1' : '0' }, maxBuffer: 1_048_576 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as IngestPathResult;
}

async function fetchToAnswerable(samples: number): Promise<number[]> {
  const web = await startFixtureWeb();
  const service = await startService({
    store: createSignalStore({ signalCount: 2_000 }),
    paceMs: 0,
    liveFeed: false,
    sample: 'snapshot',
    // The bench polls Discover far faster than a person would.
    extensions: { limits: { discover: { limit: 1_000_000, windowMs: 60_000 } } },
    feed: { allowedPrivateHosts: [web.host], politeIntervalMs: 0, tickMs: 25, jitter: 0, sources: [{ id: 'desk', name: 'Desk', kind: 'rss', url: `${web.url}/rss.xml`, cadence_s: 1 }] },
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i += 1) {
      const title = `Bench arrival ${i} Vijay Sales opens showroom in Surat`;
      const publishedAt = Date.now();
      web.publish('rss', { id: `bench-${i}`, title, html: `<p>${title}.</p>`, published: new Date().toISOString() });
      for (;;) {
        const page = (await (await fetch(`${service.url}/api/v1/discover?q=${encodeURIComponent(`Bench arrival ${i}`)}&limit=3`)).json()) as { items: Array<{ title: string }> };
        if (page.items.some((item) => item.title === title)) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const answerable = Date.now();
      // The fetch that carried it: the first request for the feed after it was published.
      const fetched = web.requests.find((request) => request.path === '/rss.xml' && request.at >= publishedAt)!.at;
      times.push(answerable - fetched);
    }
  } finally {
    await service.close();
    await web.close();
  }
  return times;
}

async function sourcesMemory(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().rss;
  const feed = new FeedService({ store: createSignalStore({ signalCount: 0 }), tickMs: 1_000 });
  for (let i = 0; i < 10_000; i += 1) await feed.add({ id: `source-${i}`, name: `Regional retail feed ${i}`, kind: 'rss', url: `https://feeds${i % 500}.example/retail/${i}.xml`, cadence_s: 900, paused: true });
  feed.start();
  gc?.();
  const after = process.memoryUsage().rss;
  void feed.close();
  return Math.round(((after - before) / 1_048_576) * 10) / 10;
}

/** Stories and their retellings (same story, edited), against same-template stories about others. */
function labelledStories(): Array<{ story: number; text: string }> {
  const templates = [
    (r: string, c: string, n: number) => `${r} opens ${n} stores in ${c}. The retailer said the new stores in ${c} take its footprint in the region past ${n * 4}, with more planned before the festive season.`,
    (r: string, c: string, n: number) => `${r} reports ${n}% revenue growth in Q2. Revenue rose to ₹${n * 110} crore, helped by strong demand in ${c} and other large cities, the company told the exchange.`,
    (r: string, c: string, n: number) => `${r} raises ₹${n * 25} crore to expand in ${c}. The funding round was led by existing investors and will go into new dark stores and warehouses around ${c}.`,
    (r: string, c: string, n: number) => `${r} shuts ${n} loss-making outlets in ${c}. The closures follow a review of store economics; staff will be moved to nearby branches, the company said.`,
    (r: string, c: string, n: number) => `${r} partners with a payments firm for ${c} shoppers. Customers in ${c} will get ${n}% cashback on their first orders under the tie-up announced on Monday.`,
  ];
  const retellings = [
    (text: string) => `${text} (Reporting by the retail desk.)`,
    (text: string) => text.replace('. ', ', it said on Tuesday. '),
    (text: string) => {
      const [first, ...rest] = text.split('. ');
      return `${rest.join('. ')} ${first}.`;
    },
  ];
  const items: Array<{ story: number; text: string }> = [];
  let story = 0;
  for (const [t, template] of templates.entries()) {
    for (let k = 0; k < 8; k += 1) {
      const text = template(RETAILERS[(t * 3 + k) % RETAILERS.length]!, CITIES[(t + k * 3) % CITIES.length]!, 10 + t * 7 + k * 3);
      items.push({ story, text });
      for (const retell of retellings.slice(0, 1 + (k % 3))) items.push({ story, text: retell(text) });
      story += 1;
    }
  }
  return items;
}

function dedupFigures(): { precision: number; recall: number; stories: number; items: number; truePairs: number } {
  const items = labelledStories();
  const index = new NearDuplicateIndex(0.7);
  const clusters = items.map((item, i) => index.add(`item-${i}`, item.text));
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (let a = 0; a < items.length; a += 1) {
    for (let b = a + 1; b < items.length; b += 1) {
      const same = items[a]!.story === items[b]!.story;
      const predicted = index.cluster(`item-${a}`) === index.cluster(`item-${b}`) || clusters[a] === clusters[b];
      if (same && predicted) tp += 1;
      else if (!same && predicted) fp += 1;
      else if (same && !predicted) fn += 1;
    }
  }
  return { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn), stories: new Set(items.map((item) => item.story)).size, items: items.length, truePairs: tp + fn };
}

export async function benchIngest(): Promise<IngestBenchResult> {
  const memory = await sourcesMemory();
  const loadBefore = loadavg()[0]!;
  const learningOff = await ingestionRun(false);
  const learningOn = await ingestionRun(true);
  const loadAfter = loadavg()[0]!;
  const times = (await fetchToAnswerable(20)).sort((a, b) => a - b);
  const dedup = dedupFigures();
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  return {
    items_per_s: learningOn.items_per_s,
    items_per_s_learning_off: learningOff.items_per_s,
    learned_entities: learningOn.learned_entities,
    load_average: { before: Math.round(loadBefore * 100) / 100, after: Math.round(loadAfter * 100) / 100 },
    fetch_to_answerable_p95_ms: times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]!,
    fetch_to_answerable_samples: times.length,
    rss_mb_10k_sources: memory,
    dedup_precision: round(dedup.precision),
    dedup_recall: round(dedup.recall),
    dedup_pairs: { stories: dedup.stories, items: dedup.items, true_pairs: dedup.truePairs },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // CLARITY_INGEST_ONLY=items: the two ingestion runs alone (the figure issue 43 asks for).
  if (process.env.CLARITY_INGEST_ONLY === 'items') {
    const before = loadavg()[0]!;
    const [off, on] = [await ingestionRun(false), await ingestionRun(true)];
    process.stdout.write(`${JSON.stringify({ items_per_s: on.items_per_s, items_per_s_learning_off: off.items_per_s, learned_entities: on.learned_entities, load_average: { before, after: loadavg()[0] } }, null, 2)}\n`);
    process.exit(0);
  }
  const ingest = await benchIngest();
  process.stdout.write(`${JSON.stringify(ingest, null, 2)}\n`);
  const file = 'bench/results/latest.json';
  const saved = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<string, unknown>;
  await writeFile(file, `${JSON.stringify({ ...saved, ingest }, null, 2)}\n`);
  // The in-process services' shared in-memory database holds the event loop open until closed.
  await closeMemoryDatabase();
}
