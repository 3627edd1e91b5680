/**
 * Ranked Discover's index beside the table (SignalSearchIndex: BM25 + boosts, pruned top-k over
 * compressed postings, decision 0040): p95 per question at 150 hits, its heap and build time, over
 * the generated corpus the storage bench loads. `STORAGE_ONLY=ranking npm run bench:storage` runs it
 * alone (STORAGE_SIGNALS=100000 for a trial); bench/results/storage-ranking-latest.json.
 */
import { writeFile } from 'node:fs/promises';
import { generateCorpus, type CorpusSignal } from '../../src/service/corpus/generator';
import { SignalSearchIndex } from '../../src/service/retrieval/search-index';

export const RANKING_GOALS = { p95_ms: 50, heap_mb: 500 } as const;
/** Discover's `q` questions, as the storage bench asks them. */
export const RANKING_QUESTIONS = [
  'How fast is DMart growing?',
  'Which stores did Zudio open in Pune this quarter?',
  'Latest quick commerce funding rounds',
  'Reliance Retail results Q2 FY27',
  'What is happening with grocery pricing in Bengaluru?',
  'Store closures in fashion retail',
  'Blinkit expansion in Delhi',
  'How are electronics retailers hiring?',
  'Regulation affecting e-commerce in India',
  'Tata Cliq partnership news',
];

export interface RankingFigures {
  p50_ms: number;
  p95_ms: number;
  build_s: number;
  heap_mb: number;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const round = (n: number): number => Math.round(n * 10) / 10;

/** Builds the index over `signals` (already in memory, not counted) and times 50 ranked questions after a warm-up. */
export function measureRanking(signals: readonly CorpusSignal[]): { figures: RankingFigures; index: SignalSearchIndex } {
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const started = performance.now();
  const index = new SignalSearchIndex(signals);
  const buildMs = performance.now() - started;
  global.gc?.();
  // Typed arrays' backing stores live outside the JS heap: both are the index's memory.
  const heapMb = (process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore) / 2 ** 20;
  const now = Date.parse('2026-11-01T00:00:00Z');
  for (const question of RANKING_QUESTIONS) index.search(question, { now, limit: 150 });
  const times: number[] = [];
  for (let i = 0; i < 50; i += 1) {
    const at = performance.now();
    index.search(RANKING_QUESTIONS[i % RANKING_QUESTIONS.length]!, { now, limit: 150 });
    times.push(performance.now() - at);
  }
  return { index, figures: { p50_ms: round(percentile(times, 50)), p95_ms: round(percentile(times, 95)), build_s: round(buildMs / 1000), heap_mb: Math.round(heapMb) } };
}

/** `STORAGE_ONLY=ranking npm run bench:storage`: this figure alone, beside its goals. */
export async function benchRankingOnly(loadavg: () => number): Promise<{ signals: number; load_average: { start: number; end: number }; index_beside: RankingFigures }> {
  const count = Number(process.env.STORAGE_SIGNALS ?? 1_000_000);
  const loadStart = loadavg();
  console.log(`  generating ${count.toLocaleString('en-IN')} signals…`);
  const signals = generateCorpus({ signalCount: count }).signals;
  const { figures } = measureRanking(signals);
  const result = { measured_at: new Date().toISOString(), signals: count, load_average: { start: loadStart, end: loadavg() }, goals: RANKING_GOALS, index_beside: figures };
  await writeFile('bench/results/storage-ranking-latest.json', `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `\nRanked Discover over ${count.toLocaleString('en-IN')} signals (index beside, 150 hits): p95 ${figures.p95_ms} ms (p50 ${figures.p50_ms}; goal ≤ ${RANKING_GOALS.p95_ms}), ` +
      `memory ${figures.heap_mb} MB (goal ≤ ${RANKING_GOALS.heap_mb}), built in ${figures.build_s} s; load average ${result.load_average.start} → ${result.load_average.end}`,
  );
  return result;
}
