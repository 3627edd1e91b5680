/**
 * Issue 50: figures that hold on any machine. Each client figure is taken over several independent
 * runs (each a new browser, so a new context); the figure reported is the median run's, judged on
 * the number its goal compares (a ratio to the floor, a value, or a gap to the floor), with the
 * spread of that number over the runs and how many samples one run's statistic is taken over.
 * Also what machine kind the run is on (CPU model, cores, load at the start): one result file per
 * kind in bench/results/, so figures from different CPUs stay side by side (machines-table.ts).
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import type { Figure } from './figures';

export interface MachineKind {
  /** File-name form of the CPU model: bench/results/<slug>.json. */
  slug: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  /** One-minute load average when the run started (the machine may be shared). */
  loadAtStart: number;
}

/** The CPU model as the kernel names it ('model name' in /proc/cpuinfo), else as Node does. */
export function cpuModel(): string {
  try {
    const line = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (line?.[1]) return line[1].trim();
  } catch {
    // Not Linux: os.cpus() below.
  }
  return cpus()[0]?.model?.trim() || 'unknown CPU';
}

/** 'Intel(R) Xeon(R) Processor' → 'intel-xeon-processor'; 'AMD EPYC' → 'amd-epyc'. */
export const machineSlug = (cpu: string): string =>
  cpu
    .replace(/\((R|TM|C)\)/gi, ' ')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'unknown-cpu';

export function machineKind(): MachineKind {
  const cpu = cpuModel();
  return { slug: machineSlug(cpu), cpu, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadAtStart: Math.round(loadavg()[0]! * 100) / 100 };
}

export const describeMachine = (m: MachineKind): string => `${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, Chromium (Debian)`;

/** A figure over several runs: the median run's figure, the spread of the judged number, the runs. */
export interface RunsFigure extends Figure {
  judged: number;
  /** What `judged` is: the ratio to the floor, the value itself, or the gap to the floor (value − floor). */
  judgedOn: 'ratio' | 'value' | 'gap' | 'share';
  runs: number;
  /** The judged number in every run, in run order. */
  perRun: number[];
  spread: { min: number; max: number; /** (max − min) ÷ the median run's, in % */ pct: number };
}

/** What a figure's goal compares (figures saved before issue 50 carry no `judged`: read from the goal). */
export function judgedOf(figure: Figure): { judged: number; judgedOn: RunsFigure['judgedOn'] } {
  const on: RunsFigure['judgedOn'] = figure.goal.startsWith('value ≤ floor') ? 'gap' : figure.goal.startsWith('ratio') ? 'ratio' : figure.goal.startsWith('share (ratio') ? 'share' : 'value';
  if (figure.judged !== undefined) return { judged: figure.judged, judgedOn: on };
  const judged = on === 'gap' ? Math.round((figure.value - (figure.floor ?? 0)) * 10) / 10 : on === 'ratio' || on === 'share' ? (figure.ratio ?? figure.value) : figure.value;
  return { judged, judgedOn: on };
}

/**
 * Per figure, the run whose judged number is the median of the runs' (the middle one; of an even
 * count, the upper middle: the goal is never judged on the kinder of two). A figure missing from
 * some run (a part that did not run) is summarised over the runs that have it.
 */
export function summariseRuns(runs: Array<Record<string, Figure>>): Record<string, RunsFigure> {
  const keys = [...new Set(runs.flatMap((run) => Object.keys(run)))];
  const out: Record<string, RunsFigure> = {};
  for (const key of keys) {
    const taken = runs.map((run) => run[key]).filter((f): f is Figure => f !== undefined);
    const judged = taken.map((f) => judgedOf(f));
    const order = taken.map((_, i) => i).sort((a, b) => judged[a]!.judged - judged[b]!.judged);
    const middle = order[Math.floor(order.length / 2)]!;
    const numbers = judged.map((j) => j.judged);
    const min = Math.min(...numbers);
    const max = Math.max(...numbers);
    const base = Math.abs(judged[middle]!.judged);
    out[key] = {
      ...taken[middle]!,
      judged: judged[middle]!.judged,
      judgedOn: judged[middle]!.judgedOn,
      runs: taken.length,
      perRun: numbers,
      spread: { min, max, pct: base === 0 ? (max === min ? 0 : 100) : Math.round(((max - min) / base) * 1000) / 10 },
    };
  }
  return out;
}

const judgedText = (f: RunsFigure, n: number): string => (f.judgedOn === 'ratio' ? `${n} ×` : f.judgedOn === 'gap' ? `${n >= 0 ? '+' : ''}${n}` : String(n));

/** The figures table of a multi-run bench: the median run beside the spread of its runs. */
export function runsTable(figures: Record<string, RunsFigure>): string {
  const cell = (n: number | undefined): string => (n === undefined ? '' : String(n));
  return [
    '| Figure | Value (median run) | Floor | Ratio | Judged: median run [min – max over runs] | Runs × samples | Goal | |',
    '|---|---:|---:|---:|---|---:|---|---|',
    ...Object.values(figures).map(
      (f) =>
        `| ${f.label} | ${cell(f.value)} | ${cell(f.floor)} | ${cell(f.ratio)} | ${judgedText(f, f.judged)} [${judgedText(f, f.spread.min)} – ${judgedText(f, f.spread.max)}]${f.spread.pct > 30 ? ` (spread ${f.spread.pct} %)` : ''} | ${f.runs} × ${f.samples ?? '?'} | ${f.goal} | ${f.met ? 'met' : 'missed'} |`,
    ),
  ].join('\n');
}

/** The median of numbers (upper middle of an even count). */
export const medianOf = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
