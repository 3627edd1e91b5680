import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Figure } from '../bench/figures';
import { machineResults, machinesTable } from '../bench/machines-table';
import { machineSlug, runsTable, summariseRuns } from '../bench/runs';

// Issue 50: a figure over several runs is the median run's, judged on what its goal compares.
const latency = (value: number, floor: number): Figure => ({ label: 'latency p95', value, floor, ratio: Math.round((value / floor) * 100) / 100, goal: 'ratio ≤ 1.3', met: value / floor <= 1.3, judged: Math.round((value / floor) * 100) / 100, samples: 180 });
const append = (value: number): Figure => ({ label: 'append worst', value, goal: '≤ 3', met: value <= 3, judged: value, samples: 12 });

describe('bench runs', () => {
  it('reports the median run by the judged number, with the min–max over the runs', () => {
    // Run 2 has the highest value but the lowest ratio: the ratio decides.
    const figures = summariseRuns([{ latency: latency(30, 20), append: append(2.1) }, { latency: latency(40, 40), append: append(28.4) }, { latency: latency(26, 20), append: append(2.6) }]);
    expect(figures.latency!.value).toBe(26);
    expect(figures.latency!.judged).toBe(1.3);
    expect(figures.latency!.met).toBe(true);
    expect(figures.latency!.spread).toEqual({ min: 1, max: 1.5, pct: 38.5 });
    expect(figures.latency!.runs).toBe(3);
    // One 28 ms outlier does not decide the goal; it shows in the spread.
    expect(figures.append!.value).toBe(2.6);
    expect(figures.append!.met).toBe(true);
    expect(figures.append!.spread.max).toBe(28.4);
    expect(figures.append!.perRun).toEqual([2.1, 28.4, 2.6]);
    const table = runsTable(figures);
    expect(table).toContain('| append worst | 2.6 |');
    expect(table).toContain('2.6 [2.1 – 28.4] (spread 1011.5 %)');
    expect(table).toContain('| 3 × 12 |');
    expect(table).toContain('1.3 × [1 × – 1.5 ×]');
  });

  it('judges an even number of runs on the worse of the two middle runs', () => {
    const figures = summariseRuns([{ append: append(2) }, { append: append(4) }, { append: append(2.5) }, { append: append(3.5) }]);
    expect(figures.append!.value).toBe(3.5);
    expect(figures.append!.met).toBe(false);
  });

  it('judges a cold start on its gap to the floor, read from the goal for figures saved before issue 50', () => {
    const old = (value: number, floor: number): Figure => ({ label: 'cold start', value, floor, ratio: value / floor, goal: 'value ≤ floor + 500', met: value <= floor + 500 });
    const figures = summariseRuns([{ cold: old(1100, 900) }, { cold: old(1500, 1400) }, { cold: old(1600, 900) }]);
    expect(figures.cold!.judgedOn).toBe('gap');
    expect(figures.cold!.judged).toBe(200);
    expect(figures.cold!.value).toBe(1100);
  });

  it('names machine kinds by their CPU model', () => {
    expect(machineSlug('Intel(R) Xeon(R) Processor')).toBe('intel-xeon-processor');
    expect(machineSlug('AMD EPYC')).toBe('amd-epyc');
    expect(machineSlug('AMD EPYC 7B13 64-Core Processor')).toBe('amd-epyc-7b13-64-core-processor');
  });

  it('shows each machine kind as a column of the README table, from the result files only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarity-bench-results-'));
    try {
      const file = (cpu: string, runs: Array<Record<string, Figure>>) => ({ machine_kind: machineSlug(cpu), cpu, cores: 2, machine: `2 × ${cpu}`, measured_at: '2026-12-07T09:00:00.000Z', runs: runs.length, figures: summariseRuns(runs) });
      await writeFile(join(dir, 'amd-epyc.json'), JSON.stringify(file('AMD EPYC', [{ append_answer_worst_ms: append(2.2) }, { append_answer_worst_ms: append(2.9) }, { append_answer_worst_ms: append(3.1) }])));
      await writeFile(join(dir, 'intel-xeon-processor.json'), JSON.stringify(file('Intel(R) Xeon(R) Processor', [{ append_answer_worst_ms: append(2.34) }])));
      // latest.json has no machine_kind: not a column.
      await writeFile(join(dir, 'latest.json'), JSON.stringify({ measured_at: 'x', figures: { append: append(9) } }));
      const results = await machineResults(dir);
      expect(results.map((r) => r.machine_kind)).toEqual(['amd-epyc', 'intel-xeon-processor']);
      const table = machinesTable(results);
      expect(table).toContain('| Figure | Goal | 2 × AMD EPYC (3 runs, 2026-12-07) | 2 × Intel(R) Xeon(R) Processor (1 run, 2026-12-07) |');
      expect(table).toContain('| Append a 4 KB answer to 1,000, worst of 12, script time (ms) | ≤ 3 | 2.9 [2.2 – 3.1] met | 2.34 met |');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
