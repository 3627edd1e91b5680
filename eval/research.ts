/**
 * `npm run eval:research` — research reports scored like answers (issue 46) on ≥ 30 topics, in
 * process on the evaluation's fixed corpus and clock: the share of sentences the claim verifier
 * supported (target ≥ 98 % per report), and the entity score (the share of cited signals about
 * what the topic names: its retailer, segment, city or tier; target ≥ 90 %). Then what changed:
 * for each topic a signal about it is added (a new report of one the first report cited, its
 * figures moved 10 %), the topic run again against the first run's snapshot, and the added signal
 * must be among the second run's `changes.new_signals` (target: every one) and cited in its "What
 * changed" section; moved figures found are counted. Writes eval/results/research.{json,md}.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSignalStore } from '../src/service/server';
import { writeReport, type WrittenReport } from '../src/service/research/report-writer';
import type { CorpusSignal } from '../src/service/world/signal-types';
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
  /** The signal added before the second run (null: the first report cited nothing to build it from). */
  added: string | null;
  /** The second run's changes listed the added signal among its new signals. */
  changeFound: boolean;
  /** …and its "What changed" section cites it. */
  changeCited: boolean;
  /** Figures the added signal moved, and how many of them the second run's changed_figures lists. */
  movedFigures: number;
  movedFound: number;
}

/** A new report about the topic: a cited signal published again later with its figures moved 10 %. */
function addedSignal(from: CorpusSignal, index: number, at: number): CorpusSignal {
  const id = `sig_${(0xe7a1c0de00000000n + BigInt(index)).toString(16)}`;
  const metrics = Object.fromEntries(Object.entries(from.metrics).map(([key, value]) => [key, Math.round(value * 1.1 * 100) / 100]));
  const { event_id: _event, ...rest } = from;
  return { ...rest, id, slug: `${from.slug}-update-${index}`, url: `${from.url}#update-${index}`, title: `${from.title} (update)`, published_at: new Date(at).toISOString(), metrics };
}

export async function evaluateResearch(): Promise<{ items: ResearchEvalItem[]; passed: boolean; markdown: string }> {
  const store = createSignalStore({ anchor: EVAL_ANCHOR, now: () => EVAL_NOW });
  const items: ResearchEvalItem[] = [];
  const topics = researchTopics();
  const firstRuns: Array<WrittenReport | null> = [];
  for (const topic of topics) {
    const report = await writeReport({ topic, preset: 'standard', store, settings: { unsupportedClaims: 'remove' }, now: EVAL_NOW, previous: null, progress: async () => undefined });
    firstRuns.push(report);
    const frame = understandTopic(topic, EVAL_NOW, (word) => store.index.hasTerm(word));
    const citations = report?.citations ?? [];
    const about = citations.filter((signal) => aboutTopic(signal, frame)).length;
    const sentences = report?.verification.sentences ?? 0;
    const supported = report?.verification.supported ?? 0;
    items.push({ topic, written: Boolean(report), sentences, supported, verifiedShare: sentences ? supported / sentences : 1, citations: citations.length, entityShare: citations.length ? about / citations.length : 1, added: null, changeFound: false, changeCited: false, movedFigures: 0, movedFound: 0 });
  }
  // What changed: every first run was written before any signal is added; each topic's added
  // signal is the newest yet (a minute apart), as this week's news would be.
  const later = EVAL_NOW + 60 * 60_000;
  for (const [index, topic] of topics.entries()) {
    const first = firstRuns[index];
    const item = items[index]!;
    const frame = understandTopic(topic, EVAL_NOW, (word) => store.index.hasTerm(word));
    const source = first?.citations.filter((signal) => aboutTopic(signal, frame)).sort((a, b) => Object.keys(b.metrics).length - Object.keys(a.metrics).length)[0];
    if (!first || !source) continue;
    const at = later + index * 60_000;
    const added = addedSignal(source, index, at);
    store.addSignal(added, false);
    const second = await writeReport({ topic, preset: 'standard', store, settings: { unsupportedClaims: 'remove' }, now: at + 60_000, previous: { id: `first-${index}`, createdAt: new Date(EVAL_NOW).toISOString(), snapshot: first.snapshot }, progress: async () => undefined });
    const changes = second?.changes;
    const opening = second?.markdown.split('\n## ')[1] ?? '';
    item.added = added.id;
    item.changeFound = Boolean(changes?.new_signals.some((signal) => signal.id === added.id));
    item.changeCited = /^What changed since/.test(opening) && opening.includes(`[${added.id}]`);
    // A zero moved 10 % is still zero: not a change to find.
    const moved = first.snapshot.figures.filter((figure) => figure.citation === source.id && figure.value !== 0);
    item.movedFigures = moved.length;
    item.movedFound = moved.filter((figure) => changes?.changed_figures.some((changed) => changed.subject === figure.subject && changed.metric === figure.metric && changed.citations.includes(added.id))).length;
  }
  const written = items.filter((item) => item.written);
  const withAdded = items.filter((item) => item.added !== null);
  const changesFound = withAdded.filter((item) => item.changeFound).length;
  const changesCited = withAdded.filter((item) => item.changeCited).length;
  const moved = withAdded.reduce((sum, item) => sum + item.movedFigures, 0);
  const movedFound = withAdded.reduce((sum, item) => sum + item.movedFound, 0);
  const passed =
    written.length === items.length &&
    written.every((item) => item.verifiedShare >= VERIFIED_TARGET && item.entityShare >= ENTITY_TARGET) &&
    withAdded.length === items.length &&
    changesFound === withAdded.length;
  const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;
  const total = (key: 'sentences' | 'supported'): number => written.reduce((sum, item) => sum + item[key], 0);
  const markdown = [
    '## Research reports',
    '',
    `${items.length} topics (standard preset, extractive composer), ${written.length} written. Sentences supported: ${pct(total('supported') / Math.max(1, total('sentences')))} overall, lowest report ${pct(Math.min(...written.map((item) => item.verifiedShare)))} (target ≥ ${pct(VERIFIED_TARGET)} each). Citations about the topic's entities: lowest ${pct(Math.min(...written.map((item) => item.entityShare)))} (target ≥ ${pct(ENTITY_TARGET)}). ${passed ? 'Every target met.' : 'SOME TARGETS MISSED.'}`,
    '',
    `What changed: a signal about the topic added before a second run of each of ${items.length} topics (${withAdded.length} added): found among the new signals ${changesFound} of ${withAdded.length} (target: every one), cited in the "What changed" section ${changesCited} of ${withAdded.length}; figures the added signals moved, listed as changed figures: ${movedFound} of ${moved}.`,
    '',
    '| Topic | Sentences | Supported | Citations | About the topic | Added signal found | Cited in What changed | Moved figures found |',
    '|---|---:|---:|---:|---:|:---:|:---:|---:|',
    ...items.map((item) => `| ${item.topic} | ${item.sentences} | ${pct(item.verifiedShare)} | ${item.citations} | ${pct(item.entityShare)} | ${item.added ? (item.changeFound ? 'yes' : 'NO') : '—'} | ${item.added ? (item.changeCited ? 'yes' : 'no') : '—'} | ${item.movedFound} of ${item.movedFigures} |`),
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
