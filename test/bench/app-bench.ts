/**
 * Figures measured on the real app through the browser host (real main-process services, real
 * renderer, real local service) in Debian's Chromium:
 *   1. client-added latency: main receiving an SSE event's bytes → its text painted, the two
 *      processes' clocks calibrated against the benchmark's own (never two timeOrigins subtracted)
 *   5. keystroke → next paint on the app's own zustand-controlled Composer while an answer streams,
 *      beside a plain textarea in the same page during the same streams
 *   6. health table with 5,000 sources: mount, sort (worst of 12 clicks), filter
 *   7. cold start from the host process's spawn (`npm run web`'s command): service ready, shell
 *      painted, composer accepts a key, page ready to ask; the first start on a new data
 *      directory apart from the later ones
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { CHROMIUM_TEST_FLAGS } from '../support/chromium-flags';

export const CHROMIUM_ARGS = CHROMIUM_TEST_FLAGS;
const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0;
const round = (n: number): number => Math.round(n * 100) / 100;
/** The benchmark's clock, as epoch milliseconds (the same form the app's marks use). */
const nowEpoch = (): number => performance.timeOrigin + performance.now();

export interface Host {
  url: string;
  child: ChildProcess;
  dataDir: string;
  /** Whether stopping the host removes its data directory (one made for it alone). */
  ownsDataDir: boolean;
  /** Benchmark-clock instant of the spawn; the host's "Service:" line, resolved when printed. */
  spawnedAt: number;
  serviceReady: Promise<number>;
  /** Reads the host process's clock (test/bench/clock-probe.ts). */
  clock(): Promise<number>;
}

/** Starts a browser host; resolves once its page can load (`early`) or once its service is ready too. */
export async function startHost(args: string[], { early = false, withClock = false, dataDir: existing, renderer, main = 'out/main/browser-host.js' }: { early?: boolean; withClock?: boolean; dataDir?: string; renderer?: string; main?: string } = {}): Promise<Host> {
  const dataDir = existing ?? (await mkdtemp(join(tmpdir(), 'clarity-appbench-')));
  const spawnedAt = performance.now();
  // As `npm run web` runs it (built JS; the benchmark builds first). Only the hosts whose clock
  // is read load the probe (under tsx); a cold start is the bare command.
  const probe = withClock ? ['--import', 'tsx', '--import', './test/bench/clock-probe.ts'] : [];
  const child = spawn(process.execPath, [...probe, main, '--port', '0', '--data-dir', dataDir, ...(renderer ? ['--renderer', renderer] : []), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const clockWaiters: Array<(now: number) => void> = [];
  let serviceReadyAt: (at: number) => void = () => undefined;
  const serviceReady = new Promise<number>((resolve) => (serviceReadyAt = resolve));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('Service: ')) serviceReadyAt(performance.now());
      if (line.startsWith(early ? '{"event":"browser-host-listening"' : '{"event":"browser-host-ready"')) resolve((JSON.parse(line) as { url: string }).url);
      if (line.startsWith('{"event":"clock"')) clockWaiters.shift()?.((JSON.parse(line) as { now: number }).now);
    });
    child.once('exit', (code) => reject(new Error(`browser host exited ${code}`)));
  });
  const clock = (): Promise<number> =>
    new Promise((resolve) => {
      clockWaiters.push(resolve);
      child.stdin!.write('\n');
    });
  return { url, child, dataDir, ownsDataDir: existing === undefined, spawnedAt, serviceReady, clock };
}

export async function stopHost(host: Host): Promise<void> {
  await new Promise<void>((resolve) => {
    host.child.once('exit', () => resolve());
    host.child.kill('SIGTERM');
  });
  if (host.ownsDataDir) await rm(host.dataDir, { recursive: true, force: true });
}

/**
 * The renderer build with the floor page beside it (test/bench/floor, under /bench-floor/), in a
 * copy: the host serves only its renderer folder, and out/renderer stays as built.
 */
export async function floorRenderer(source = 'out/renderer'): Promise<{ dir: string; remove(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'clarity-appbench-renderer-'));
  const dir = join(root, 'renderer');
  await cp(source, dir, { recursive: true });
  // The floor page imports the app's latency mark: Vite bundles it into same-origin files.
  await build({ configFile: false, root: 'test/bench/floor', base: './', logLevel: 'warn', build: { outDir: join(dir, 'bench-floor'), emptyOutDir: true, modulePreload: false, rollupOptions: { input: 'test/bench/floor/floor.html' } } });
  return { dir, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * Opens the floor page of a host in `context`: the launch token (good once) is traded for the
 * session cookie by a plain request if no page of the context has done it yet.
 */
export async function openFloor(context: BrowserContext, host: Host, tokenUsed: boolean, waitUntil: 'load' | 'commit' = 'load', query = ''): Promise<Page> {
  if (!tokenUsed) await context.request.get(host.url, { maxRedirects: 0 });
  const page = await context.newPage();
  await page.goto(`${new URL(host.url).origin}/bench-floor/floor.html${query}`, { waitUntil });
  return page;
}

/**
 * Offset of another process's epoch clock from the benchmark's: read it between two readings
 * of our own, 30 times, and keep the reading with the shortest round trip (its midpoint is off
 * by at most half that round trip, reported as the uncertainty).
 */
export async function clockOffset(read: () => Promise<number>): Promise<{ offsetMs: number; uncertaintyMs: number }> {
  let best = { offsetMs: 0, uncertaintyMs: Infinity };
  for (let i = 0; i < 30; i += 1) {
    const before = nowEpoch();
    const theirs = await read();
    const after = nowEpoch();
    if ((after - before) / 2 < best.uncertaintyMs) best = { offsetMs: theirs - (before + after) / 2, uncertaintyMs: (after - before) / 2 };
  }
  return best;
}

// Mount and filter: from the click to the next frame showing the rows. Sort: the work of one
// click (sorting, rendering the rows, laying them out), each column both ways: 12 clicks.
const HEALTH_TABLE_SCRIPT = `(async () => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
  const until = async (check) => { while (!check()) await frame(); return frame(); };
  let started = performance.now();
  document.querySelector('[data-testid="nav-health"]').click();
  const mountMs = (await until(() => document.querySelectorAll('[data-testid="health-row"]').length > 0)) - started;
  const rowsText = () => [...document.querySelectorAll('[data-testid="health-row"]')].slice(0, 8).map((row) => row.textContent).join('|');
  const sorts = [];
  for (const key of ['name', 'kind', 'cadence', 'items_24h', 'last_item_at', 'health']) {
    for (let direction = 0; direction < 2; direction += 1) {
      await frame();
      const before = rowsText();
      started = performance.now();
      document.querySelector('[data-testid="sort-' + key + '"]').click();
      await Promise.resolve();
      void document.body.offsetHeight;
      const ms = performance.now() - started;
      if (rowsText() === before) throw new Error('sorting by ' + key + ' changed nothing');
      sorts.push(ms);
    }
  }
  sorts.sort((a, b) => a - b);
  const select = document.querySelector('[data-testid="health-filter-health"]');
  const count = () => document.querySelector('[data-testid="health-count"]')?.textContent ?? '';
  const beforeCount = count();
  started = performance.now();
  Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(select, 'down');
  select.dispatchEvent(new Event('change', { bubbles: true }));
  const filterMs = (await until(() => count() !== beforeCount)) - started;
  return { mountMs, sortMedianMs: sorts[Math.floor(sorts.length / 2)], sortWorstMs: sorts[sorts.length - 1], sortClicks: sorts.length, filterMs };
})()`;

// Keystroke → next paint: from the key event's own timestamp to a message posted from the next
// frame callback after the input was handled (it runs after that frame's paint). The same probe
// watches the app's Composer and a plain, uncontrolled <textarea> the benchmark adds to the same
// page: keys go to each in turn during the same streams, so the plain one is the floor that this
// browser, machine and stream impose on any text box, and the difference is what the Composer adds.
const KEYSTROKE_PROBE = `(() => {
  window.__keystrokes = [];
  const plain = document.createElement('textarea');
  plain.dataset.benchPlain = '';
  plain.setAttribute('aria-label', 'benchmark baseline');
  plain.style.cssText = 'position:fixed;left:8px;bottom:8px;width:160px;height:32px;z-index:9';
  document.body.appendChild(plain);
  const watch = (input, target) => input.addEventListener('keydown', (event) => {
    const streaming = document.querySelector('[data-testid="answer"][data-status="streaming"]') !== null;
    const sent = event.timeStamp;
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { window.__keystrokes.push({ ms: performance.now() - sent, streaming, target }); channel.port1.close(); };
      channel.port2.postMessage(null);
    });
  });
  watch(document.querySelector('[data-testid="composer-input"]'), 'composer');
  watch(plain, 'plain');
})()`;

// The same probe on the floor page's textarea; "streaming" is the floor page's own stream.
const FLOOR_KEYSTROKE_PROBE = `(() => {
  window.__keystrokes = [];
  document.querySelector('textarea').addEventListener('keydown', (event) => {
    const streaming = window.floor.streaming;
    const sent = event.timeStamp;
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { window.__keystrokes.push({ ms: performance.now() - sent, streaming, target: 'floor' }); channel.port1.close(); };
      channel.port2.postMessage(null);
    });
  });
})()`;

export interface AppBenchResult {
  latencyMs: { median: number; p95: number; n: number; calibrationUncertaintyMs: number };
  keystrokeMs: { median: number; p95: number; n: number };
  /** The same keys into a plain <textarea> in the same page during the same streams (baseline). */
  keystrokePlainMs?: { median: number; p95: number; n: number };
  /** Both with no answer streaming: the vsync floor of this browser and machine. */
  keystrokeIdleMs?: { composer: { median: number; p95: number; n: number }; plain: { median: number; p95: number; n: number } };
  coldStart: {
    runs: number;
    serviceReadyMs: { median: number; worst: number };
    shellPaintedMs: { median: number; worst: number };
    composerReadyMs: { median: number; worst: number };
    askReadyMs: { median: number; worst: number };
    /** The first start on a new data directory (the service generates and caches its corpus). */
    firstStart: ColdStart;
  };
  healthTable: { mountMs: number; sortMedianMs: number; sortWorstMs: number; sortClicks: number; filterMs: number };
  /**
   * The floors (test/bench/floor/floor.js on the same host): keys into a bare page's textarea
   * while that page streams the same answers; batches of the same stream appended to a <div>;
   * cold starts to a bare page whose textarea shows a key.
   */
  floors?: {
    keystrokeMs: { median: number; p95: number; n: number };
    latencyMs: { median: number; p95: number; n: number };
    coldStartMs: { median: number; worst: number; runs: number };
  };
}

// Generous timeouts: a first start on a loaded machine can take longer than 30 s (it measures, never judges).
/** Opens the app until its composer accepts a keystroke: the key typed shows in the (zustand-controlled) composer. */
export async function openUntilComposerTakesKey(page: Page, url: string): Promise<{ gotoReturned: number; composerFound: number; keyPressed: number }> {
  // An analyst types when the box is there, not at the page's load event (which waits for every
  // script): the cold start and its floor both wait only for the navigation, then for the box.
  await page.goto(url, { waitUntil: 'commit' });
  const gotoReturned = performance.now();
  const input = page.getByTestId('composer-input');
  await input.waitFor();
  const composerFound = performance.now();
  await input.press('x');
  const keyPressed = performance.now();
  await page.waitForFunction(() => (document.querySelector('[data-testid="composer-input"]') as HTMLTextAreaElement | null)?.value === 'x');
  // When each of the driver's steps returned (the benchmark's clock), for cold-start-ab's milestones.
  return { gotoReturned, composerFound, keyPressed };
}

/**
 * The app (ready, recording its stream-painted marks) and its floor page in one context: the
 * launch token is good once, the cookie for both. Latency is measured on both the same way.
 */
export async function openAppBesideFloor(context: BrowserContext, host: Host): Promise<{ page: Page; floor: Page }> {
  const page = await context.newPage();
  // The app records its stream-painted marks only when asked (src/renderer/src/bridge/latency-mark.ts).
  await page.addInitScript(() => Object.defineProperty(window, '__clarityLatencyMarks', { value: true }));
  await page.goto(host.url);
  await waitForReady(page);
  const floor = await openFloor(context, host, true);
  await floor.waitForFunction(() => document.title === 'ready');
  return { page, floor };
}

export const waitForReady = (page: Page) => page.waitForFunction(() => document.querySelector('[data-testid="service-state"]')?.textContent?.startsWith('ready'), undefined, { timeout: 180_000 });
/**
 * Playwright polls on every animation frame unless told otherwise: where the frames themselves are
 * measured (client-added latency), `polling` (ms) keeps the wait out of them, as the floor page,
 * awaiting its own promise, has no such check in its frames.
 */
export const waitForAnswerDone = (page: Page, polling: 'raf' | number = 'raf') => page.waitForFunction(() => document.querySelectorAll('[data-testid="answer"][data-status="done"]').length > 0 && !document.querySelector('[data-status="streaming"],[data-status="waiting"]'), undefined, { timeout: 180_000, polling });

interface ColdStart {
  serviceReady: number;
  shellPainted: number;
  composerReady: number;
  askReady: number;
}

/**
 * One cold start: a new host process on `dataDir`, its page opened as soon as it is served (the
 * Electron window likewise loads while the service starts), in a new browser context.
 */
async function coldStart(browser: Browser, dataDir: string, renderer?: string): Promise<ColdStart> {
  const host = await startHost(['--service-arg=--no-live'], { early: true, dataDir, renderer });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const navigatedAt = performance.now();
    await openUntilComposerTakesKey(page, host.url);
    const composerReady = performance.now() - host.spawnedAt;
    // Ready to ask: the page shows the service ready (the Ask button then takes the question).
    await waitForReady(page);
    const askReady = performance.now() - host.spawnedAt;
    // First contentful paint, on the page's clock from its own navigation start.
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1);
    await context.close();
    return { serviceReady: (await host.serviceReady) - host.spawnedAt, shellPainted: navigatedAt - host.spawnedAt + fcp, composerReady, askReady };
  } finally {
    await stopHost(host);
  }
}

/**
 * The floor of a cold start: the same host command on the same data directory, its floor page
 * (a bare textarea) opened as soon as the host serves, until a key typed shows in it.
 */
async function coldStartFloor(browser: Browser, dataDir: string, renderer: string): Promise<number> {
  const host = await startHost(['--service-arg=--no-live'], { early: true, dataDir, renderer });
  try {
    const context = await browser.newContext();
    const page = await openFloor(context, host, false, 'commit');
    const input = page.locator('textarea');
    await input.waitFor();
    await input.press('x');
    await page.waitForFunction(() => document.querySelector('textarea')?.value === 'x');
    const ready = performance.now() - host.spawnedAt;
    await context.close();
    // Stopped only once its service is up, as the app's starts are: a service stopped while it
    // opens the data directory's database could leave the next start waiting on its lock.
    await Promise.race([host.serviceReady, new Promise((resolve) => setTimeout(resolve, 180_000))]);
    return ready;
  } finally {
    await stopHost(host);
  }
}

/**
 * 7: cold starts of one app, as a user starts it: the first on a new data directory (the local
 * service generates its corpus and caches it there), reported apart; then 5 more, each followed
 * by a start of the floor page on the same data directory. Needs a build.
 */
export async function benchColdStarts(browser: Browser, renderer?: string, floorStarts?: number[]): Promise<AppBenchResult['coldStart']> {
  const coldDir = await mkdtemp(join(tmpdir(), 'clarity-appbench-cold-'));
  const starts: ColdStart[] = [];
  let firstStart: ColdStart;
  try {
    firstStart = await coldStart(browser, coldDir, renderer);
    for (let run = 0; run < 5; run += 1) {
      starts.push(await coldStart(browser, coldDir, renderer));
      if (renderer && floorStarts) floorStarts.push(await coldStartFloor(browser, coldDir, renderer));
    }
  } finally {
    await rm(coldDir, { recursive: true, force: true });
  }
  const summary = (values: number[]) => ({ median: round(percentile(values, 0.5)), worst: round(Math.max(...values)) });
  const rounded = (start: ColdStart): ColdStart => ({ serviceReady: round(start.serviceReady), shellPainted: round(start.shellPainted), composerReady: round(start.composerReady), askReady: round(start.askReady) });
  return {
    runs: starts.length,
    serviceReadyMs: summary(starts.map((s) => s.serviceReady)),
    shellPaintedMs: summary(starts.map((s) => s.shellPainted)),
    composerReadyMs: summary(starts.map((s) => s.composerReady)),
    askReadyMs: summary(starts.map((s) => s.askReady)),
    firstStart: rounded(firstStart),
  };
}

/** `build: false` when the app was just built (the repeats of `npm run bench`). */
export async function benchApp({ build = true }: { build?: boolean } = {}): Promise<AppBenchResult> {
  if (build) execFileSync('npx', ['--no-install', 'electron-vite', 'build'], { stdio: 'ignore' });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const renderer = await floorRenderer();
  try {
    // 7: cold starts, each beside a start of the floor page.
    const floorStarts: number[] = [];
    const coldStarts = await benchColdStarts(browser, renderer.dir, floorStarts);

    // 1 and 5: a host whose local service streams 200 deltas per second.
    const host = await startHost(['--pace-ms', '5'], { withClock: true, renderer: renderer.dir });
    let latency: AppBenchResult['latencyMs'];
    let keystrokeMs: AppBenchResult['keystrokeMs'];
    let keystrokePlainMs: AppBenchResult['keystrokePlainMs'];
    let keystrokeIdleMs: AppBenchResult['keystrokeIdleMs'];
    const floorLatencies: number[] = [];
    const floorKeys: number[] = [];
    try {
      // The app and its floor page in one context: the launch token is good once, the cookie for both.
      const context = await browser.newContext();
      const { page, floor } = await openAppBesideFloor(context, host);
      const hostClock = await clockOffset(host.clock);
      const pageClock = await clockOffset(() => page.evaluate(() => performance.timeOrigin + performance.now()));
      const floorClock = await clockOffset(() => floor.evaluate(() => performance.timeOrigin + performance.now()));
      type Mark = { receivedAt: number; paintedAt: number };
      const paintedMarks = (on: Page): Promise<Mark[]> => on.evaluate(() => performance.getEntriesByName('stream-painted').map((entry) => (entry as PerformanceMark).detail as { receivedAt: number; paintedAt: number }));
      const latencies: number[] = [];
      for (const question of ['How fast is quick commerce growing in Bengaluru?', 'Tanishq jewellery in Kerala', 'Zudio store openings in Pune', 'Apollo Pharmacy hiring in Hyderabad']) {
        await page.bringToFront();
        await page.evaluate(() => performance.clearMarks('stream-painted'));
        await page.getByTestId('composer-input').fill(question);
        await page.getByTestId('send').click();
        await waitForAnswerDone(page, 100);
        // Both instants moved onto the benchmark's clock before subtracting.
        for (const mark of await paintedMarks(page)) latencies.push(mark.paintedAt - pageClock.offsetMs - (mark.receivedAt - hostClock.offsetMs));
        // The floor: the same question's stream, each batch appended to a <div>, same marks.
        await floor.bringToFront();
        await floor.evaluate(() => performance.clearMarks('stream-painted'));
        await floor.evaluate((q) => (window as unknown as { floor: { askTracked(q: string): Promise<string> } }).floor.askTracked(q), question);
        await floor.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        for (const mark of await paintedMarks(floor)) floorLatencies.push(mark.paintedAt - floorClock.offsetMs - (mark.receivedAt - hostClock.offsetMs));
      }
      latency = { median: round(percentile(latencies, 0.5)), p95: round(percentile(latencies, 0.95)), n: latencies.length, calibrationUncertaintyMs: round(hostClock.uncertaintyMs + pageClock.uncertaintyMs) };
      await page.bringToFront();

      // Keystrokes into the real Composer and into the plain textarea, in turn, while answers
      // stream (only keys typed mid-stream count), then both with nothing streaming.
      await page.evaluate(KEYSTROKE_PROBE);
      type Key = { ms: number; streaming: boolean; target: 'composer' | 'plain' };
      const composer = page.getByTestId('composer-input');
      const plain = page.locator('textarea[data-bench-plain]');
      const keys: Key[] = [];
      const focusBox = async (box: typeof composer): Promise<void> => {
        await box.focus();
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      };
      const streamingKeys = (target: Key['target']): number[] => keys.filter((k) => k.streaming && k.target === target).map((k) => k.ms);
      for (let round_ = 0; round_ < 12 && Math.min(streamingKeys('composer').length, streamingKeys('plain').length) < 60; round_ += 1) {
        await composer.fill(`Quick commerce growth in Bengaluru, question ${round_}`);
        await page.getByTestId('send').click();
        await page.waitForSelector('[data-testid="answer"][data-status="streaming"]');
        // Six keys into one box, then six into the other: focus moves only between blocks, and a
        // frame passes after it moves (a focus change's own restyle is not the key's cost).
        for (let block = 0; (await page.locator('[data-testid="answer"][data-status="streaming"]').count()) > 0; block += 1) {
          await focusBox(block % 2 === 0 ? composer : plain);
          for (let key = 0; key < 6; key += 1) await page.keyboard.press('a');
        }
        await waitForAnswerDone(page);
        keys.push(...(await page.evaluate(() => (window as unknown as { __keystrokes: Key[] }).__keystrokes.splice(0))));
      }
      await composer.fill('');
      for (let block = 0; block < 8; block += 1) {
        await focusBox(block % 2 === 0 ? composer : plain);
        for (let key = 0; key < 10; key += 1) await page.keyboard.press('a');
      }
      // The last key's frame message arrives after its paint: wait for all 80 to be in.
      await page.waitForFunction(() => (window as unknown as { __keystrokes: unknown[] }).__keystrokes.length >= 80);
      const idleKeys = (await page.evaluate(() => (window as unknown as { __keystrokes: Key[] }).__keystrokes.splice(0))).filter((k) => !k.streaming);
      const stats = (samples: number[]) => ({ median: round(percentile(samples, 0.5)), p95: round(percentile(samples, 0.95)), n: samples.length });
      keystrokeMs = stats(streamingKeys('composer'));
      keystrokePlainMs = stats(streamingKeys('plain'));
      keystrokeIdleMs = { composer: stats(idleKeys.filter((k) => k.target === 'composer').map((k) => k.ms)), plain: stats(idleKeys.filter((k) => k.target === 'plain').map((k) => k.ms)) };

      // The keystroke floor: the same keys into the floor page's bare textarea while that page
      // streams the same questions (only keys typed mid-stream count).
      await floor.bringToFront();
      await floor.evaluate(FLOOR_KEYSTROKE_PROBE);
      const floorInput = floor.locator('textarea');
      for (let round_ = 0; round_ < 12 && floorKeys.length < 60; round_ += 1) {
        await floorInput.focus();
        const streamed = floor.evaluate((q) => (window as unknown as { floor: { askTracked(q: string): Promise<string> } }).floor.askTracked(q), `Quick commerce growth in Bengaluru, question ${round_}`);
        await floor.waitForFunction(() => (window as unknown as { floor: { streaming: boolean } }).floor.streaming);
        while (await floor.evaluate(() => (window as unknown as { floor: { streaming: boolean } }).floor.streaming)) for (let key = 0; key < 6; key += 1) await floor.keyboard.press('a');
        await streamed;
        await floor.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        floorKeys.push(...(await floor.evaluate(() => (window as unknown as { __keystrokes: Array<{ ms: number; streaming: boolean }> }).__keystrokes.splice(0))).filter((k) => k.streaming).map((k) => k.ms));
      }
      await context.close();
    } finally {
      await stopHost(host);
    }

    // 6: a host with 5,000 sources. Only sources with health are listed; the sample reports none
    // unless replayed (simulated health, labelled), so it is replayed here, without live arrivals.
    const big = await startHost(['--service-arg=--sources=5000', '--service-arg=--replay-sample', '--service-arg=--no-live']);
    let healthTable: AppBenchResult['healthTable'];
    try {
      const healthPage = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      await healthPage.goto(big.url);
      await waitForReady(healthPage);
      // Load the snapshot (and the view's code) once, then time the view's mount with both in hand.
      await healthPage.getByTestId('nav-health').click();
      await healthPage.waitForSelector('[data-testid="health-row"]');
      await healthPage.getByTestId('nav-chat').click();
      // Plain JavaScript: the TypeScript runner would wrap named functions in helpers the page lacks.
      const raw = (await healthPage.evaluate(HEALTH_TABLE_SCRIPT)) as AppBenchResult['healthTable'];
      healthTable = { mountMs: round(raw.mountMs), sortMedianMs: round(raw.sortMedianMs), sortWorstMs: round(raw.sortWorstMs), sortClicks: raw.sortClicks, filterMs: round(raw.filterMs) };
      await healthPage.close();
    } finally {
      await stopHost(big);
    }
    const stats = (samples: number[]) => ({ median: round(percentile(samples, 0.5)), p95: round(percentile(samples, 0.95)), n: samples.length });
    return {
      latencyMs: latency,
      keystrokeMs,
      keystrokePlainMs,
      keystrokeIdleMs,
      coldStart: coldStarts,
      healthTable,
      floors: {
        keystrokeMs: stats(floorKeys),
        latencyMs: stats(floorLatencies),
        coldStartMs: { median: round(percentile(floorStarts, 0.5)), worst: round(Math.max(...floorStarts)), runs: floorStarts.length },
      },
    };
  } finally {
    await browser.close();
    await renderer.remove();
  }
}

if (process.argv[1]?.endsWith('app-bench.ts')) console.log(JSON.stringify(await benchApp(), null, 2));
