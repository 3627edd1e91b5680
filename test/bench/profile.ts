/**
 * `npm run bench:profile`: where the time of the misses goes, from a Chromium trace (the
 * DevTools timeline categories) and a CPU profile of the same work, on the harness page.
 *   - append: a whole 4 KB answer added to a 1,000-answer conversation (12 times)
 *   - delta: updates of a streaming answer around 40 KB (Clarity's renderer)
 * Prints self time per trace event (layout, style, script, parse HTML…) and the JS functions
 * with the most self time. Used for the notes in bench/notes.md; it judges nothing.
 */
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { answers, CHROMIUM_ARGS, serveHarness } from './renderer-bench';
import { selfTimeByName, type TraceEvent } from './trace-self-time';
import { closeMemoryDatabase } from '../../src/service/store/embedded';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }

/** Self time per event name on the page's main thread (children's time subtracted). */
function selfTimes(events: TraceEvent[]): Array<[string, number]> {
  const main = events.find((e) => e.name === 'thread_name' && (e as unknown as { args: { name: string } }).args.name === 'CrRendererMain');
  const complete = events.filter((e) => e.ph === 'X' && e.dur !== undefined && (!main || (e.pid === main.pid && e.tid === main.tid))).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const totals = selfTimeByName(complete);
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, 12);
}

function topFunctions(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const file = node.callFrame.url.split('/').pop() ?? '';
    const name = `${node.callFrame.functionName || '(anonymous)'} ${file}:${node.callFrame.lineNumber + 1}`;
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals].filter(([name]) => !name.startsWith('(idle)') && !name.startsWith('(program)')).sort((a, b) => b[1] - a[1]).slice(0, 15);
}

async function traced(page: Page, cdp: CDPSession, work: () => Promise<unknown>): Promise<{ events: TraceEvent[]; profile: Parameters<typeof topFunctions>[0] }> {
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (data) => void events.push(...(data.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,blink', transferMode: 'ReportEvents' });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  await work();
  const { profile } = (await cdp.send('Profiler.stop')) as { profile: Parameters<typeof topFunctions>[0] };
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  void page;
  return { events, profile };
}

const print = (title: string, rows: Array<[string, number]>, per: number): void => {
  console.log(`\n${title} (ms per operation, ${per} operations)`);
  for (const [name, ms] of rows) console.log(`  ${(ms / per).toFixed(3).padStart(8)}  ${name}`);
};

const texts = await answers(120);
const harness = await serveHarness(true);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  type Bench = { bench: { mountHistory(r: string, h: string[]): Promise<number>; append(m: string): Promise<number>; renderCost(r: string, s: string, sizes: number[]): unknown } };
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(harness.url);
  await page.waitForFunction(() => document.title === 'ready');
  const cdp = await page.context().newCDPSession(page);
  const history = Array.from({ length: 1_000 }, (_, i) => texts[i % texts.length]!);
  await page.evaluate(([h]) => (window as unknown as Bench).bench.mountHistory('clarity', h), [history] as const);
  const whole = (run: number): string => `${texts[(run * 2) % texts.length]!}\n\n${texts[(run * 2 + 1) % texts.length]!}\n\n${texts[(run * 2 + 2) % texts.length]!}`.slice(0, 4_096);
  const append = await traced(page, cdp, async () => {
    for (let run = 0; run < 12; run += 1) await page.evaluate(([m]) => (window as unknown as Bench).bench.append(m), [whole(run)] as const);
  });
  print('Append a whole 4 KB answer: trace self time', selfTimes(append.events), 12);
  print('Append a whole 4 KB answer: JS self time', topFunctions(append.profile), 12);

  let source = texts.slice(0, 40).join('\n\n');
  while (source.length < 45_000) source += `\n\n${texts.slice(40, 80).join('\n\n')}`;
  const fresh = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await fresh.goto(harness.url);
  await fresh.waitForFunction(() => document.title === 'ready');
  const cdp2 = await fresh.context().newCDPSession(fresh);
  let deltas = 0;
  const delta = await traced(fresh, cdp2, async () => {
    const costs = (await fresh.evaluate(([s]) => (window as unknown as Bench).bench.renderCost('clarity', s, [40_000]), [source] as const)) as Record<string, { n: number }>;
    deltas = costs['40000']!.n;
  });
  // The whole stream is traced; per-operation figures divide by all its updates.
  const updates = Math.round((45_000 * 1.1) / 20);
  print(`Streaming to 44 KB (${deltas} updates around 40 KB; all ~${updates} updates traced): trace self time`, selfTimes(delta.events), updates);
  print('Streaming: JS self time', topFunctions(delta.profile), updates);
} finally {
  await browser.close();
  await harness.close();
}
// The answers' in-process service leaves its in-memory database open; closed, the run ends by itself.
await closeMemoryDatabase();
