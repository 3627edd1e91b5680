/**
 * Issue 50, item 2: what ran in the long frames, from a Chromium trace (what ran, and for how much
 * of the thread's own CPU time, whatever the machine's load). Benchmark only.
 *   npm run bench:frames -- append [--rounds N]   figure 5's 12 appends to a 1,000-answer
 *       conversation on the harness page (as renderer-bench.ts), each append's task broken down
 *   npm run bench:frames -- latency [--rounds N]  one streamed answer on the app page and
 *       the same on its floor page (as app-bench.ts), their animation-frame tasks broken down, the
 *       longest 5 % (the frames behind a p95) beside the median ones
 * `--root DIR` (append) measures another checkout's harness; `--no-build` (latency) uses the app as last built, `--renderer DIR` another renderer build (A/B); LONG_FRAMES_SEQUENCE=1 prints a median and the
 * longest frame's lifecycle in order.
 * Each task's time is split by self time into script, GC, style, layout, paint (pre-paint, paint,
 * layerize, commit) and other (the task's own scheduling), as wall time and as the thread's CPU time.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS as APP_ARGS, floorRenderer, openAppBesideFloor, startHost, stopHost, waitForAnswerDone } from './app-bench';
import { answers, CHROMIUM_ARGS, serveHarness } from './renderer-bench';
import { closeMemoryDatabase } from '../../src/service/store/embedded';
import { animationFrameTasks, KINDS, traced, type Kind, type TaskBreakdown } from './frame-breakdown';

const f2 = (n: number): string => n.toFixed(2);
const parts = (r: Record<Kind, number>): string => KINDS.map((k) => `${k} ${f2(r[k])}`).join(', ');
/** The mean breakdown of some tasks. */
function mean(tasks: TaskBreakdown[]): { wallMs: number; cpuMs: number; wall: Record<Kind, number>; cpu: Record<Kind, number> } {
  const n = Math.max(1, tasks.length);
  const sum = (pick: (t: TaskBreakdown) => Record<Kind, number>): Record<Kind, number> => Object.fromEntries(KINDS.map((k) => [k, tasks.reduce((a, t) => a + pick(t)[k], 0) / n])) as Record<Kind, number>;
  return { wallMs: tasks.reduce((a, t) => a + t.wallMs, 0) / n, cpuMs: tasks.reduce((a, t) => a + t.cpuMs, 0) / n, wall: sum((t) => t.wall), cpu: sum((t) => t.cpu) };
}
function report(label: string, tasks: TaskBreakdown[]): void {
  const sorted = [...tasks].sort((a, b) => a.wallMs - b.wallMs);
  const longest = sorted.slice(Math.floor(sorted.length * 0.95));
  const middle = sorted.slice(Math.floor(sorted.length * 0.25), Math.ceil(sorted.length * 0.75));
  const show = (name: string, set: TaskBreakdown[]): void => {
    const m = mean(set);
    console.log(`  ${name} (${set.length}): wall ${f2(m.wallMs)} ms [${parts(m.wall)}]; CPU ${f2(m.cpuMs)} ms [${parts(m.cpu)}]`);
  };
  console.log(`${label}: ${tasks.length} animation-frame tasks; wall median ${f2(sorted[Math.floor(sorted.length / 2)]?.wallMs ?? 0)}, p95 ${f2(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]?.wallMs ?? 0)}, longest ${f2(sorted.at(-1)?.wallMs ?? 0)} ms`);
  show('middle half, mean', middle);
  show('longest 5 %, mean', longest);
  for (const t of longest.slice(-3).reverse()) console.log(`    ${f2(t.wallMs)} ms wall / ${f2(t.cpuMs)} CPU, ${t.layouts} layouts, ${t.styles} style recalcs: ${t.top.map(([n, ms]) => `${n} ${f2(ms)}`).join(', ')}`);
  if (process.env.LONG_FRAMES_SEQUENCE) for (const t of [middle[Math.floor(middle.length / 2)], ...longest.slice(-1)].filter((x): x is TaskBreakdown => x !== undefined)) console.log(`    sequence of a ${f2(t.wallMs)} ms task: ${t.sequence.join(' → ')}`);
  const twice = tasks.filter((t) => t.layouts > 1 || t.styles > 1).length;
  console.log(`  tasks with more than one layout or style recalculation: ${twice} of ${tasks.length}`);
  const forced = new Map<string, number>();
  for (const t of tasks) for (const f of t.forced) forced.set(f.replace(/ [\d.]+ ms/, ''), (forced.get(f.replace(/ [\d.]+ ms/, '')) ?? 0) + 1);
  for (const [f, n] of [...forced].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`  forced by script, ${n}×: ${f}`);
}

const mode = process.argv[2];
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 1) || 1;
if (process.argv[1]?.endsWith('long-frames.ts')) {
  console.log(`load average at start ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  if (mode === 'append') {
    const texts = await answers(510);
    const history1000 = Array.from({ length: 1_000 }, (_, i) => texts[i % texts.length]!);
    const whole = (run: number): string => {
      let answer = texts[(run * 2) % texts.length]!;
      for (let k = 1; answer.length < 4_000; k += 1) answer += `\n\n${texts[(run * 2 + k) % texts.length]!}`;
      return answer.slice(0, 4_096);
    };
    type Bench = { bench: { mountHistory(r: string, h: readonly string[]): Promise<number>; append(m: string): Promise<{ total: number; script: number }> } };
    // `--root DIR`: the harness (and the renderer it imports) of another checkout (an A/B).
    const rootAt = process.argv.indexOf('--root');
    const harness = rootAt > 0 ? await serveHarness(false, { root: process.argv[rootAt + 1]!, outDir: join(process.argv[rootAt + 1]!, 'harness-dist') }) : await serveHarness();
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      for (let r = 0; r < rounds; r += 1) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        await page.goto(harness.url);
        await page.waitForFunction(() => document.title === 'ready');
        await page.evaluate(([h]) => (window as unknown as Bench).bench.mountHistory('clarity', h), [history1000] as const);
        const scripts: number[] = [];
        const events = await traced(await page.context().newCDPSession(page), async () => {
          for (let run = 0; run < 12; run += 1) scripts.push((await page.evaluate(([m]) => (window as unknown as Bench).bench.append(m), [whole(run)] as const)).script);
        });
        // The 12 appends are the 12 largest animation-frame tasks (the others are idle frames).
        const tasks = animationFrameTasks(events);
        const appends = [...tasks].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 12);
        const ordered = tasks.filter((t) => appends.includes(t));
        console.log(`\nround ${r + 1}: append script time as the bench measures it (performance.now around flushSync): ${scripts.map(f2).join(' ')}; worst ${f2(Math.max(...scripts))}; load ${loadavg()[0]!.toFixed(2)}`);
        for (const [i, t] of ordered.entries()) console.log(`  append ${i + 1}: wall ${f2(t.wallMs)} [${parts(t.wall)}]; CPU ${f2(t.cpuMs)} [${parts(t.cpu)}]; ${t.layouts} layouts, ${t.styles} style recalcs`);
        report('appends', ordered);
        await page.close();
      }
    } finally {
      await browser.close();
      await harness.close();
    }
  } else if (mode === 'latency') {
    if (!process.argv.includes('--no-build')) execFileSync('npx', ['--no-install', 'electron-vite', 'build'], { stdio: 'ignore' });
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: APP_ARGS });
    // `--renderer DIR`: another build of the renderer (an A/B against a base checkout's out/renderer).
    const rendererAt = process.argv.indexOf('--renderer');
    const renderer = await floorRenderer(rendererAt > 0 ? process.argv[rendererAt + 1] : undefined);
    const host = await startHost(['--pace-ms', '5'], { withClock: true, renderer: renderer.dir });
    try {
      const context = await browser.newContext();
      const { page, floor } = await openAppBesideFloor(context, host);
      const ask = async (on: Page, question: string, app: boolean): Promise<void> => {
        await on.bringToFront();
        if (app) {
          await on.getByTestId('composer-input').fill(question);
          await on.getByTestId('send').click();
          await waitForAnswerDone(on, 100);
        } else await on.evaluate((q) => (window as unknown as { floor: { askTracked(q: string): Promise<string> } }).floor.askTracked(q), question);
      };
      await ask(page, 'How fast is quick commerce growing in Bengaluru?', true);
      const questions = ['Tanishq jewellery in Kerala', 'Zudio store openings in Pune', 'Apollo Pharmacy hiring in Hyderabad'];
      for (let r = 0; r < rounds; r += 1) {
        const q = questions[r % questions.length]!;
        const appTasks = animationFrameTasks(await traced(await context.newCDPSession(page), () => ask(page, q, true), { stacks: true }));
        const floorTasks = animationFrameTasks(await traced(await context.newCDPSession(floor), () => ask(floor, q, false), { stacks: true }));
        console.log(`\nround ${r + 1} (${q}); load ${loadavg()[0]!.toFixed(2)}`);
        report('app page', appTasks);
        report('floor page', floorTasks);
      }
    } finally {
      await browser.close();
      await stopHost(host);
      await renderer.remove();
    }
  } else throw new Error('long-frames: append or latency');
  await closeMemoryDatabase();
}
