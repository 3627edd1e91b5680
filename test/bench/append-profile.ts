/**
 * `npx tsx test/bench/append-profile.ts [--base DIR] [--rounds N] [--answers FILE]`: where a whole
 * 4 KB answer's append (figure 5) spends its script time, on the harness page built readable
 * (function names kept), with a CPU profile (50 µs samples) over the 12 appends of the bench.
 * Prints the appends' script times and, per append, the functions with the most self time and
 * the most inclusive time (a function counted once per sample however deep it recurses). With
 * `--base`, that checkout's harness is built too and profiled in turns with this one. It judges
 * nothing: profiling slows the page, so its times are only for comparing the two in one run.
 * Diagnostics: APPEND_SHIFT=N appends the answers rotated by N (is a slow append its answer or its
 * place?), APPEND_GC=1 collects garbage after the mount, APPEND_DEBUG=1 prints each append's GC
 * (with --cpu), APPEND_NAMES=1 the traced event names.
 */
import { readFile, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { answers, CHROMIUM_ARGS, serveHarness } from './renderer-bench';
import { closeMemoryDatabase } from '../../src/service/store/embedded';
import type { CpuProfile } from './trace-self-time';

type Bench = { bench: { mountHistory(r: string, h: readonly string[]): Promise<number>; append(m: string): Promise<number | { total: number; script: number }> } };

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const rounds = Number(arg('--rounds') ?? 1);
const baseDir = arg('--base');
const answersFile = arg('--answers');
// `--under NAME`: only samples with a function whose name starts with NAME on their stack (e.g. `exports.flushSync`: the append's script time).
const under = arg('--under');
// `--time`: no profiler; the appends' script times only, and per appended answer its least time
// over the rounds (the machine is shared: the least is the nearest to a quiet run).
// `--cpu`: no profiler; a Chromium trace over the appends, and per append the main thread's CPU
// time (`tdur`: time the thread ran, not time it waited for a core) of the microtask that made it,
// less the style and layout the harness then forces: the script time, measured in CPU time.
const cpuOnly = process.argv.includes('--cpu');
const timeOnly = process.argv.includes('--time') || cpuOnly;
const least = new Map<string, number[]>();
const texts = answersFile ? (JSON.parse(await readFile(answersFile, 'utf8')) as string[]) : await answers(510);
const history1000 = Array.from({ length: 1_000 }, (_, i) => texts[i % texts.length]!);
// The renderer bench's appended answers.
const whole = (run: number): string => {
  let answer = texts[(run * 2) % texts.length]!;
  for (let k = 1; answer.length < 4_000; k += 1) answer += `\n\n${texts[(run * 2 + k) % texts.length]!}`;
  return answer.slice(0, 4_096);
};

/** Self and inclusive time (ms) per function; inclusive counts a function once per sample. */
function times(profile: CpuProfile, under?: string): { self: Map<string, number>; inclusive: Map<string, number> } {
  const nodes = profile.nodes as Array<CpuProfile['nodes'][number] & { children?: number[] }>;
  const parent = new Map<number, number>();
  for (const node of nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const nameOf = (id: number): string => {
    const frame = byId.get(id)!.callFrame;
    return `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop()}:${frame.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    const name = nameOf(id);
    if (name.startsWith('(idle)') || name.startsWith('(program)')) return;
    if (under) {
      let inside = false;
      for (let at: number | undefined = id; at !== undefined && !inside; at = parent.get(at)) inside = nameOf(at).startsWith(under);
      if (!inside) return;
    }
    self.set(name, (self.get(name) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = nameOf(at);
      if (seen.has(n)) continue;
      seen.add(n);
      inclusive.set(n, (inclusive.get(n) ?? 0) + ms);
    }
  });
  return { self, inclusive };
}

const print = (title: string, rows: Map<string, number>, per: number, n: number): void => {
  console.log(`  ${title}`);
  for (const [name, ms] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`    ${(ms / per).toFixed(3).padStart(8)}  ${name}`);
};

const variants = [{ label: 'current', root: resolve('.') }, ...(baseDir ? [{ label: 'base', root: resolve(baseDir) }] : [])];
const served = [];
for (const variant of variants) {
  if (variant.root !== resolve('.')) await symlink(resolve('node_modules'), join(variant.root, 'node_modules')).catch(() => undefined);
  served.push({ ...variant, ...(await serveHarness(true, { root: variant.root, outDir: resolve(`bench/harness-dist-profile-${variant.label}`) })) });
}
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
console.log(`load average at start ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
try {
  for (let r = 0; r < rounds; r += 1) {
    for (const variant of r % 2 === 0 ? served : [...served].reverse()) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      await page.goto(variant.url);
      await page.waitForFunction(() => document.title === 'ready');
      const cdp = await page.context().newCDPSession(page);
      await page.evaluate(([h]) => (window as unknown as Bench).bench.mountHistory('clarity', h), [history1000] as const);
      // (APPEND_GC=1: a full collection after the mount, to tell its garbage's share in the first appends.)
      if (process.env.APPEND_GC) await page.evaluate(() => (globalThis as unknown as { gc(): void }).gc());
      if (!timeOnly) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
        await cdp.send('Profiler.start');
      }
      const events: Array<{ name: string; ph: string; ts: number; dur?: number; tdur?: number; pid: number; tid: number; args?: { name?: string } }> = [];
      const collect = (data: { value: object[] }): void => void events.push(...(data.value as typeof events));
      if (cpuOnly) {
        cdp.on('Tracing.dataCollected', collect);
        await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,toplevel', transferMode: 'ReportEvents' });
      }
      let scripts: number[] = [];
      for (let run = 0; run < 12; run += 1) {
        const cost = await page.evaluate(([m]) => (window as unknown as Bench).bench.append(m), [whole((run + Number(process.env.APPEND_SHIFT ?? 0)) % 12)] as const);
        scripts.push(typeof cost === 'number' ? cost : cost.script);
      }
      if (cpuOnly) {
        const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
        await cdp.send('Tracing.end');
        await done;
        cdp.off('Tracing.dataCollected', collect);
        const threads = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`);
        const onMain = events.filter((e) => e.ph === 'X' && e.tdur !== undefined && threads.includes(`${e.pid}:${e.tid}`)).sort((a, b) => a.ts - b.ts);
        const cpu: number[] = [];
        for (const task of onMain.filter((e) => e.name === 'FireAnimationFrame')) {
          const end = task.ts + task.dur!;
          let layout = 0;
          let until = 0;
          for (const e of onMain) {
            if (e.ts < task.ts || e.ts >= end || e.ts < until) continue;
            if (e.name === 'Layout' || e.name === 'UpdateLayoutTree') {
              layout += e.tdur!;
              until = e.ts + e.dur!;
            }
          }
          cpu.push((task.tdur! - layout) / 1000);
          // (With APPEND_DEBUG: the garbage collection inside each callback.)
          if (process.env.APPEND_DEBUG && task.tdur! > 2000) console.log(`  callback ${(task.tdur! / 1000).toFixed(2)} ms CPU, layout ${(layout / 1000).toFixed(2)}, GC ${onMain.filter((e) => e.ts >= task.ts && e.ts < end && (e.name === 'MinorGC' || e.name === 'MajorGC' || e.name === 'V8.GCFinalizeMC' || e.name === 'V8.GCIncrementalMarking')).map((e) => `${e.name} ${(e.tdur! / 1000).toFixed(2)}`).join(', ') || 'none'}`);
        }
        const appendsCpu = [...cpu].sort((a, b) => b - a).slice(0, 12);
        if (process.env.APPEND_NAMES) {
          const names = new Map<string, number>();
          for (const e of events) if (threads.includes(`${e.pid}:${e.tid}`) && e.ph === 'X') names.set(`${e.name}${e.tdur === undefined ? '' : ' (tdur)'}`, (names.get(`${e.name}${e.tdur === undefined ? '' : ' (tdur)'}`) ?? 0) + 1);
          console.log([...names].sort((a, b) => b[1] - a[1]).slice(0, 40));
        }
        if (appendsCpu.length < 12) throw new Error('append-profile: fewer than 12 animation-frame callbacks traced');
        // In the appends' order (the 12 largest microtask runs are the appends).
        scripts = cpu.filter((n) => n >= appendsCpu.at(-1)!).slice(0, 12);
      }
      const sorted = [...scripts].sort((a, b) => a - b);
      console.log(`\nround ${r + 1} ${variant.label}: append script${cpuOnly ? ' (CPU time)' : ''} median ${sorted[6]!.toFixed(2)} worst ${sorted[11]!.toFixed(2)} (${scripts.map((n) => n.toFixed(1)).join(' ')}); load ${loadavg()[0]!.toFixed(1)}`);
      const mins = least.get(variant.label) ?? scripts.map(() => Infinity);
      least.set(variant.label, mins.map((n, i) => Math.min(n, scripts[i]!)));
      if (timeOnly) {
        await page.close();
        continue;
      }
      const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
      await page.close();
      const { self, inclusive } = times(profile, under);
      print(`self ms per append${under ? ` (samples under ${under})` : ''}`, self, 12, 25);
      print(`inclusive ms per append${under ? ` (samples under ${under})` : ''}`, inclusive, 12, 60);
    }
  }
  for (const [label, mins] of least) {
    const sorted = [...mins].sort((a, b) => a - b);
    console.log(`${label}: per answer, least script time over ${rounds} rounds: median ${sorted[6]!.toFixed(2)}, worst ${sorted[11]!.toFixed(2)} (${mins.map((n) => n.toFixed(2)).join(' ')})`);
  }
} finally {
  await browser.close();
  for (const s of served) await s.close();
}
await closeMemoryDatabase();
