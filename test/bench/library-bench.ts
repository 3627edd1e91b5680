/**
 * Library search with 10,000 saved items: opening time, then p50/p95 per query for typical
 * queries, beside a baseline in the same run (a linear scan of the same items' text).
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibraryStore } from '../../src/main/services/library-store';
import { generateCorpus } from '../../src/service/corpus/generator';
import { LIBRARY_FORMAT_VERSION, type LibraryItem } from '../../src/shared/library';

export interface LibraryBenchResult {
  items: number;
  open_ms: number;
  queries: Array<{ query: string; p50_ms: number; p95_ms: number; baseline_p50_ms: number; results: number }>;
}

const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const round = (n: number): number => Math.round(n * 1000) / 1000;

export async function benchLibrary(count = 10_000): Promise<LibraryBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-libbench-'));
  try {
    const corpus = generateCorpus({ signalCount: count * 3 });
    const names = new Map(corpus.sources.map((s) => [s.id, s.name]));
    await mkdir(join(dir, 'library'), { recursive: true });
    const items: LibraryItem[] = [];
    for (let i = 0; i < count; i += 1) {
      const cited = corpus.signals.slice(i * 3, i * 3 + 3);
      const item: LibraryItem = {
        formatVersion: LIBRARY_FORMAT_VERSION,
        id: `lib_${i.toString(16).padStart(16, '0')}`,
        kind: i % 5 === 0 ? 'report' : 'answer',
        title: cited[0]!.title,
        tags: i % 7 === 0 ? ['board'] : [],
        createdAt: cited[0]!.published_at,
        savedAt: cited[0]!.published_at,
        updatedAt: cited[0]!.published_at,
        markdown: cited.map((s) => `- ${s.summary} [${s.id}]`).join('\n'),
        citations: cited.map((s) => ({ id: s.id, title: s.title, source_id: s.source_id, source_name: names.get(s.source_id), published_at: s.published_at, url: s.url, snippet: s.summary, detail: { type: s.type, body: s.body, entities: s.entities, metrics: s.metrics, sourceKind: null, healthWhenCited: 'healthy', itemsWhenCited: 5, citedAt: s.published_at } })),
        meta: {},
        deletedAt: null,
      };
      items.push(item);
      await writeFile(join(dir, 'library', `${item.id}.json`), JSON.stringify(item));
    }
    const started = performance.now();
    const store = await LibraryStore.open(dir);
    const openMs = performance.now() - started;
    const queries = ['quick commerce Bengaluru', 'Tanishq', 'ET Retail', 'dark stores', 'zudio pune', 'revenue growth'];
    const out: LibraryBenchResult['queries'] = [];
    for (const query of queries) {
      const times: number[] = [];
      const baseline: number[] = [];
      let results = 0;
      for (let run = 0; run < 60; run += 1) {
        let t = performance.now();
        results = store.search({ text: query }).total;
        times.push(performance.now() - t);
        t = performance.now();
        const terms = query.toLowerCase().split(' ');
        items.filter((item) => terms.every((term) => `${item.title} ${item.markdown} ${item.citations.map((c) => c.source_name).join(' ')}`.toLowerCase().includes(term)));
        baseline.push(performance.now() - t);
      }
      out.push({ query, p50_ms: round(percentile(times, 50)), p95_ms: round(percentile(times, 95)), baseline_p50_ms: round(percentile(baseline, 50)), results });
    }
    return { items: store.size, open_ms: round(openMs), queries: out };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('library-bench.ts')) {
  const result = await benchLibrary();
  console.log(`Library search over ${result.items} items (opened in ${result.open_ms} ms)\n`);
  console.log('| Query | p50 (ms) | p95 (ms) | Baseline linear scan p50 (ms) | Results |\n|---|---:|---:|---:|---:|');
  for (const q of result.queries) console.log(`| ${q.query} | ${q.p50_ms} | ${q.p95_ms} | ${q.baseline_p50_ms} | ${q.results} |`);
}
