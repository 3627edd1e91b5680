/**
 * Issue 50, round 4: which of the app's functions the streamed frames' script time is, by a V8 CPU
 * profile of the app page while answers stream (the page and stream of figure 1's latency, as
 * long-frames.ts latency). Benchmark only; judges nothing.
 *   npx tsx test/bench/stream-profile.ts [--rounds N] [--minified] [--css RULES]
 * By default the renderer is built again unminified (into a temporary folder, out/ untouched), so
 * the functions keep their names; `--minified` profiles out/renderer as last built.
 * Prints self time per function (ms over all the streamed answers, and per animation frame) and the
 * inclusive time of the frame's main entry points. `--css` adds RULES to the app's page before the
 * answers (issue 50, round 7: which script a style change brings, e.g. a composited scroller).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import react from '@vitejs/plugin-react';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { CHROMIUM_ARGS, floorRenderer, openAppBesideFloor, startHost, stopHost, waitForAnswerDone } from './app-bench';
import { closeMemoryDatabase } from '../../src/service/store/embedded';
import { mainThread, traced, type Ev } from './frame-breakdown';

const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1] || 3) || 3;
const minified = args.includes('--minified');
const css = args.includes('--css') ? args[args.indexOf('--css') + 1] ?? '' : '';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type Chunk = { cpuProfile?: { nodes?: Array<{ id: number; parent?: number; callFrame: CallFrame }>; samples?: number[] }; timeDeltas?: number[] };
type Sampled = Ev & { id?: string; args?: { data?: Chunk & { startTime?: number } } };
interface StreamTask {
  ts: number;
  end: number;
  animationFrame: boolean;
}

/**
 * The main thread's top-level tasks while answers stream: those from an animation frame (the
 * batch applied, the frame painted) and the others between two such frames less than 200 ms apart
 * (observers, React's deferred renders, the bridge's messages).
 */
function streamedTasks(events: Ev[]): StreamTask[] {
  const main = mainThread(events);
  const tasks: StreamTask[] = [];
  let taskEnd = -1;
  for (let i = 0; i < main.length; i += 1) {
    const e = main[i]!;
    if ((e.name !== 'ThreadControllerImpl::RunTask' && e.name !== 'RunTask') || e.ts < taskEnd) continue;
    taskEnd = e.ts + e.dur!;
    let animationFrame = false;
    for (let j = i + 1; j < main.length && main[j]!.ts < taskEnd; j += 1) if (main[j]!.name === 'FireAnimationFrame') animationFrame = true;
    tasks.push({ ts: e.ts, end: taskEnd, animationFrame });
  }
  const frames = tasks.filter((t) => t.animationFrame);
  return tasks.filter((t) => t.animationFrame || frames.some((f, k) => frames[k + 1] !== undefined && f.end <= t.ts && t.end <= frames[k + 1]!.ts && frames[k + 1]!.ts - f.end < 200_000));
}

/** Self and inclusive sampled ms per function (name file:line) of the main thread's samples inside `tasks`. */
function samplesIn(events: Ev[], tasks: StreamTask[]): { self: Map<string, number>; inclusive: Map<string, number>; totalMs: number } {
  const main = mainThread(events)[0];
  const sampled = events as Sampled[];
  const profile = sampled.find((e) => e.name === 'Profile' && e.pid === main?.pid && e.tid === main?.tid);
  const nodes = new Map<number, { parent?: number; label: string }>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalMs = 0;
  if (!profile) return { self, inclusive, totalMs };
  const sorted = [...tasks].sort((a, b) => a.ts - b.ts);
  const inside = (ts: number): boolean => {
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]!.end < ts) lo = mid + 1;
      else if (sorted[mid]!.ts > ts) hi = mid - 1;
      else return true;
    }
    return false;
  };
  let at = profile.args?.data?.startTime ?? 0;
  let previous = at;
  for (const chunk of sampled.filter((e) => e.name === 'ProfileChunk' && e.id === profile.id)) {
    const data = chunk.args?.data ?? {};
    for (const node of data.cpuProfile?.nodes ?? []) nodes.set(node.id, { parent: node.parent, label: `${node.callFrame.functionName || '(anonymous)'} ${(node.callFrame.url ?? '').split('/').pop() ?? ''}:${(node.callFrame.lineNumber ?? 0) + 1}` });
    const samples = data.cpuProfile?.samples ?? [];
    samples.forEach((id, i) => {
      at += data.timeDeltas?.[i] ?? 0;
      const ms = (at - previous) / 1000;
      previous = at;
      const node = nodes.get(id);
      if (!node || !inside(at) || /^\((idle|program|root)\)/.test(node.label)) return;
      totalMs += ms;
      self.set(node.label, (self.get(node.label) ?? 0) + ms);
      const seen = new Set<string>();
      for (let n: typeof node | undefined = node; n; n = n.parent === undefined ? undefined : nodes.get(n.parent)) {
        if (seen.has(n.label)) continue;
        seen.add(n.label);
        inclusive.set(n.label, (inclusive.get(n.label) ?? 0) + ms);
      }
    });
  }
  return { self, inclusive, totalMs };
}

const root = await mkdtemp(join(tmpdir(), 'clarity-stream-profile-'));
let source = 'out/renderer';
if (!minified) {
  source = join(root, 'renderer');
  await build({ configFile: false, root: resolve('src/renderer'), base: './', logLevel: 'warn', plugins: [react()], build: { outDir: source, emptyOutDir: true, minify: false } });
}
if (!minified || !process.argv.includes('--no-build')) execFileSync('npx', ['--no-install', 'electron-vite', 'build'], { stdio: 'ignore' });
const renderer = await floorRenderer(source);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
const host = await startHost(['--pace-ms', '5'], { withClock: true, renderer: renderer.dir });
console.log(`load average at start ${loadavg().map((n) => n.toFixed(2)).join(' ')}; renderer ${minified ? 'minified' : 'unminified'}${css ? `; css ${css}` : ''}`);
try {
  const context = await browser.newContext();
  const { page } = await openAppBesideFloor(context, host);
  // A constructed sheet: the page's CSP refuses inline styles.
  if (css)
    await page.evaluate((rules) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(rules);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }, css);
  const ask = async (question: string): Promise<void> => {
    await page.getByTestId('composer-input').fill(question);
    await page.getByTestId('send').click();
    await waitForAnswerDone(page, 100);
  };
  await ask('How fast is quick commerce growing in Bengaluru?');
  const questions = ['Tanishq jewellery in Kerala', 'Zudio store openings in Pune', 'Apollo Pharmacy hiring in Hyderabad'];
  const events = await traced(await context.newCDPSession(page), async () => {
    for (let r = 0; r < rounds; r += 1) await ask(questions[r % questions.length]!);
  }, { samples: true });
  const tasks = streamedTasks(events);
  const frames = tasks.filter((t) => t.animationFrame);
  const inFrames = samplesIn(events, frames);
  const outside = samplesIn(events, tasks.filter((t) => !t.animationFrame));
  console.log(`${rounds} streamed answers: ${frames.length} animation-frame tasks, ${tasks.length - frames.length} other tasks while streaming; load ${loadavg()[0]!.toFixed(2)}`);
  for (const [label, set, n] of [['animation-frame tasks', inFrames, frames.length], ['other tasks while streaming', outside, Math.max(1, frames.length)]] as const) {
    console.log(`\n${label}: script sampled ${set.totalMs.toFixed(1)} ms, ${(set.totalMs / Math.max(1, n)).toFixed(2)} ms per frame`);
    console.log('  self time, top 25 (ms per frame):');
    for (const [name, ms] of [...set.self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`    ${(ms / Math.max(1, n)).toFixed(3)}  ${name}`);
    console.log('  inclusive time, top 40 (ms per frame):');
    for (const [name, ms] of [...set.inclusive].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`    ${(ms / Math.max(1, n)).toFixed(3)}  ${name}`);
  }
} finally {
  await browser.close();
  await stopHost(host);
  await renderer.remove();
  await rm(root, { recursive: true, force: true });
  await closeMemoryDatabase();
}
