/**
 * Benchmark only (issue 31): client-added latency beside its floor, with where the time goes.
 * `npx tsx test/bench/latency-ab.ts [--rounds N] [--variant name=OUTDIR ...] [--trace DIR] [--dump FILE]`
 * (default: one variant, `current=out`, as built). Each round starts a browser host of every
 * variant in turn (its own built main process and renderer, the floor page beside it,
 * `--pace-ms 5` as in `npm run bench`) and asks its app and then its floor page the same questions,
 * the order of variants turning each round, so a loaded machine weighs on all alike. The figure
 * is app-bench's: main's SSE bytes → the frame that painted them (the same `stream-painted` mark
 * on both pages, clocks calibrated). With --trace, the first round of every variant and floor is
 * traced (Chromium's timeline over CDP, plus a CPU profile): per page, the main thread's self time
 * per event per painted batch, frame lengths, and the JS functions with the most self time.
 */
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, clockOffset, floorRenderer, openAppBesideFloor, startHost, stopHost, waitForAnswerDone, type Host } from './app-bench';
import { summariseMainThread, traced } from './cdp-trace';
import { cpuProfileTopSelf } from './trace-self-time';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, trace: { type: 'string' }, 'trace-question': { type: 'string', default: '1' }, variant: { type: 'string', multiple: true }, dump: { type: 'string' } } });
const variants = (values.variant ?? ['current=out']).map((spec) => {
  const [name, dir] = spec.split('=');
  return { name: name!, outDir: dir! };
});
const QUESTIONS = ['How fast is quick commerce growing in Bengaluru?', 'Tanishq jewellery in Kerala', 'Zudio store openings in Pune', 'Apollo Pharmacy hiring in Hyderabad'];
const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0;

interface Side { name: string; page: Page; offsetMs: number; latencies: number[]; cdp: CDPSession }
interface Variant { name: string; host: Host; hostOffsetMs: number; app: Side; floor: Side; remove(): Promise<void> }

type Mark = { receivedAt: number; paintedAt: number };
const paintedMarks = (on: Page): Promise<Mark[]> => on.evaluate(() => performance.getEntriesByName('stream-painted').map((entry) => (entry as PerformanceMark).detail as Mark));

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
const latencies = new Map(variants.map((v) => [v.name, { app: [] as number[], floor: [] as number[] }]));
const report: Record<string, unknown> = {};
/** With --dump FILE: every question's latencies in stream order, per page, to see where in a stream the tail falls. */
const dumped: Array<{ round: number; page: string; question: number; latencies: number[] }> = [];

/** A host of this variant, with its app page (ready) and floor page in one context, clocks calibrated. */
async function open({ name, outDir }: (typeof variants)[number]): Promise<Variant> {
  const renderer = await floorRenderer(join(outDir, 'renderer'));
  const host = await startHost(['--pace-ms', '5'], { withClock: true, renderer: renderer.dir, main: join(outDir, 'main/browser-host.js') });
  const context = await browser.newContext();
  const { page, floor } = await openAppBesideFloor(context, host);
  const hostOffsetMs = (await clockOffset(host.clock)).offsetMs;
  const side = async (label: string, on: Page): Promise<Side> => ({ name: `${name} ${label}`, page: on, offsetMs: (await clockOffset(() => on.evaluate(() => performance.timeOrigin + performance.now()))).offsetMs, latencies: [], cdp: await context.newCDPSession(on) });
  return {
    name,
    host,
    hostOffsetMs,
    app: await side('app', page),
    floor: await side('floor', floor),
    remove: async () => {
      await context.close();
      await stopHost(host);
      await renderer.remove();
    },
  };
}

try {
  const rounds = Number(values.rounds);
  // One host at a time (two browser hosts running at once kept the second's page from seeing
  // its service ready here); every round starts each variant's host afresh, the order turning.
  for (let round = 0; round < rounds; round += 1) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const spec of order) {
      const variant = await open(spec);
      try {
        for (const question of QUESTIONS) {
          for (const side of [variant.app, variant.floor]) {
            await side.page.bringToFront();
            await side.page.evaluate(() => performance.clearMarks('stream-painted'));
            const ask = async (): Promise<void> => {
              if (side === variant.app) {
                await side.page.getByTestId('composer-input').fill(question);
                await side.page.getByTestId('send').click();
                await waitForAnswerDone(side.page, 100);
              } else await side.page.evaluate((q) => (window as unknown as { floor: { askTracked(q: string): Promise<string> } }).floor.askTracked(q), question);
              await side.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
            };
            const measured = async (): Promise<number[]> => {
              await ask();
              return (await paintedMarks(side.page)).map((m) => m.paintedAt - side.offsetMs - (m.receivedAt - variant.hostOffsetMs));
            };
            let batch: number[];
            if (values.trace && round === 0 && question === QUESTIONS[Number(values['trace-question'])]) {
              const { result, events, profile } = await traced(side.cdp, measured);
              batch = result;
              const { self, frames, animationFrames, perAnimationFrame } = summariseMainThread(events);
              const file = join(values.trace, `${side.name.replace(/\W+/g, '-')}.json`);
              await writeFile(file, JSON.stringify({ traceEvents: events }));
              await writeFile(file.replace(/\.json$/, '.cpuprofile'), JSON.stringify(profile));
              report[side.name] = { batches: batch.length, latency: { median: percentile(batch, 0.5), p95: percentile(batch, 0.95) }, framesOver16: frames.filter((f) => f > 16.7).length, tasks: frames.length, animationFrameTask: { n: animationFrames.length, mean: +(animationFrames.reduce((a, b) => a + b, 0) / Math.max(1, animationFrames.length)).toFixed(2), median: +percentile(animationFrames, 0.5).toFixed(2), p90: +percentile(animationFrames, 0.9).toFixed(2) }, perAnimationFrame, longestTasks: [...frames].sort((a, b) => b - a).slice(0, 8).map((f) => f.toFixed(1)), selfMsPerBatch: Object.fromEntries(self.map(([n, ms]) => [n, +(ms / batch.length).toFixed(3)])), jsSelfMs: Object.fromEntries(cpuProfileTopSelf(profile, 20).map(([n, ms]) => [n, +ms.toFixed(1)])) };
              console.log(JSON.stringify({ traced: side.name, ...(report[side.name] as object) }, null, 2));
            } else batch = await measured();
            latencies.get(variant.name)![side === variant.app ? 'app' : 'floor'].push(...batch);
            dumped.push({ round, page: side.name, question: QUESTIONS.indexOf(question), latencies: batch.map((ms) => +ms.toFixed(1)) });
          }
        }
      } finally {
        await variant.remove();
      }
    }
    console.log(`round ${round + 1} (load ${loadavg()[0]!.toFixed(1)}): ${variants.map((v) => `${v.name} app p95 ${percentile(latencies.get(v.name)!.app, 0.95).toFixed(1)} / floor ${percentile(latencies.get(v.name)!.floor, 0.95).toFixed(1)}`).join('; ')}`);
  }
  const table = variants.map((v) => {
    const stat = (l: number[]) => ({ median: +percentile(l, 0.5).toFixed(1), p95: +percentile(l, 0.95).toFixed(1), n: l.length });
    const app = stat(latencies.get(v.name)!.app);
    const floor = stat(latencies.get(v.name)!.floor);
    return { variant: v.name, app, floor, ratioP95: +(app.p95 / floor.p95).toFixed(2), ratioMedian: +(app.median / floor.median).toFixed(2) };
  });
  console.log(JSON.stringify(table, null, 2));
  if (values.dump) await writeFile(values.dump, JSON.stringify(dumped, null, 1));
} finally {
  await browser.close();
}
