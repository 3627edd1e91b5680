/**
 * Benchmark only (issue 50, round 6): where a streamed batch's time goes in the page, the app's
 * page beside the floor page, from one Chromium trace per answer (the main thread's frames and
 * every thread of the page's renderer and of the display compositor).
 *   npx tsx test/bench/latency-pipeline.ts [--out DIR] [--rounds N] [--css RULES] [--detail] [--following-floor]
 * Each round asks the app and the floor page the same question (`--pace-ms 5`, as app-bench).
 * With `--css`, the app is asked twice a round, without and then with RULES added to its page
 * (a constructed sheet, taken off again after), the order turning each round: an A/B of a
 * style change on one build, one host and one machine state. `--following-floor` asks a third page
 * too, the floor page that follows the end of a screenful of text as the app's list does
 * (floor.html?follow, issue 50 round 7): what following itself costs, beside what the app adds.
 * Per painted batch (the app's `stream-painted` mark; the bench's `ws-message` mark on each
 * WebSocket message): the wait from its first message to the start of the frame task that
 * applied it, that task's length, and the time from its end to the after-paint mark; the
 * frames' intervals; and each thread's busy time per painted batch with its largest events.
 * `--detail` prints every answer's batches in stream order (wait + task + after, ms), to see
 * which of an answer's batches make the tail.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, clockOffset, floorRenderer, openAppBesideFloor, openFloor, startHost, stopHost, waitForAnswerDone } from './app-bench';
import { selfTimeByName, type TraceEvent } from './trace-self-time';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'out' }, rounds: { type: 'string', default: '2' }, css: { type: 'string' }, detail: { type: 'boolean', default: false }, 'following-floor': { type: 'boolean', default: false } } });
const QUESTIONS = ['Tanishq jewellery in Kerala', 'Zudio store openings in Pune', 'Apollo Pharmacy hiring in Hyderabad', 'How fast is quick commerce growing in Bengaluru?'];
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'blink.user_timing', 'toplevel', 'cc', 'viz', 'gpu', 'benchmark'].join(',');
type Ev = TraceEvent & { cat?: string; tdur?: number; args?: { name?: string; data?: Record<string, unknown> } };

const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0;
const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);

async function trace(cdp: CDPSession, work: () => Promise<void>): Promise<Ev[]> {
  const events: Ev[] = [];
  const collect = (data: { value: object[] }): void => void events.push(...(data.value as Ev[]));
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  await work();
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);
  return events;
}

interface Sample {
  /** Per painted batch (ms): first message → frame task start; the frame task; its end → the after-paint mark; first message → mark. */
  wait: number[];
  task: number[];
  after: number[];
  inPage: number[];
  /** Frame task start to the next one's (ms), while streaming. */
  intervals: number[];
  /** Per thread (process/thread name): busy ms per painted batch, and its events with the most self time. */
  threads: Map<string, { busy: number; cpu: number; self: Map<string, number> }>;
  batches: number;
}
const emptySample = (): Sample => ({ wait: [], task: [], after: [], inPage: [], intervals: [], threads: new Map(), batches: 0 });

/** Adds one traced answer's figures to `into`. */
function analyse(events: Ev[], into: Sample): void {
  const marks = events.filter((e) => e.name === 'stream-painted' && (e.cat ?? '').includes('user_timing'));
  if (marks.length === 0) throw new Error('latency-pipeline: no stream-painted marks in the trace');
  const pid = marks[0]!.pid;
  const names = new Map<string, string>();
  const processes = new Map<number, string>();
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, String(e.args?.name ?? ''));
    if (e.name === 'process_name') processes.set(e.pid, String(e.args?.name ?? ''));
  }
  const mainTid = [...names].find(([key, name]) => key.startsWith(`${pid}:`) && name === 'CrRendererMain')?.[0];
  const complete = (key: string): Ev[] => events.filter((e) => e.ph === 'X' && e.dur !== undefined && `${e.pid}:${e.tid}` === key).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const main = complete(mainTid ?? '');
  // Frame tasks: the main thread's outermost tasks that ran animation-frame callbacks.
  const frames: Array<{ start: number; end: number; raf: number }> = [];
  let taskEnd = -1;
  for (let i = 0; i < main.length; i += 1) {
    const e = main[i]!;
    if ((e.name !== 'ThreadControllerImpl::RunTask' && e.name !== 'RunTask') || e.ts < taskEnd) continue;
    taskEnd = e.ts + e.dur!;
    for (let j = i + 1; j < main.length && main[j]!.ts < taskEnd; j += 1)
      if (main[j]!.name === 'FireAnimationFrame') {
        frames.push({ start: e.ts, end: taskEnd, raf: main[j]!.ts });
        break;
      }
  }
  const arrivals = events.filter((e) => e.name === 'ws-message' && e.pid === pid).map((e) => e.ts).sort((a, b) => a - b);
  const painted = marks.map((e) => e.ts).sort((a, b) => a - b);
  const first = painted[0]!;
  const last = painted.at(-1)!;
  let counted = 0;
  const order: string[] = [];
  for (const p of painted) {
    let k = frames.length - 1;
    while (k >= 0 && frames[k]!.end > p) k -= 1;
    if (k < 0) continue;
    const frame = frames[k]!;
    const from = k > 0 ? frames[k - 1]!.raf : -Infinity;
    const arrived = arrivals.find((a) => a > from && a < frame.raf);
    if (arrived === undefined) continue;
    counted += 1;
    into.wait.push((frame.start - arrived) / 1000);
    into.task.push((frame.end - frame.start) / 1000);
    into.after.push((p - frame.end) / 1000);
    into.inPage.push((p - arrived) / 1000);
    order.push(`${f1((frame.start - arrived) / 1000)}+${f1((frame.end - frame.start) / 1000)}+${f1((p - frame.end) / 1000)}`);
  }
  if (values.detail) console.log(`  batches in order (wait+task+after ms): ${order.join(' ')}`);
  const streamed = frames.filter((f) => f.start >= first - 50_000 && f.start <= last);
  for (let i = 1; i < streamed.length; i += 1) into.intervals.push((streamed[i]!.start - streamed[i - 1]!.start) / 1000);
  into.batches += counted;
  // Each thread's busy time over the stream (outermost events only), and self time by event.
  const keys = new Set(events.filter((e) => e.ph === 'X' && e.ts >= first && e.ts <= last).map((e) => `${e.pid}:${e.tid}`));
  for (const key of keys) {
    const all = complete(key).filter((e) => e.ts >= first && e.ts <= last);
    let busy = 0;
    let cpu = 0;
    let end = -1;
    for (const e of all) {
      if (e.ts < end) continue;
      end = e.ts + e.dur!;
      busy += e.dur!;
      cpu += e.tdur ?? 0;
    }
    const pidOf = Number(key.split(':')[0]);
    const label = `${pidOf === pid ? 'page' : processes.get(pidOf) || pidOf}/${names.get(key) ?? key}`;
    const entry = into.threads.get(label) ?? { busy: 0, cpu: 0, self: new Map<string, number>() };
    entry.busy += busy / 1000;
    entry.cpu += cpu / 1000;
    for (const [name, ms] of selfTimeByName(all)) entry.self.set(name, (entry.self.get(name) ?? 0) + ms);
    into.threads.set(label, entry);
  }
}

function print(label: string, s: Sample, latencies: number[]): void {
  const stat = (v: number[]): string => `median ${f1(percentile(v, 0.5))}, p95 ${f1(percentile(v, 0.95))}`;
  const n = Math.max(1, s.batches);
  console.log(`\n${label}: ${s.batches} painted batches; latency (host → painted) ${stat(latencies)} ms`);
  console.log(`  first message → frame task start: ${stat(s.wait)}; frame task: ${stat(s.task)}; task end → after-paint mark: ${stat(s.after)}; in the page: ${stat(s.inPage)}`);
  console.log(`  frame intervals while streaming: ${stat(s.intervals)}; over 20 ms: ${s.intervals.filter((i) => i > 20).length} of ${s.intervals.length}`);
  for (const [thread, t] of [...s.threads].sort((a, b) => b[1].busy - a[1].busy)) {
    if (t.busy / n < 0.1) continue;
    const top = [...t.self].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([name, ms]) => `${name} ${f2(ms / n)}`).join(', ');
    console.log(`  ${thread}: busy ${f2(t.busy / n)} ms per batch (CPU ${f2(t.cpu / n)}): ${top}`);
  }
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
const renderer = await floorRenderer(join(values.out, 'renderer'));
const host = await startHost(['--pace-ms', '5'], { withClock: true, renderer: renderer.dir, main: join(values.out, 'main/browser-host.js') });
console.log(`load average at start ${loadavg().map(f2).join(' ')}; out ${values.out}${values.css ? `; css ${values.css}` : ''}`);
try {
  const context = await browser.newContext();
  // Each WebSocket message marks its arrival (both pages; before the page's own handler).
  await context.addInitScript(() => {
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        this.addEventListener('message', () => performance.mark('ws-message'));
      }
    };
  });
  const { page, floor } = await openAppBesideFloor(context, host);
  const followingFloor = values['following-floor'] ? await openFloor(context, host, true, 'load', '?follow') : null;
  const floors = new Map<string, Page>([['floor', floor], ...(followingFloor ? [['floor+follow', followingFloor] as const] : [])]);
  const hostOffset = (await clockOffset(host.clock)).offsetMs;
  const offsets = new Map<Page, number>();
  const cdp = new Map<Page, CDPSession>();
  for (const on of [page, ...floors.values()]) {
    offsets.set(on, (await clockOffset(() => on.evaluate(() => performance.timeOrigin + performance.now()))).offsetMs);
    cdp.set(on, await context.newCDPSession(on));
  }
  const setCss = (on: boolean): Promise<void> =>
    page.evaluate(([css, add]) => {
      const w = window as unknown as { __benchSheet?: CSSStyleSheet };
      if (!w.__benchSheet) {
        w.__benchSheet = new CSSStyleSheet();
        w.__benchSheet.replaceSync(css);
      }
      document.adoptedStyleSheets = add ? [...document.adoptedStyleSheets, w.__benchSheet] : document.adoptedStyleSheets.filter((s) => s !== w.__benchSheet);
    }, [values.css ?? '', on] as const);
  const ask = async (on: Page, question: string): Promise<number[]> => {
    await on.bringToFront();
    await on.evaluate(() => {
      performance.clearMarks('stream-painted');
      performance.clearMarks('ws-message');
    });
    if (on === page) {
      await on.getByTestId('composer-input').fill(question);
      await on.getByTestId('send').click();
      await waitForAnswerDone(on, 100);
    } else await on.evaluate((q) => (window as unknown as { floor: { askTracked(q: string): Promise<string> } }).floor.askTracked(q), question);
    await on.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const marks = await on.evaluate(() => performance.getEntriesByName('stream-painted').map((entry) => (entry as PerformanceMark).detail as { receivedAt: number; paintedAt: number }));
    return marks.map((m) => m.paintedAt - offsets.get(on)! - (m.receivedAt - hostOffset));
  };
  // A first answer untraced: the app's code and the list are warm, as in the bench.
  await ask(page, 'How fast is quick commerce growing in Bengaluru?');
  const sides = [...(values.css ? ['app', 'app+css'] : ['app']), ...floors.keys()];
  const samples = new Map(sides.map((name) => [name, { sample: emptySample(), latencies: [] as number[] }]));
  for (let round = 0; round < Number(values.rounds); round += 1) {
    const question = QUESTIONS[round % QUESTIONS.length]!;
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const side of order) {
      const on = floors.get(side) ?? page;
      if (values.css && on === page) await setCss(side === 'app+css');
      let latencies: number[] = [];
      const events = await trace(cdp.get(on)!, async () => void (latencies = await ask(on, question)));
      const into = samples.get(side)!;
      if (values.detail) console.log(`${side}, ${question}:`);
      analyse(events, into.sample);
      into.latencies.push(...latencies);
    }
    console.log(`round ${round + 1} done (${question}); load ${loadavg().map(f2).join(' ')}`);
  }
  for (const [side, { sample, latencies }] of samples) print(side, sample, latencies);
} finally {
  await browser.close();
  await stopHost(host);
  await renderer.remove();
}
