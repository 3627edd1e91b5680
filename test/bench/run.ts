/**
 * `npm run bench`: every benchmark on this machine, each beside its baseline in the same run.
 * Writes bench/results/latest.json and bench/results/latest.md. Figures, never assertions.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { benchLibrary } from './library-bench';
import { benchService } from './service-bench';

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const measuredAt = new Date().toISOString();

console.log('Service benchmark…');
const service = await benchService();
console.log('Library benchmark…');
const library = await benchLibrary();

const libraryTable = [
  `Library search over ${library.items.toLocaleString('en-IN')} saved items (opened in ${library.open_ms} ms)`,
  '',
  '| Query | p50 (ms) | p95 (ms) | Baseline: linear scan p50 (ms) | Results |',
  '|---|---:|---:|---:|---:|',
  ...library.queries.map((q) => `| ${q.query} | ${q.p50_ms} | ${q.p95_ms} | ${q.baseline_p50_ms} | ${q.results} |`),
].join('\n');

const markdown = `# Clarity benchmarks\n\nMeasured ${measuredAt} on ${machine}.\n\n${service.table}\n\n${libraryTable}\n`;
await mkdir('bench/results', { recursive: true });
await writeFile('bench/results/latest.json', `${JSON.stringify({ measured_at: measuredAt, machine, service: service.result, library }, null, 2)}\n`);
await writeFile('bench/results/latest.md', markdown);
console.log(`\n${markdown}`);
