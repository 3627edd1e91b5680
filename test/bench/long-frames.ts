/**
 * Issue 50, item 2: what ran in the long frames, from a Chromium trace (what ran, and for how much
 * of the thread's own CPU time, whatever the machine's load). Benchmark only.
 *   npx tsx test/bench/long-frames.ts append [--rounds N]   figure 5's 12 appends to a 1,000-answer
 *       conversation on the harness page (as renderer-bench.ts), each append's task broken down
 *   npx tsx test/bench/long-frames.ts latency [--rounds N]  one streamed answer on the app page and
 *       the same on its floor page (as app-bench.ts), their animation-frame tasks broken down, the
 *       longest 5 % (the frames behind a p95) beside the median ones
 * Each task's time is split by self time into script, GC, style, layout, paint (pre-paint, paint,
 * layerize, commit) and other (the task's own scheduling), as wall time and as the thread's CPU time.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { CHROMIUM_ARGS as APP_ARGS, floorRenderer, openAppBesideFloor, startHost, stopHost, waitForAnswerDone } from './app-bench';
import { answers, CHROMIUM_ARGS, serveHarness } from './renderer-bench';
import { closeMemoryDatabase } from '../../src/service/store/embedded';

type Frame = { functionName?: string; url?: string; lineNumber?: number };
export type Ev = { name: string; ph: string; ts: number; dur?: number; tdur?: number; pid: number; tid: number; args?: { name?: string; beginData?: { stackTrace?: Frame[] }; data?: { stackTrace?: Frame[] } } };
export type Kind = 'script' | 'gc' | 'style' | 'layout' | 'paint' | 'other';
export const KINDS: Kind[] = ['script', 'gc', 'style', 'layout', 'paint', 'other'];

/** Which kind of work a trace event's self time is. */
export function kindOf(name: string): Kind {
  if (/^(MinorGC|MajorGC|ScheduledGC)$|^V8\.GC|^BlinkGC|^CppGC|GarbageCollect|^ThreadState::/.test(name)) return 'gc';
  if (/^(UpdateLayoutTree|RecalculateStyles|ParseAuthorStyleSheet|ScheduleStyleRecalculation)$/.test(name)) return 'style';
  if (/^(Layout|UpdateLayout|LocalFrameView::layout)$/.test(name)) return 'layout';
  if (/^(PrePaint|Paint|PaintImage|Layerize|Commit|UpdateLayer|UpdateLayerTree|CompositeLayers|PaintSetup)$/.test(name)) return 'paint';
  if (/^(FunctionCall|EvaluateScript|RunMicrotasks|FireAnimationFrame|TimerFire|EventDispatch|XHRReadyStateChange|ResizeObserver|IntersectionObserver|HitTest|ScrollLayer)|^v8\.|^V8\.|^v8::|Compile|Microtask|Observer/.test(name)) return 'script';
  return 'other';
}

export interface TaskBreakdown {
  wallMs: number;
  cpuMs: number;
  /** Self time per kind, wall clock (ms). */
  wall: Record<Kind, number>;
  /** Self time per kind, the thread's CPU time (ms; an event without it counts its wall time). */
  cpu: Record<Kind, number>;
  /** The event names with the most self time in this task (wall ms). */
  top: Array<[string, number]>;
  /** How many layouts and style recalculations ran in the task (more than one each: a forced one). */
  layouts: number;
  styles: number;
  /** Style recalculations and layouts that script forced (ran inside a script event), with the script's top frame. */
  forced: string[];
  /** The task's lifecycle in order: script, style, layout and paint events with their wall ms (LONG_FRAMES_SEQUENCE=1). */
  sequence: string[];
}

const SCRIPT_PARENTS = new Set(['FunctionCall', 'FireAnimationFrame', 'RunMicrotasks', 'EventDispatch', 'TimerFire', 'v8.callFunction', 'EvaluateScript']);
const where = (e: Ev): string => {
  const top = (e.args?.beginData?.stackTrace ?? e.args?.data?.stackTrace ?? [])[0];
  return top ? `${top.functionName || '(anonymous)'} ${top.url?.split('/').pop() ?? ''}:${(top.lineNumber ?? 0) + 1}` : 'no stack';
};

/** The page's main thread: the renderer main thread with the most timeline work. */
function mainThread(events: Ev[]): Ev[] {
  const threads = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const busy = new Map<string, number>();
  for (const e of events) if (e.ph === 'X' && threads.some((t) => t.pid === e.pid && t.tid === e.tid)) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
  const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
  return events.filter((e) => e.ph === 'X' && e.dur !== undefined && `${e.pid}:${e.tid}` === main).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
}

/** Every outermost task that ran animation-frame callbacks, broken down by self time. */
export function animationFrameTasks(events: Ev[]): TaskBreakdown[] {
  const complete = mainThread(events);
  const isTask = (e: Ev): boolean => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask';
  const out: TaskBreakdown[] = [];
  let taskEnd = -1;
  for (let i = 0; i < complete.length; i += 1) {
    const task = complete[i]!;
    if (!isTask(task) || task.ts < taskEnd) continue;
    taskEnd = task.ts + task.dur!;
    const inside: Ev[] = [task];
    for (let j = i + 1; j < complete.length && complete[j]!.ts < taskEnd; j += 1) if (complete[j]!.ts + complete[j]!.dur! <= taskEnd) inside.push(complete[j]!);
    if (!inside.some((e) => e.name === 'FireAnimationFrame')) continue;
    // Self time: an event's time less its children's (events sorted parent first).
    const selfWall = new Map<Ev, number>();
    const selfCpu = new Map<Ev, number>();
    const stack: Ev[] = [];
    const forced: string[] = [];
    for (const e of inside) {
      while (stack.length > 0 && stack.at(-1)!.ts + stack.at(-1)!.dur! <= e.ts) stack.pop();
      const parent = stack.at(-1);
      if ((e.name === 'UpdateLayoutTree' || e.name === 'Layout') && stack.some((s) => SCRIPT_PARENTS.has(s.name))) forced.push(`${e.name} ${(e.dur! / 1000).toFixed(2)} ms in ${[...stack].reverse().find((s) => SCRIPT_PARENTS.has(s.name))!.name} (${where(e)})`);
      if (parent) {
        selfWall.set(parent, selfWall.get(parent)! - e.dur!);
        selfCpu.set(parent, selfCpu.get(parent)! - (e.tdur ?? e.dur!));
      }
      selfWall.set(e, e.dur!);
      selfCpu.set(e, e.tdur ?? e.dur!);
      stack.push(e);
    }
    const wall = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
    const cpu = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
    const byName = new Map<string, number>();
    for (const e of inside) {
      const kind = e === task ? 'other' : kindOf(e.name);
      wall[kind] += Math.max(0, selfWall.get(e)!) / 1000;
      cpu[kind] += Math.max(0, selfCpu.get(e)!) / 1000;
      byName.set(e.name, (byName.get(e.name) ?? 0) + Math.max(0, selfWall.get(e)!) / 1000);
    }
    const sequence = inside.filter((e) => e !== task && /^(FunctionCall|FireAnimationFrame|RunMicrotasks|EventDispatch|UpdateLayoutTree|Layout|PrePaint|Paint|Layerize|Commit|ScrollLayer|HitTest|ResizeObserver|MinorGC|MajorGC)/.test(e.name)).map((e) => `${e.name}${e.name === 'UpdateLayoutTree' ? `(${(e.args as { elementCount?: number } | undefined)?.elementCount ?? '?'} el)` : ''}${e.name === 'EventDispatch' ? `(${(e.args?.data as { type?: string } | undefined)?.type ?? '?'})` : ''} ${(e.dur! / 1000).toFixed(2)}`);
    out.push({ sequence, wallMs: task.dur! / 1000, cpuMs: (task.tdur ?? task.dur!) / 1000, wall, cpu, top: [...byName].sort((a, b) => b[1] - a[1]).slice(0, 4), layouts: inside.filter((e) => e.name === 'Layout').length, styles: inside.filter((e) => e.name === 'UpdateLayoutTree').length, forced });
  }
  return out;
}

export async function traced(cdp: CDPSession, work: () => Promise<void>): Promise<Ev[]> {
  const events: Ev[] = [];
  const collect = (data: { value: object[] }): void => void events.push(...(data.value as Ev[]));
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.stack,v8.execute,disabled-by-default-v8.gc,blink.user_timing,toplevel', transferMode: 'ReportEvents' });
  await work();
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);
  return events;
}

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
    const harness = await serveHarness();
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
    const renderer = await floorRenderer();
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
        const appTasks = animationFrameTasks(await traced(await context.newCDPSession(page), () => ask(page, q, true)));
        const floorTasks = animationFrameTasks(await traced(await context.newCDPSession(floor), () => ask(floor, q, false)));
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
