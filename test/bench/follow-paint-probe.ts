/**
 * Benchmark only (issue 50, round 7): what following a growing end costs each thread, by layout,
 * on a bare page in the bench's Chromium (software compositing, as `npm run bench`).
 *   npx tsx test/bench/follow-paint-probe.ts [--rounds N] [--modes follow,reverse,still,composited,opaque] [--features abs,caret,table]
 * One scroller 900 × 650 px holding eight answer-like boxes (text, a chip, border and radius as
 * the app's) and a ninth that grows by a few words every 25 ms, 120 steps a run:
 * - follow: the app's way, `scrollTop` written to the end after each step;
 * - reverse: a `column-reverse` scroller (decision 0029's option): the end is the scroll origin,
 *   so growth needs no scroll write;
 * - still: nothing followed (the floor page's case: the text goes below the fold);
 * - composited: follow, with `will-change: scroll-position` on the scroller;
 * - opaque: composited, the scroller painting the page's background colour itself (an opaque layer).
 * `--features` adds what the app's list has: `abs` the settled rows absolutely placed by transform in
 * a holder (the virtualiser's; the growing row in flow under it, as a bottom-anchored list would keep it), `caret` the blinking streaming caret, `table` a table with overflow-x in each box.
 * Modes run in turns each round, a new page each; one Chromium trace per run. Prints per growth
 * step each thread's busy ms (outermost events) and the raster and draw events' time.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './app-bench';
import type { TraceEvent } from './trace-self-time';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, modes: { type: 'string', default: 'follow,reverse,still,composited,opaque' }, features: { type: 'string', default: '' } } });
const modes = values.modes.split(',');
const features = new Set(values.features.split(',').filter(Boolean));
const STEPS = 120;
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'toplevel', 'cc', 'viz', 'gpu', 'blink.user_timing'].join(',');
const NAMED = ['DisplayItemList::Raster', 'SoftwareRenderer::DoDrawQuad', 'Paint', 'Layout'];
type Ev = TraceEvent & { tdur?: number };

function page(mode: string): string {
  const text = 'Quick commerce in Bengaluru grew <b>42%</b> last quarter <span class="chip">3</span>, with Zepto and Blinkit opening dark stores across the city; analysts expect the pace to hold as tier-2 cities follow. ';
  const follow = mode === 'follow' || mode === 'composited' || mode === 'opaque' ? 'scroller.scrollTop = scroller.scrollHeight;' : '';
  const placed = (i: number): string => (features.has('abs') ? `position:absolute;left:0;top:0;width:100%;transform:translateY(${i * 300}px)` : '');
  const table = features.has('table') ? '<table><tr><td>Zepto</td><td>42%</td></tr><tr><td>Blinkit</td><td>38%</td></tr></table>' : '';
  const boxes = Array.from({ length: 8 }, (_, i) => `<div class="answer" style="${placed(i)}">${text.repeat(4)}${table}</div>`).join('');
  return `<!doctype html><html><head><style>
    body { margin: 0; font-family: system-ui, sans-serif; font-size: 15px; color: #1b2230; background: #f6f7f9; }
    #scroller { height: 650px; width: 900px; overflow-y: auto; padding: 1rem 1.5rem 2rem; box-sizing: border-box; overflow-anchor: none; }
    ${mode === 'reverse' ? '#scroller { display: flex; flex-direction: column-reverse; }' : ''}
    ${mode === 'composited' || mode === 'opaque' ? '#scroller { will-change: scroll-position; }' : ''}
    ${mode === 'opaque' ? '#scroller { background: #f6f7f9; }' : ''}
    .answer { max-width: 52rem; background: #fff; border: 1px solid #e1e5ec; border-radius: 10px; padding: 0.9rem 1.2rem; margin-bottom: 1rem; line-height: 1.55; }
    .chip { display: inline-block; padding: 0 0.3rem; font-size: 0.72rem; border-radius: 999px; border: 1px solid #1f5fbf; background: #e7effb; color: #1f5fbf; }
    .caret { display: inline-block; width: 0.5rem; height: 1rem; background: #1f5fbf; animation: blink 1s steps(2) infinite; }
    @keyframes blink { 50% { opacity: 0; } }
    table { display: block; overflow-x: auto; border-collapse: collapse; } td { border: 1px solid #e1e5ec; }
  </style></head><body><div id="scroller"><div>${features.has('abs') ? `<div style="position:relative;height:2400px">${boxes}</div>` : boxes}
    <div class="answer"><span id="growing"></span>${features.has('caret') ? '<span class="caret"></span>' : ''}</div></div></div>
  <script>
    const scroller = document.getElementById('scroller');
    const growing = document.getElementById('growing');
    let step = 0;
    window.run = () => new Promise((resolve) => {
      const timer = setInterval(() => {
        growing.insertAdjacentHTML('beforeend', 'word' + step + ' more of the answer ');
        step += 1;
        ${follow}
        requestAnimationFrame(() => setTimeout(() => performance.mark('step-painted')));
        if (step % ${STEPS} === 0) { clearInterval(timer); resolve(); }
      }, 25);
    });
    ${follow}
  </script></body></html>`;
}

/** Busy ms per thread kind (outermost events) and the named events' ms, over the run's steps. */
function perStep(events: Ev[]): Map<string, number> {
  const names = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, String(e.args?.name ?? ''));
  const marks = events.filter((e) => e.name === 'step-painted').map((e) => e.ts);
  const first = Math.min(...marks);
  const last = Math.max(...marks);
  const byThread = new Map<string, Ev[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.dur === undefined || e.ts < first || e.ts > last) continue;
    const key = `${e.pid}:${e.tid}`;
    byThread.set(key, [...(byThread.get(key) ?? []), e]);
  }
  const out = new Map<string, number>();
  const add = (key: string, ms: number): void => void out.set(key, (out.get(key) ?? 0) + ms / marks.length);
  for (const [key, list] of byThread) {
    const thread = (names.get(key) ?? key).replace(/\d+$/, '');
    if (!/^(CrRendererMain|Compositor|ThreadPoolForegroundWorker|CompositorTileWorker|VizCompositorThread)/.test(thread)) continue;
    list.sort((a, b) => a.ts - b.ts);
    let end = -1;
    for (const e of list) {
      if (NAMED.includes(e.name)) add(`  ${e.name}`, e.dur! / 1000);
      if (e.ts < end) continue;
      end = e.ts + e.dur!;
      add(thread, e.dur! / 1000);
    }
  }
  return out;
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
const totals = new Map(modes.map((mode) => [mode, new Map<string, number>()]));
console.log(`load average at start ${loadavg().map((n) => n.toFixed(2)).join(' ')}; features ${[...features].join(',') || 'none'}`);
try {
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const mode of modes.map((_, i) => modes[(i + round) % modes.length]!)) {
      const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
      const tab = await context.newPage();
      await tab.setContent(page(mode));
      await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const cdp = await context.newCDPSession(tab);
      const events: Ev[] = [];
      cdp.on('Tracing.dataCollected', (data: { value: object[] }) => void events.push(...(data.value as Ev[])));
      await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
      await tab.evaluate(() => (window as unknown as { run(): Promise<void> }).run());
      const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
      await cdp.send('Tracing.end');
      await done;
      const into = totals.get(mode)!;
      for (const [key, ms] of perStep(events)) into.set(key, (into.get(key) ?? 0) + ms / Number(values.rounds));
      await context.close();
    }
    console.log(`round ${round + 1} done; load ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  }
} finally {
  await browser.close();
}
for (const [mode, figures] of totals) {
  console.log(`\n${mode} (ms per growth step):`);
  for (const [key, ms] of [...figures].sort((a, b) => (a[0].startsWith(' ') === b[0].startsWith(' ') ? b[1] - a[1] : a[0].startsWith(' ') ? 1 : -1))) console.log(`  ${key.padEnd(40)} ${ms.toFixed(2)}`);
}
