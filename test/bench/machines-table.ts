/**
 * `npm run bench:table`: the README's performance table per machine kind, regenerated from the
 * result files bench/results/<cpu-slug>.json that `npm run bench` writes (one per CPU model: the
 * latest full run on that kind). Each machine kind is a column: the median run's judged number,
 * the min–max over its runs, and whether the goal is met. Measures nothing. `npm run bench` calls
 * it at its end; run it alone after copying in another machine's result file.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { judgedOf, type RunsFigure } from './runs';
import type { Figure } from './figures';

export interface MachineResult {
  machine_kind: string;
  cpu: string;
  cores: number;
  machine: string;
  measured_at: string;
  runs: number;
  figures: Record<string, RunsFigure | Figure>;
}

/** Short row names for the figures the issues set goals for (others keep their own label). */
const SHORT: Record<string, string> = {
  client_latency_p95_ms: 'Client-added latency p95, ratio to the bare page',
  append_answer_worst_ms: 'Append a 4 KB answer to 1,000, worst of 12, script time (ms)',
  render_cost_40kb_p95_ms: 'Render per delta at 40 KB, script p95 (ms)',
  service_200_streams_first_byte_p95_ms: '200 streams, first byte p95, ratio to plain Node',
  keystroke_p95_ms: 'Keystroke → paint p95, ratio to a bare textarea',
  cold_start_composer_ms: 'Cold start to a composer taking a key, gap to the floor (ms)',
  library_first_page_ms: 'Library, 10,000 items: first page, first open (ms)',
  library_first_page_vs_listing_ms: 'Library: first page, first open, vs listing floor (ms)',
  library_search_usable_ms: 'Library: search usable after a later open (ms)',
  library_search_p95_ms: 'Library search p95, worst query (ms)',
  soak_heap_growth_pct_per_h: 'Soak: JS heap growth after warm-up (%/h)',
  soak_dom_growth_pct_per_h: 'Soak: DOM node growth (%/h)',
  soak_detached_trees: 'Soak: detached DOM trees at the end',
  soak_scroll_over_share: 'Soak: share of scroll frames over 1.5 × floor',
  soak_keystroke_end_vs_start: 'Soak: keystroke p95 end / start',
};

export async function machineResults(dir = 'bench/results'): Promise<MachineResult[]> {
  const out: MachineResult[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
    const parsed = JSON.parse(await readFile(join(dir, file), 'utf8')) as Partial<MachineResult>;
    // latest.json and the partial files carry no machine_kind: only the per-kind files count.
    if (typeof parsed.machine_kind === 'string' && `${parsed.machine_kind}.json` === file && parsed.figures) out.push(parsed as MachineResult);
  }
  return out;
}

const unit = (on: string, n: number): string => (on === 'ratio' ? `${n} ×` : on === 'gap' ? `${n >= 0 ? '+' : ''}${n}` : String(n));

export function machinesTable(results: MachineResult[]): string {
  if (results.length === 0) return '(no result files per machine kind yet: `npm run bench` writes bench/results/<cpu-slug>.json)';
  const keys = [...new Set(results.flatMap((r) => Object.keys(r.figures)))];
  const header = `| Figure | Goal | ${results.map((r) => `${r.cores} × ${r.cpu} (${r.runs} run${r.runs === 1 ? '' : 's'}, ${r.measured_at.slice(0, 10)})`).join(' | ')} |`;
  const rows = keys.map((key) => {
    const any = results.map((r) => r.figures[key]).find(Boolean)!;
    const cells = results.map((r) => {
      const f = r.figures[key];
      if (!f) return '–';
      const { judged, judgedOn } = judgedOf(f);
      const spread = 'spread' in f && f.runs > 1 ? ` [${unit(judgedOn, f.spread.min)} – ${unit(judgedOn, f.spread.max)}]` : '';
      return `${unit(judgedOn, judged)}${spread} ${f.met ? 'met' : '**missed**'}`;
    });
    return `| ${SHORT[key] ?? any.label} | ${any.goal} | ${cells.join(' | ')} |`;
  });
  const machines = results.map((r) => `- ${r.machine}; measured ${r.measured_at}`);
  return [
    'Each cell: the median run\'s judged number (a ratio to the floor, a value, or a gap to the floor, as the goal reads), [min – max over the runs], and the verdict on the median run.',
    '',
    header,
    `|---|---|${results.map(() => '---').join('|')}|`,
    ...rows,
    '',
    ...machines,
  ].join('\n');
}

/** Rewrites the README's table between <!-- bench-machines --> markers; false if there are none. */
export async function writeMachinesTable(readmePath = 'README.md', dir = 'bench/results'): Promise<boolean> {
  const readme = await readFile(readmePath, 'utf8');
  const marked = /<!-- bench-machines -->[\s\S]*?<!-- \/bench-machines -->/;
  if (!marked.test(readme)) return false;
  await writeFile(readmePath, readme.replace(marked, `<!-- bench-machines -->\n${machinesTable(await machineResults(dir))}\n<!-- /bench-machines -->`));
  return true;
}

if (process.argv[1]?.endsWith('machines-table.ts')) {
  if (!(await writeMachinesTable())) throw new Error('machines-table: README.md has no <!-- bench-machines --> markers');
  console.log(machinesTable(await machineResults()));
}
