/**
 * Benchmark only (issue 31): where a streamed update's script time goes at 40 KB, without React.
 * `npx tsx test/bench/delta-phases.ts [--base DIR] [--rounds N] [--answers FILE] [--size N]`:
 * on the harness page (the same stream and window as figure 2's render cost), each update is
 * timed in two parts, the renderer's `update` (lex, marked, sanitise, chips) and the view's
 * `show` (the morph into the live DOM), its DOMPurify calls counted and whether it took the
 * plain-text path (`plainShare`; round 6). One update per delta, as figure 2 renders them. With `--base`, a
 * directory holding another checkout (`git archive REF src test/bench/harness | tar -x -C DIR`;
 * its harness must have `deltaPhases`: copy this one's main.tsx in), the two are measured in
 * turns, A B A B…, in one browser. `--off plainText` or `--off lastItem` adds this build with that
 * renderer option off as another variant (round 7). Prints medians of the rounds' percentiles. It judges nothing.
 */
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { answers, CHROMIUM_ARGS, serveHarness } from './renderer-bench';
import { closeMemoryDatabase } from '../../src/service/store/embedded';

const { values } = parseArgs({ options: { base: { type: 'string' }, rounds: { type: 'string', default: '3' }, answers: { type: 'string' }, size: { type: 'string', default: '40000' }, top: { type: 'string', default: '0' }, profile: { type: 'boolean', default: false }, off: { type: 'string' } } });
const rounds = Number(values.rounds);
const size = Number(values.size);

const texts = values.answers
  ? await readFile(values.answers, 'utf8').then((json) => JSON.parse(json) as string[]).catch(async () => {
      const asked = await answers(510);
      await writeFile(values.answers!, JSON.stringify(asked));
      return asked;
    })
  : await answers(510);
// Exactly the renderer bench's stream.
let source = texts.slice(0, 40).join('\n\n');
while (source.length < 45_000) source += `\n\n${texts.slice(40, 80).join('\n\n')}`;

const at = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
};
const median = (values: number[]): number => at(values, 0.5);
const round = (n: number): number => Math.round(n * 1000) / 1000;

type Profile = { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>; samples: number[]; timeDeltas: number[] };
function printProfile(profile: Profile, updates: number, label: string): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop() ?? ''}:${frame.lineNumber + 1}`;
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const rows = [...totals].filter(([name]) => !/^\((idle|program)\)/.test(name)).sort((a, b) => b[1] - a[1]).slice(0, 20);
  console.log(`${label}: JS self time per update (ms, ${updates} measured updates, their time alone; the page's forced layout after each is in deltaPhases)`);
  for (const [name, ms] of rows) console.log(`  ${(ms / updates).toFixed(4).padStart(8)}  ${name}`);
  // Inclusive time (a function counted once per sample however deep it recurses; issue 50, round 6):
  // where the full-path updates' time goes, as the plain-text path's updates add little beneath `update`.
  const parent = new Map<number, number>();
  for (const node of profile.nodes as Array<Profile['nodes'][number] & { children?: number[] }>) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop() ?? ''}:${frame.lineNumber + 1}`;
      if (seen.has(name) || /^\((idle|program|root)\)/.test(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    }
  });
  console.log(`${label}: JS inclusive time per update (ms)`);
  for (const [name, ms] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log(`  ${(ms / updates).toFixed(4).padStart(8)}  ${name}`);
}

const variants: Array<{ label: string; root: string; off?: string }> = [{ label: 'current', root: resolve('.') }, ...(values.base ? [{ label: 'base', root: resolve(values.base) }] : [])];
const served = [];
for (const variant of variants) {
  if (variant.root !== resolve('.')) await symlink(resolve('node_modules'), join(variant.root, 'node_modules')).catch(() => undefined);
  served.push({ ...variant, harness: await serveHarness(values.profile, { root: variant.root, outDir: resolve(`bench/harness-dist-${variant.label}`) }) });
}
if (values.off) {
  variants.push({ label: `current-no-${values.off}`, root: resolve('.'), off: values.off });
  served.push({ ...variants.at(-1)!, harness: served[0]!.harness });
}
type Phases = { update: number[]; show: number[]; calls: number[]; chars: number[]; lexed: number[]; plain: number[] };
const results = new Map<string, Array<Record<string, number>>>(variants.map((v) => [v.label, []]));
/**
 * Per update (the same stream in every round), its least time over the rounds (issue 50, round 7): on a
 * shared machine one round's p95 is mostly the moments another process held the core; the least of
 * each update over several rounds is that update's own work, and their p95 the figure's p95 without them.
 */
const least = new Map<string, number[]>();
/** (`--top N`) Each update's parts in the round it took least: the renderer's update, the view's show, characters lexed, plain path. */
const leastParts = new Map<string, Array<{ update: number; show: number; lexed: number; plain: number }>>();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  for (let r = 0; r < rounds; r += 1) {
    const order = r % 2 === 0 ? served : [...served].reverse();
    for (const variant of order) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      await page.goto(variant.harness.url);
      await page.waitForFunction(() => document.title === 'ready');
      // `--off NAME`: this build's renderer with that option off (`plainText`, `lastItem`), as a variant of its own.
      if (variant.off) await page.evaluate((name) => { (window as unknown as { rendererOff: string }).rendererOff = name; }, variant.off);
      const load = loadavg()[0]!;
      // `--profile`: a CPU profile of the updates (readable build), JS self time per update.
      const cdp = values.profile ? await page.context().newCDPSession(page) : null;
      let profiled: Profile | null = null;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
        cdp.on('Profiler.consoleProfileFinished', (event) => void (profiled = (event as unknown as { profile: Profile }).profile));
      }
      const phases = (await page.evaluate(([s, n, p]) => (window as unknown as { bench: { deltaPhases(s: string, n: number, p: boolean): unknown } }).bench.deltaPhases(s, n, p), [source, size, values.profile] as const)) as Phases;
      if (cdp) {
        for (let wait = 0; !profiled && wait < 50; wait += 1) await new Promise((done) => setTimeout(done, 100));
        if (profiled) printProfile(profiled, phases.update.length, variant.label);
      }
      await page.close();
      const total = phases.update.map((u, i) => u + phases.show[i]!);
      const mins = least.get(variant.label) ?? total.map(() => Infinity);
      const parts = leastParts.get(variant.label) ?? [];
      total.forEach((ms, i) => {
        if (ms < mins[i]!) parts[i] = { update: round(phases.update[i]!), show: round(phases.show[i]!), lexed: phases.lexed[i]!, plain: phases.plain[i]! };
      });
      leastParts.set(variant.label, parts);
      least.set(variant.label, mins.map((ms, i) => Math.min(ms, total[i] ?? Infinity)));
      const sanitising = total.filter((_, i) => phases.calls[i]! > 0);
      const row = {
        load: round(load),
        n: total.length,
        totalMedian: round(median(total)),
        totalP95: round(at(total, 0.95)),
        updateP95: round(at(phases.update, 0.95)),
        showP95: round(at(phases.show, 0.95)),
        sanitisingShare: round(sanitising.length / total.length),
        plainShare: round(phases.plain.filter((n) => n > 0).length / total.length),
        sanitisingMedian: round(median(sanitising)),
        callsPerUpdateMean: round(phases.calls.reduce((a, b) => a + b, 0) / total.length),
        callsMax: Math.max(...phases.calls),
        charsP95: at(phases.chars, 0.95),
        lexedMean: round(phases.lexed.reduce((a, b) => a + b, 0) / total.length),
      };
      results.get(variant.label)!.push(row);
      // `--top N`: the slowest updates, with their work (calls, characters sanitised and lexed).
      const top = total.map((ms, i) => ({ ms: round(ms), update: round(phases.update[i]!), show: round(phases.show[i]!), calls: phases.calls[i], chars: phases.chars[i], lexed: phases.lexed[i], plain: phases.plain[i] })).sort((a, b) => b.ms - a.ms).slice(0, Number(values.top));
      if (top.length > 0) console.log(top.map((t) => JSON.stringify(t)).join('\n'));
      console.log(`round ${r + 1} ${variant.label}:`, JSON.stringify(row));
    }
  }
  for (const [label, mins] of least) {
    console.log(`${label}: per update, least over ${rounds} rounds: median ${round(median(mins))}, p95 ${round(at(mins, 0.95))}, p99 ${round(at(mins, 0.99))} ms (${mins.length} updates)`);
    const slowest = mins.map((ms, i) => ({ at: i, ms: round(ms), ...leastParts.get(label)![i] })).sort((a, b) => b.ms - a.ms).slice(0, Number(values.top));
    for (const row of slowest) console.log(`  ${JSON.stringify(row)}`);
  }
  for (const [label, rows] of results) {
    const keys = Object.keys(rows[0] ?? {});
    console.log(`\n${label}, median of ${rows.length} rounds:`, JSON.stringify(Object.fromEntries(keys.map((k) => [k, round(median(rows.map((row) => row[k]!)))]))));
  }
} finally {
  await browser.close();
  for (const variant of served) if (!variant.off) await variant.harness.close();
  await closeMemoryDatabase();
}
