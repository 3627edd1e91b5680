/**
 * Ingestion through the feed service's own path (issue 43): one fetch of a 10,000-item feed over
 * HTTP, read, made into signals, entities learned into the process's world registry (as the
 * service does: item tagging reads what was learned), clustered, corroborated and stored.
 * Run in a process of its own by ingest-bench.ts, once with learning on and once off, so the
 * invented retailers stay out of the bench's world; prints one JSON line.
 * `CLARITY_INGEST_LEARNING=0` turns learning off.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FeedService } from '../../src/service/feed/feed-service';
import { createSignalStore } from '../../src/service/server';
import { worldEntities } from '../../src/service/world/entity-registry';

const RETAILERS = ['Zudio', 'DMart', 'Blinkit', 'Zepto', 'Nykaa', 'Croma', 'Tanishq', 'Kalyan Jewellers', 'MedPlus', 'V-Mart', 'Westside', 'Reliance Trends'];
/** Made-up retailer names (1,000 of them, one every tenth item): the learner keeps each. */
const PREFIXES = ['Kav', 'Mal', 'Sut', 'God', 'Ara', 'Cham', 'Narm', 'Kos', 'Per', 'Tap', 'Ban', 'Mah', 'Tees', 'Pam', 'Sab', 'Kris', 'Bhim', 'Tung', 'Hoog', 'Gand', 'Yam', 'Bet', 'Son', 'Ken', 'Lun', 'Dam', 'Sar', 'Ghag', 'Rav', 'Jhel'];
const SUFFIXES = ['eri', 'adi', 'ara', 'ana', 'ita', 'oda', 'uri', 'esh', 'ika', 'ora', 'anta', 'ilo', 'usa', 'ema', 'ova', 'ari', 'undi', 'ela', 'ino', 'aya', 'osh', 'ampa', 'ira', 'ule', 'enda', 'isha', 'omo', 'aka', 'una', 'eva', 'ipa', 'ota', 'ansa', 'ida'];
const CITIES = ['Pune', 'Bengaluru', 'Chennai', 'Jaipur', 'Lucknow', 'Kochi', 'Indore', 'Nagpur', 'Surat', 'Patna'];
export const INGEST_ITEMS = 10_000;

/** The bench's feed: retail news items, every tenth about a retailer nobody taught the service. */
export function benchFeed(count = INGEST_ITEMS): string {
  const items = Array.from({ length: count }, (_, i) => {
    const retailer = RETAILERS[i % RETAILERS.length]!;
    const city = CITIES[(i * 7) % CITIES.length]!;
    const learnt = `${PREFIXES[(i / 10) % PREFIXES.length]!}${SUFFIXES[Math.floor(i / 10 / PREFIXES.length) % SUFFIXES.length]!} Mart`;
    if (i % 10 === 0) return `<item><title>${learnt} opens ${(i % 90) + 5} stores in ${city}</title><link>https://news.example/retail/${i}</link><guid>${i}</guid><pubDate>${new Date(Date.UTC(2026, 9, 1) + i * 60_000).toUTCString()}</pubDate><description>&lt;p&gt;Value retailer ${learnt} Ltd said revenue grew ${(i % 30) + 2}% to ₹${(i % 900) + 100} crore in ${city}.&lt;/p&gt;</description></item>`;
    return `<item><title>${retailer} opens ${(i % 90) + 5} stores in ${city} (${i})</title><link>https://news.example/retail/${i}?utm_source=rss</link><guid>${i}</guid><pubDate>${new Date(Date.UTC(2026, 9, 1) + i * 60_000).toUTCString()}</pubDate><description>&lt;p&gt;${retailer} said revenue grew ${(i % 30) + 2}% to ₹${(i % 900) + 100} crore in ${city}, item ${i}, as it added stores across the state.&lt;/p&gt;</description></item>`;
  }).join('');
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Bench</title><link>https://news.example/</link>${items}</channel></rss>`;
}

export interface IngestPathResult {
  items_per_s: number;
  items: number;
  learning: boolean;
  /** Entities the world registry learned from the fetch (0 with learning off). */
  learned_entities: number;
  /** Signals the store holds after the fetch. */
  signals: number;
}

async function measure(learning: boolean): Promise<IngestPathResult> {
  const body = Buffer.from(benchFeed());
  const web = createServer((request, response) => {
    if (request.url === '/feed.xml') response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(body);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(web.address() as AddressInfo).port}`;
  const store = createSignalStore({ signalCount: 0 });
  const feed = new FeedService({ store, allowedPrivateHosts: [host], politeIntervalMs: 0, maxItemsPerFetch: INGEST_ITEMS, learnEntities: learning });
  try {
    await feed.add({ id: 'bench', name: 'Bench', kind: 'rss', url: `http://${host}/feed.xml`, cadence_s: 86_400 });
    // Warm: robots.txt read and the readers loaded, so the timed fetch is the items' work.
    await feed.preview({ name: 'Bench', kind: 'rss', url: `http://${host}/feed.xml` });
    const started = performance.now();
    await feed.fetchNow('bench');
    const seconds = (performance.now() - started) / 1000;
    const view = feed.source('bench')!;
    if (view.state.consecutive_failures > 0) throw new Error(`The bench fetch failed: ${view.state.last_error?.message}`);
    return { items_per_s: Math.round(view.state.items_total / seconds), items: view.state.items_total, learning, learned_entities: worldEntities.learned().length, signals: store.index.size };
  } finally {
    await feed.close();
    await new Promise((resolve) => web.close(resolve));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await measure(process.env.CLARITY_INGEST_LEARNING !== '0');
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
