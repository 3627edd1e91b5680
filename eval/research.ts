/**
 * `npm run eval:research` — research reports scored like answers (issue 46) on ≥ 30 topics, in
 * process on the evaluation's fixed corpus and clock: the share of sentences the claim verifier
 * supported (target ≥ 98 % per report), and the entity score (the share of cited signals about
 * what the topic names: its retailer, segment, city or tier; target ≥ 90 %). Writes
 * eval/results/research.{json,md}.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSignalStore } from '../src/service/server';
import { writeReport } from '../src/service/research/report-writer';
import { aboutTopic, understandTopic } from '../src/service/research/research-plan';
import { EVAL_ANCHOR, EVAL_NOW } from './service';
import { researchTopics } from './research-topics';

const VERIFIED_TARGET = 0.98;
const ENTITY_TARGET = 0.9;

export interface ResearchEvalItem {
  topic: string;
  written: boolean;
  sentences: number;
  supported: number;
  verifiedShare: number;
  citations: number;
  entityShare: number;
}

export async function evaluateResearch(): Promise<{ items: ResearchEvalItem[]; passed: boolean; markdown: string }> {
  const store = createSignalStore({ anchor: EVAL_ANCHOR, now: () => EVAL_NOW });
  const items: ResearchEvalItem[] = [];
  for (const topic of researchTopics()) {
    const report = await writeReport({ topic, preset: 'standard', store, settings: { unsupportedClaims: 'remove' }, now: EVAL_NOW, previous: null, progress: async () => undefined });
    const frame = understandTopic(topic, EVAL_NOW, (word) => store.index.hasTerm(word));
    const citations = report?.citations ?? [];
    const about = citations.filter((signal) => aboutTopic(signal, frame)).length;
    const sentences = report?.verification.sentences ?? 0;
    const supported = report?.verification.supported ?? 0;
    items.push({ topic, written: Boolean(report), sentences, supported, verifiedShare: sentences ? supported / sentences : 1, citations: citations.length, entityShare: citations.length ? about / citations.length : 1 });
  }
  const written = items.filter((item) => item.written);
  const passed = written.length === items.length && written.every((item) => item.verifiedShare >= VERIFIED_TARGET && item.entityShare >= ENTITY_TARGET);
  const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;
  const total = (key: 'sentences' | 'supported'): number => written.reduce((sum, item) => sum + item[key], 0);
  const markdown = [
    '## Research reports',
    '',
    `${items.length} topics (standard preset, extractive composer), ${written.length} written. Sentences supported: ${pct(total('supported') / Math.max(1, total('sentences')))} overall, lowest report ${pct(Math.min(...written.map((item) => item.verifiedShare)))} (target ≥ ${pct(VERIFIED_TARGET)} each). Citations about the topic's entities: lowest ${pct(Math.min(...written.map((item) => item.entityShare)))} (target ≥ ${pct(ENTITY_TARGET)}). ${passed ? 'Every target met.' : 'SOME TARGETS MISSED.'}`,
    '',
    '| Topic | Sentences | Supported | Citations | About the topic |',
    '|---|---:|---:|---:|---:|',
    ...items.map((item) => `| ${item.topic} | ${item.sentences} | ${pct(item.verifiedShare)} | ${item.citations} | ${pct(item.entityShare)} |`),
  ].join('\n');
  return { items, passed, markdown };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await evaluateResearch();
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results');
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'research.json'), `${JSON.stringify({ passed: result.passed, items: result.items }, null, 2)}\n`);
  await writeFile(join(out, 'research.md'), `${result.markdown}\n`);
  console.log(result.markdown);
  process.exitCode = result.passed ? 0 : 1;
}
