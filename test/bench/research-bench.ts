/**
 * `npm run bench:research` — research run time (issue 46): service time of whole runs (plan,
 * retrieve, write, verify, assemble; no pacing), standard and deep presets, p50/p95 over the
 * evaluation's topics on a warmed store. Goals: standard p95 ≤ 1 s, deep ≤ 3 s on this machine.
 */
import { fileURLToPath } from 'node:url';
import { createSignalStore } from '../../src/service/server';
import { writeReport } from '../../src/service/research/report-writer';
import { researchTopics } from '../../eval/research-topics';

export interface ResearchBenchResult {
  topics: number;
  standard: { p50Ms: number; p95Ms: number; maxMs: number };
  deep: { p50Ms: number; p95Ms: number; maxMs: number };
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

export async function benchResearch(topicCount = 30): Promise<ResearchBenchResult> {
  const now = Date.parse('2026-11-22T10:00:00Z');
  const store = createSignalStore({ anchor: new Date('2026-11-22T00:00:00Z'), now: () => now });
  const topics = researchTopics(topicCount);
  const run = (topic: string, preset: string) => writeReport({ topic, preset, store, settings: { unsupportedClaims: 'remove' }, now, previous: null, progress: async () => undefined });
  for (const topic of topics.slice(0, 3)) await run(topic, 'standard'); // warm the index and the verifier
  const timed = async (preset: string): Promise<ResearchBenchResult['standard']> => {
    const times: number[] = [];
    for (const topic of topics) {
      const started = performance.now();
      await run(topic, preset);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50Ms: Math.round(quantile(times, 0.5)), p95Ms: Math.round(quantile(times, 0.95)), maxMs: Math.round(times.at(-1)!) };
  };
  return { topics: topics.length, standard: await timed('standard'), deep: await timed('deep') };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await benchResearch();
  console.log(`research run service time over ${result.topics} topics:`);
  console.log(`  standard p50 ${result.standard.p50Ms} ms, p95 ${result.standard.p95Ms} ms, max ${result.standard.maxMs} ms (goal p95 ≤ 1000 ms)`);
  console.log(`  deep     p50 ${result.deep.p50Ms} ms, p95 ${result.deep.p95Ms} ms, max ${result.deep.maxMs} ms (goal p95 ≤ 3000 ms)`);
}
