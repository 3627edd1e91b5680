/**
 * `npm run bench`: every benchmark on this machine, each beside its baseline in the same run,
 * and each figure beside the target of the performance issue. Writes bench/results/latest.json
 * and bench/results/latest.md. Figures, never assertions.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { benchApp } from './app-bench';
import { benchLibrary } from './library-bench';
import { benchRenderer } from './renderer-bench';
import { benchService } from './service-bench';

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, Chromium (Debian)`;
const measuredAt = new Date().toISOString();

console.log('Service benchmark…');
const service = await benchService();
console.log('Library benchmark…');
const library = await benchLibrary();
console.log('Renderer benchmark (harness, three renderers)…');
const renderer = await benchRenderer();
console.log('App benchmark (browser host)…');
const app = await benchApp();

const verdict = (value: number, target: number): string => (value <= target ? 'met' : `missed by ${(value - target).toFixed(1)}`);
const r = renderer.renderCost;
const f = renderer.longFrames;
const h = renderer.heap;
const rows: string[] = [
  '| # | Figure | Clarity | react-markdown (whole answer per update) | streamdown | Target | Clarity vs target |',
  '|---|---|---:|---:|---:|---|---|',
  `| 1 | Client-added latency, median / p95 (ms, ${app.latencyMs.n} batches) | ${app.latencyMs.median} / ${app.latencyMs.p95} | | | p95 ≤ 20 | ${verdict(app.latencyMs.p95, 20)} |`,
  `| 2 | Render cost per delta at 4 KB, median / p95 (ms) | ${r.clarity.kb4.median} / ${r.clarity.kb4.p95} | ${r['react-markdown'].kb4.median} / ${r['react-markdown'].kb4.p95} | ${r.streamdown.kb4.median} / ${r.streamdown.kb4.p95} | | |`,
  `| 2 | Render cost per delta at 40 KB, median / p95 (ms) | ${r.clarity.kb40.median} / ${r.clarity.kb40.p95} | ${r['react-markdown'].kb40.median} / ${r['react-markdown'].kb40.p95} | ${r.streamdown.kb40.median} / ${r.streamdown.kb40.p95} | p95 ≤ 1 | ${verdict(r.clarity.kb40.p95, 1)} |`,
  `| 2 | 40 KB / 4 KB ratio (p95) | ${r.clarity.ratioP95} | ${r['react-markdown'].ratioP95} | ${r.streamdown.ratioP95} | ≤ 1.5 | ${verdict(r.clarity.ratioP95, 1.5)} |`,
  `| 3 | Frames over 16.7 ms / missing a vsync (> 25 ms), 200 deltas/s into 500 answers | ${f.clarity.overBudgetShare} / ${f.clarity.missedVsyncShare} | ${f['react-markdown'].overBudgetShare} / ${f['react-markdown'].missedVsyncShare} | ${f.streamdown.overBudgetShare} / ${f.streamdown.missedVsyncShare} | < 1 % | ${verdict(f.clarity.missedVsyncShare * 100, 1)} (missed-vsync share, %) |`,
  `| 3 | Longest task while streaming (ms) | ${f.clarity.longestTaskMs} | ${f['react-markdown'].longestTaskMs} | ${f.streamdown.longestTaskMs} | ≤ 50 | ${verdict(f.clarity.longestTaskMs, 50)} |`,
  `| 4 | Renderer heap after GC, 500 answers (MB) | ${h.clarity.mb500} | ${h['react-markdown'].mb500} | ${h.streamdown.mb500} | ≤ 100 | ${verdict(h.clarity.mb500, 100)} |`,
  `| 4 | Heap growth per extra answer (MB) | ${h.clarity.growthPerAnswerMb} | ${h['react-markdown'].growthPerAnswerMb} | ${h.streamdown.growthPerAnswerMb} | ≤ 1 | ${verdict(h.clarity.growthPerAnswerMb, 1)} |`,
  `| 5 | Open a 1,000-answer conversation (ms) | ${renderer.history.open1000Ms} | | | ≤ 100 | ${verdict(renderer.history.open1000Ms, 100)} |`,
  `| 5 | Append to it, render and layout (median of 10): a question, as asked / a whole 4 KB answer at once (ms) | ${renderer.history.appendMs} / ${renderer.history.appendAnswerMs} | | | ≤ 3 | ${verdict(renderer.history.appendMs, 3)} (question) |`,
  `| 5 | Keystroke to next frame while streaming, median / p95 (ms) | ${renderer.history.keystroke.median} / ${renderer.history.keystroke.p95} | | | ≤ 16 | ${verdict(renderer.history.keystroke.p95, 16)} |`,
  `| 6 | Health table, 5,000 sources: mount / sort (one click's work, median and worst of 12) / filter (ms) | ${app.healthTable.mountMs} / ${app.healthTable.sortMs} and ${app.healthTable.sortP95Ms} / ${app.healthTable.filterMs} | | | mount ≤ 50, sort ≤ 16 | mount ${verdict(app.healthTable.mountMs, 50)}, sort ${verdict(app.healthTable.sortMs, 16)} |`,
  `| 7 | Browser host start-up: shell painted / interactive, median (ms) | ${app.startup.shellPaintedMs.median} / ${app.startup.interactiveMs.median} | | | painted ≤ 500 | ${verdict(app.startup.shellPaintedMs.median, 500)} |`,
];
const libraryTable = [
  `Library search over ${library.items.toLocaleString('en-IN')} saved items (opened in ${library.open_ms} ms)`,
  '',
  '| Query | p50 (ms) | p95 (ms) | Baseline: linear scan p50 (ms) | Results |',
  '|---|---:|---:|---:|---:|',
  ...library.queries.map((q) => `| ${q.query} | ${q.p50_ms} | ${q.p95_ms} | ${q.baseline_p50_ms} | ${q.results} |`),
].join('\n');

const markdown = `# Clarity benchmarks\n\nMeasured ${measuredAt} on ${machine}.\n\n## Renderer and app\n\n${rows.join('\n')}\n\n## Local service\n\n${service.table}\n\n## Library\n\n${libraryTable}\n`;
await mkdir('bench/results', { recursive: true });
await writeFile('bench/results/latest.json', `${JSON.stringify({ measured_at: measuredAt, machine, renderer, app, service: service.result, library }, null, 2)}\n`);
await writeFile('bench/results/latest.md', markdown);
console.log(`\n${markdown}`);
