/**
 * `npx tsx test/bench/virtualizer-offsets.ts [ROWS]`: what react-virtual's core spends placing its
 * rows again after one more row arrives (issue 50, round 9), in Node: every row from the start, as a
 * new count made it do, against from the first new row (`pendingMin`, as VirtualList's `offsetsFrom`
 * tells it). Median and p95 of 4,000 appends, a few rows measured. Judges nothing.
 */
import { loadavg } from 'node:os';
import { Virtualizer } from '@tanstack/virtual-core';

const rows = Number(process.argv[2] ?? 1002);
const base = { getScrollElement: () => null, estimateSize: () => 700, overscan: 4, scrollToFn: () => undefined, observeElementRect: () => undefined, observeElementOffset: () => undefined };

function appends(fromFirstNew: boolean): { median: number; p95: number } {
  let items = Array.from({ length: rows }, (_, i) => `k${i}`);
  const virtualizer = new Virtualizer<HTMLElement, HTMLElement>({ ...base, count: items.length, getItemKey: (i) => items[i]! });
  const internals = virtualizer as unknown as { pendingMin: number | null; getMeasurementOptions(): unknown; getMeasurements(): unknown };
  internals.getMeasurements();
  for (let i = 0; i < 40; i += 1) virtualizer.itemSizeCache.set(`k${i * 25}`, 900 + i);
  const times: number[] = [];
  for (let round = 0; round < 4_000; round += 1) {
    const before = items.length;
    items = [...items, `n${round}`];
    const current = items;
    const started = performance.now();
    virtualizer.setOptions({ ...base, count: current.length, getItemKey: (i) => current[i]! });
    if (fromFirstNew) {
      internals.getMeasurementOptions();
      internals.pendingMin = before;
    }
    internals.getMeasurements();
    times.push(performance.now() - started);
    items = items.slice(0, rows);
    virtualizer.setOptions({ ...base, count: items.length, getItemKey: (i) => items[i]! });
    internals.getMeasurements();
  }
  times.sort((a, b) => a - b);
  return { median: times[2_000]! * 1000, p95: times[3_800]! * 1000 };
}

for (const fromFirstNew of [false, true, false, true]) {
  const { median, p95 } = appends(fromFirstNew);
  console.log(`${rows} rows, ${fromFirstNew ? 'from the new row' : 'every row      '}: median ${median.toFixed(1)} µs, p95 ${p95.toFixed(1)} µs (load ${loadavg()[0]!.toFixed(1)})`);
}
