/**
 * Issue 50, round 8: what dirties the page's layout between the browser's own layout of a streamed
 * frame and the list's follow in the rows' ResizeObserver callback (the follow's scroll write then
 * lays the page out again). Benchmark only; judges nothing.
 *   npx tsx test/bench/follow-layout-dirt.ts [--answers N]
 * Traces N streamed answers with Blink's layout-invalidation tracking and, for every layout forced
 * inside a ResizeObserver callback, prints which invalidations came since the frame's previous
 * layout: their reason, the node, and the top of their JS stack.
 */
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, floorRenderer, openAppBesideFloor, startHost, stopHost, waitForAnswerDone } from './app-bench';
import { closeMemoryDatabase } from '../../src/service/store/embedded';
import { mainThread, type Ev } from './frame-breakdown';

const args = process.argv.slice(2);
const answers = Number(args[args.indexOf('--answers') + 1] || 2) || 2;
type Frame = { functionName?: string; url?: string; lineNumber?: number };
type Traced = Ev & { args?: { data?: { reason?: string; nodeName?: string; stackTrace?: Frame[] }; beginData?: { stackTrace?: Frame[] } } };

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
const renderer = await floorRenderer();
const host = await startHost(['--pace-ms', '5'], { withClock: true, renderer: renderer.dir });
console.log(`load average at start ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
try {
  const context = await browser.newContext();
  const { page } = await openAppBesideFloor(context, host);
  const ask = async (question: string): Promise<void> => {
    await page.getByTestId('composer-input').fill(question);
    await page.getByTestId('send').click();
    await waitForAnswerDone(page, 100);
  };
  await ask('How fast is quick commerce growing in Bengaluru?');
  const cdp = await context.newCDPSession(page);
  const events: Traced[] = [];
  cdp.on('Tracing.dataCollected', (data: { value: object[] }) => void events.push(...(data.value as Traced[])));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.invalidationTracking,disabled-by-default-devtools.timeline.stack,toplevel', transferMode: 'ReportEvents' });
  const questions = ['Tanishq jewellery in Kerala', 'Zudio store openings in Pune', 'Apollo Pharmacy hiring in Hyderabad'];
  for (let r = 0; r < answers; r += 1) await ask(questions[r % questions.length]!);
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  // The page's main thread, every event of it (invalidations are instant events).
  const busiest = mainThread(events)[0];
  const main = events.filter((e) => e.pid === busiest?.pid && e.tid === busiest?.tid).sort((a, b) => a.ts - b.ts);
  const frames = main.filter((e) => e.name === 'FireAnimationFrame').length;
  const observerEvents = [...new Set(main.filter((e) => /resize ?observer/i.test(e.name)).map((e) => e.name))];
  const stackOf = (frames: Frame[] | undefined): string => (frames ?? []).slice(0, 3).map((f) => `${f.functionName || '(anonymous)'} ${(f.url ?? '').split('/').pop()}:${(f.lineNumber ?? 0) + 1}`).join(' < ');
  // A layout with a JS stack was forced by script; the list's follow is among them.
  const forcedBy = new Map<Traced, string>();
  const layouts = main.filter((e) => e.name === 'Layout' && (e.ph === 'X' || e.ph === 'B'));
  const invalidations = main.filter((e) => e.name === 'LayoutInvalidationTracking');
  const tally = new Map<string, number>();
  let forced = 0;
  for (const layout of layouts) {
    const by = stackOf(layout.args?.beginData?.stackTrace);
    if (!by) continue;
    forced += 1;
    forcedBy.set(layout, by);
    tally.set(`FORCED BY ${by}`, (tally.get(`FORCED BY ${by}`) ?? 0) + 1);
    const previous = layouts.filter((l) => l.ts < layout.ts).at(-1);
    for (const inv of invalidations.filter((i) => i.ts > (previous?.ts ?? 0) && i.ts < layout.ts)) {
      const d = inv.args?.data ?? {};
      const label = `  before ${by.split(' ')[0]}: ${d.reason ?? '?'} | ${d.nodeName ?? '?'} | ${stackOf(d.stackTrace) || '(no JS stack)'}`;
      tally.set(label, (tally.get(label) ?? 0) + 1);
    }
  }
  console.log(`${answers} answers; animation frames ${frames}; observer events ${observerEvents.join(', ') || 'none'}; layouts forced by script: ${forced} of ${layouts.length}; invalidations traced: ${invalidations.length}; load ${loadavg()[0]!.toFixed(2)}`);
  for (const [label, n] of [...tally].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${n}  ${label}`);
} finally {
  await browser.close();
  await stopHost(host);
  await renderer.remove();
  await closeMemoryDatabase();
}
