/**
 * `npx tsx test/bench/renderer-ab.ts [--base DIR] [--rounds N] [--answers FILE]`: only Clarity's own renderer
 * figures of `npm run bench` (figure 2 at 40 KB, figure 5: open 1,000 answers, append a whole
 * 4 KB answer), on the same harness page and stream. With `--base`, a directory holding another
 * checkout (e.g. `git archive HEAD~1 src test/bench/harness | tar -x -C DIR`), its harness is
 * built too and the two are measured in turns, A B A B…, in one browser: the machine is shared,
 * so only figures taken side by side compare. It judges nothing.
 */
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { chromium, type Page } from 'playwright-core';
import { answers, CHROMIUM_ARGS, serveHarness } from './renderer-bench';
import { closeMemoryDatabase } from '../../src/service/store/embedded';

interface Bench {
  bench: {
    renderCost(renderer: string, source: string, sizes: number[]): Record<string, { median: number; p95: number; n: number; scriptMedian?: number; scriptP95?: number }>;
    mountHistory(renderer: string, history: readonly string[]): Promise<number>;
    /** A number from harnesses before the script-time split. */
    append(message: string): Promise<number | { total: number; script: number }>;
  };
}

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const rounds = Number(arg('--rounds') ?? 3);
const baseDir = arg('--base');

/** Builds the harness found under `root` and serves it (cross-origin isolated, as the bench does). */
async function serve(root: string, label: string): Promise<{ url: string; close(): Promise<void> }> {
  const outDir = resolve(`bench/harness-dist-${label}`);
  if (root !== resolve('.')) await symlink(resolve('node_modules'), join(root, 'node_modules')).catch(() => undefined);
  return serveHarness(false, { root, outDir });
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (n: number): number => Math.round(n * 1000) / 1000;

// `--answers FILE`: the service's answers kept in FILE (asked once, then read back).
const answersFile = arg('--answers');
const texts = answersFile ? await readFile(answersFile, 'utf8').then((json) => JSON.parse(json) as string[]).catch(async () => {
  const asked = await answers(510);
  await writeFile(answersFile, JSON.stringify(asked));
  return asked;
}) : await answers(510);
// Exactly the renderer bench's inputs.
let source = texts.slice(0, 40).join('\n\n');
while (source.length < 45_000) source += `\n\n${texts.slice(40, 80).join('\n\n')}`;
const history1000 = Array.from({ length: 1_000 }, (_, i) => texts[i % texts.length]!);
const whole = (run: number): string => {
  let answer = texts[(run * 2) % texts.length]!;
  for (let k = 1; answer.length < 4_000; k += 1) answer += `\n\n${texts[(run * 2 + k) % texts.length]!}`;
  return answer.slice(0, 4_096);
};

const variants = [{ label: 'current', root: resolve('.') }, ...(baseDir ? [{ label: 'base', root: resolve(baseDir) }] : [])];
const served = [];
for (const variant of variants) served.push({ ...variant, ...(await serve(variant.root, variant.label)) });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
// The goals are of script time (React's render and commit, layout effects included): scriptP95 and scriptAppend.
type Figures = { p95: number[]; median: number[]; scriptP95: number[]; scriptMedian: number[]; open: number[]; append: number[]; scriptAppend: number[] };
const results = new Map<string, Figures>(variants.map((v) => [v.label, { p95: [], median: [], scriptP95: [], scriptMedian: [], open: [], append: [], scriptAppend: [] }]));
console.log(`load average at start ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
try {
  const open = async (url: string): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(url);
    await page.waitForFunction(() => document.title === 'ready');
    return page;
  };
  for (let r = 0; r < rounds; r += 1) {
    // Alternate which goes first, so neither always follows the other.
    const order = r % 2 === 0 ? served : [...served].reverse();
    for (const variant of order) {
      const figures = results.get(variant.label)!;
      let page = await open(variant.url);
      const cost = (await page.evaluate(([s]) => (window as unknown as Bench).bench.renderCost('clarity', s, [40_000]), [source] as const))['40000']!;
      figures.p95.push(cost.p95);
      figures.median.push(cost.median);
      figures.scriptP95.push(cost.scriptP95 ?? Number.NaN);
      figures.scriptMedian.push(cost.scriptMedian ?? Number.NaN);
      await page.close();
      page = await open(variant.url);
      for (let k = 0; k < 3; k += 1) figures.open.push(await page.evaluate(([h]) => (window as unknown as Bench).bench.mountHistory('clarity', h), [history1000] as const));
      const appends: number[] = [];
      const scriptAppends: number[] = [];
      for (let run = 0; run < 12; run += 1) {
        const cost = await page.evaluate(([m]) => (window as unknown as Bench).bench.append(m), [whole(run)] as const);
        appends.push(typeof cost === 'number' ? cost : cost.total);
        scriptAppends.push(typeof cost === 'number' ? Number.NaN : cost.script);
      }
      figures.append.push(...appends);
      figures.scriptAppend.push(...scriptAppends);
      await page.close();
      console.log(`round ${r + 1} ${variant.label.padEnd(7)} 40 KB p95 ${cost.p95.toFixed(2)} median ${cost.median.toFixed(2)} script p95 ${(cost.scriptP95 ?? Number.NaN).toFixed(2)} median ${(cost.scriptMedian ?? Number.NaN).toFixed(2)} | open ${figures.open.slice(-3).map((n) => n.toFixed(0)).join('/')} | append median ${median(appends).toFixed(2)} worst ${Math.max(...appends).toFixed(2)}, script median ${median(scriptAppends).toFixed(2)} worst ${Math.max(...scriptAppends).toFixed(2)}`);
    }
  }
} finally {
  await browser.close();
  for (const s of served) await s.close();
}
console.log(`load average at end ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
for (const [label, f] of results) {
  // Per round, as the bench takes them: the median of the rounds' p95s; the worst of each round's 12 appends.
  console.log(`${label}: 40 KB p95 ${round(median(f.p95))} (rounds ${f.p95.map((n) => n.toFixed(2)).join(', ')}), median ${round(median(f.median))}, script p95 ${round(median(f.scriptP95))} (rounds ${f.scriptP95.map((n) => n.toFixed(2)).join(', ')}), script median ${round(median(f.scriptMedian))} (rounds ${f.scriptMedian.map((n) => n.toFixed(2)).join(', ')}); open median ${round(median(f.open))}; append median ${round(median(f.append))}, worst ${round(Math.max(...f.append))}; append script median ${round(median(f.scriptAppend))}, worst ${round(Math.max(...f.scriptAppend))}`);
}
// The answers' in-process service leaves its in-memory database open; closed, the run ends by itself.
await closeMemoryDatabase();
