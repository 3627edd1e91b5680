/**
 * `npm run eval` — starts the real local service (fixed corpus anchor and clock, so the run is
 * reproducible), asks every golden question over HTTP, and writes eval/results/latest.{json,md}.
 * Exits non-zero when a metric misses its target (the forecast backtest's interval coverage
 * included). `--subset N` asks every N-th question only. `--section feed_conformance` (or
 * `article_reader`) runs that section alone, without the service (they read fixtures in process).
 * The open_world section (eval/open-world.ts) runs after the golden questions on its own service
 * and fixture feed; `--only open_world` runs just it (printed, not written).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { evaluateForecasts } from './forecast';
import { evaluateOpenWorld } from './open-world';
import { EVAL_NOW, startEvalService } from './service';
import { evaluate, markdownTable } from './evaluate';
import { buildGoldenSet } from './golden';
import { evaluateVerification, verificationMarkdown } from './verification';
import { closeMemoryDatabase } from '../src/service/store/embedded';
import { readerSections } from './reader-sections';

const { values } = parseArgs({ options: { subset: { type: 'string' }, section: { type: 'string' }, 'no-write': { type: 'boolean', default: false }, only: { type: 'string' } } });
const started = Date.now();
if (values.section) {
  const sections = readerSections(values.section);
  process.stdout.write(`${sections.markdown}\n(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  process.exit(sections.passed ? 0 : 1);
}
if (values.only === 'open_world') {
  const openWorld = await evaluateOpenWorld();
  process.stdout.write(`${openWorld.line}\n${openWorld.misses.map((miss) => `- ${miss}`).join('\n')}\n(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  await closeMemoryDatabase();
  process.exit(openWorld.passed ? 0 : 1);
}
const readers = readerSections();
const service = await startEvalService();
try {
  const golden = buildGoldenSet(service.store.truth);
  const every = Number(values.subset ?? 1);
  const items = golden.filter((_, index) => index % every === 0);
  const report = await evaluate(service.url, items, (id) => service.store.getSignal(id), service.store.truth.anchor);
  const table = markdownTable(report);
  // The backtest runs on the same corpus, in process: it needs no HTTP and takes a second.
  const forecasts = evaluateForecasts(service.store, EVAL_NOW);
  // Claim verification: a labelled set built from the corpus, and the composer's own sentences.
  const verification = evaluateVerification(service.store, {
    sentences: report.items.reduce((sum, item) => sum + (item.verification?.sentences ?? 0), 0),
    kept: report.items.reduce((sum, item) => sum + (item.verification ? item.verification.sentences - item.verification.removed.length : 0), 0),
  });
  const failures = report.items.filter((item) => item.problems.length > 0);
  // After the golden questions: the entities it learns join the process's world registry.
  const openWorld = await evaluateOpenWorld();
  const markdown = [
    '# Answer evaluation — latest run',
    '',
    `${report.questions} golden questions against the local service over HTTP (corpus anchor ${report.anchor.slice(0, 10)}, seed ${service.store.truth.seed}), ${report.passed && forecasts.passed ? 'every target met' : 'SOME TARGETS MISSED'}.`,
    '',
    table,
    '',
    forecasts.line,
    '',
    verificationMarkdown(verification),
    '',
    readers.markdown,
    '',
    openWorld.line,
    '',
    `Questions by kind: ${Object.entries(countBy(report.items.map((item) => item.category))).map(([kind, n]) => `${kind} ${n}`).join(', ')}.`,
    '',
    failures.length === 0 ? 'No question had a problem.' : `## Questions with problems (${failures.length})\n\n${failures.map((item) => `- \`${item.id}\` — ${item.question}: ${item.problems.join('; ')}`).join('\n')}`,
    '',
  ].join('\n');
  if (!values['no-write']) {
    const dir = join(dirname(fileURLToPath(import.meta.url)), 'results');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'latest.json'), `${JSON.stringify({ ...report, verification, open_world: openWorld }, null, 2)}\n`);
    await writeFile(join(dir, 'latest.md'), markdown);
  }
  process.stdout.write(`${markdown}\n(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  process.exitCode = report.passed && forecasts.passed && verification.passed && readers.passed && openWorld.passed ? 0 : 1;
} finally {
  await service.close();
  // The in-process service's in-memory database is shared by the process: closed, the eval ends by itself.
  await closeMemoryDatabase();
}

function countBy(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}
