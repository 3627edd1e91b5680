/**
 * Benchmark only (issue 31): what the app's page paints while an answer streams, beside the floor
 * page. `npx tsx test/bench/latency-paint.ts [--out OUTDIR] [--save FILE] [--css RULES]`: after a
 * first answer, the app page's composited layers (LayerTree: node, size, compositing reasons,
 * scroll rects such as RepaintsOnScroll), then one question on each page traced with Chromium's
 * invalidation tracking: the paint events per painted layer (count, cull rect, total ms) and the
 * style and layout invalidations by node and reason. Chromium here emits no paint-invalidation
 * events, so what a frame repaints is read from the layers and the paint events. --css adds rules
 * to the app page (a constructed sheet: the page's policy allows no inline style) to try a
 * change without a build; --save keeps both traces (for frame-phases.ts) and a screenshot.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, floorRenderer, openAppBesideFloor, startHost, stopHost, waitForAnswerDone } from './app-bench';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'out' }, save: { type: 'string' }, css: { type: 'string' } } });
type Ev = { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number; cat: string; args?: { data?: Record<string, unknown> } };

async function trace(cdp: CDPSession, work: () => Promise<void>): Promise<Ev[]> {
  const events: Ev[] = [];
  const collect = (data: { value: object[] }): void => void events.push(...(data.value as Ev[]));
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.invalidationTracking,disabled-by-default-devtools.timeline.frame,toplevel', transferMode: 'ReportEvents' });
  await work();
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);
  return events;
}

function summarise(label: string, events: Ev[]): void {
  const count = (m: Map<string, number>, k: string, by = 1): void => void m.set(k, (m.get(k) ?? 0) + by);
  const paints = events.filter((e) => e.name === 'Paint' && e.ph === 'X');
  const byLayer = new Map<string, number>();
  const byLayerMs = new Map<string, number>();
  for (const p of paints) {
    const d = p.args?.data as { clip?: number[]; nodeName?: string; layerId?: number } | undefined;
    const clip = d?.clip ?? [];
    const w = clip.length >= 8 ? Math.round(clip[2]! - clip[0]!) : 0;
    const h = clip.length >= 8 ? Math.round(clip[5]! - clip[1]!) : 0;
    const key = `${d?.nodeName ?? '?'} layer ${d?.layerId ?? '?'} ${w}x${h}`;
    count(byLayer, key);
    count(byLayerMs, key, (p.dur ?? 0) / 1000);
  }
  const inval = new Map<string, number>();
  for (const e of events.filter((x) => x.name === 'PaintInvalidationTracking' || x.name === 'LayoutInvalidationTracking' || x.name === 'StyleRecalcInvalidationTracking' || x.name === 'StyleInvalidatorInvalidationTracking' || x.name === 'ScrollInvalidationTracking')) {
    const d = e.args?.data as { nodeName?: string; reason?: string; invalidationList?: Array<{ classes?: string[] }> } | undefined;
    count(inval, `${e.name.replace('InvalidationTracking', '')}: ${d?.nodeName ?? '?'} — ${d?.reason ?? ''}`);
  }
  console.log(`\n== ${label}: ${paints.length} paint events (nested: a layer's paint holds its children's)`);
  for (const [k, n] of [...byLayer].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  paint ${n}× ${k}  total ${byLayerMs.get(k)!.toFixed(1)} ms`);
  console.log('  invalidations:');
  for (const [k, n] of [...inval].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`   ${n}× ${k}`);
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
const renderer = await floorRenderer(join(values.out, 'renderer'));
const host = await startHost(['--pace-ms', '5'], { withClock: true, renderer: renderer.dir, main: join(values.out, 'main/browser-host.js') });
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
  // A first answer (so the list has a settled row above), then the traced one.
  await ask(page, 'How fast is quick commerce growing in Bengaluru?', true);
  // A style to try on the app's page (issue 31's probes), added before the traced question.
  // A constructed sheet: the page's policy allows no inline style.
  if (values.css)
    await page.evaluate((css) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }, values.css);
  // The composited layers of the app's page, and what each repaints while an answer streams.
  const layers = await context.newCDPSession(page);
  type Layer = { layerId: string; parentLayerId?: string; backendNodeId?: number; width: number; height: number; offsetX: number; offsetY: number; drawsContent: boolean; scrollRects?: Array<{ type: string }> };
  let tree: Layer[] = [];
  const painted = new Map<string, { n: number; area: number }>();
  layers.on('LayerTree.layerTreeDidChange', (e: { layers?: Layer[] }) => void (tree = e.layers ?? tree));
  layers.on('LayerTree.layerPainted', (e: { layerId: string; clip: { width: number; height: number } }) => {
    const p = painted.get(e.layerId) ?? { n: 0, area: 0 };
    p.n += 1;
    p.area += e.clip.width * e.clip.height;
    painted.set(e.layerId, p);
  });
  await layers.send('DOM.getDocument', { depth: -1 });
  await layers.send('LayerTree.enable');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const appEvents = await trace(await context.newCDPSession(page), () => ask(page, 'Tanishq jewellery in Kerala', true));
  for (const [id, p] of painted) console.log(`layerPainted ${id}: ${p.n}× mean ${Math.round(p.area / p.n)} px²`);
  for (const l of tree) {
    const { compositingReasons } = (await layers.send('LayerTree.compositingReasons', { layerId: l.layerId }).catch(() => ({ compositingReasons: ['?'] }))) as { compositingReasons: string[] };
    const node = l.backendNodeId ? ((await layers.send('DOM.describeNode', { backendNodeId: l.backendNodeId }).catch(() => null)) as { node: { nodeName: string; attributes?: string[] } } | null) : null;
    console.log(`layer ${l.layerId} parent ${l.parentLayerId ?? '-'} ${node ? `${node.node.nodeName}.${(node.node.attributes ?? []).join(' ').slice(0, 60)}` : '-'} ${l.width}x${l.height} @${l.offsetX},${l.offsetY} draws ${l.drawsContent} scrollRects ${(l.scrollRects ?? []).map((r) => r.type).join(',')} reasons ${compositingReasons.join(',')}`);
  }
  await layers.send('LayerTree.disable');
  const floorEvents = await trace(await context.newCDPSession(floor), () => ask(floor, 'Tanishq jewellery in Kerala', false));
  if (values.save) {
    await writeFile(values.save, JSON.stringify({ traceEvents: appEvents }));
    await writeFile(values.save.replace(/\.json$/, '-floor.json'), JSON.stringify({ traceEvents: floorEvents }));
    await page.screenshot({ path: values.save.replace(/\.json$/, '.png') });
  }
  summarise('app', appEvents);
  summarise('floor', floorEvents);
} finally {
  await browser.close();
  await stopHost(host);
  await renderer.remove();
}
