/**
 * Benchmark only (issue 31): cold start to a composer that takes a key, beside its floor, with
 * where the time goes. `npx tsx test/bench/cold-start-ab.ts [--rounds N] [--profile DIR]
 * [--variant name=OUTDIR ...]` (default: one variant, `out`, as built). Each round starts every
 * variant's app and then its floor page (the same host command on the same data directory), the
 * order of variants turning each round, so a loaded machine weighs on all alike. Per start it
 * prints milestones on the benchmark's clock from the host's spawn: host listening, the page's
 * HTML and main script received, the script run, the composer in the DOM, first contentful
 * paint, and a key showing in the composer. With --profile, a CPU profile of the page from
 * navigation to the key (Chromium's own profiler over CDP) is written per app start; those
 * starts are profiled, so their timings are not the figure.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { CHROMIUM_ARGS, openUntilComposerTakesKey } from './app-bench';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, profile: { type: 'string' }, 'host-profile': { type: 'string' }, variant: { type: 'string', multiple: true } } });
// --host-profile DIR: the hosts (and the services they start, which inherit Node's flags) write CPU profiles there.
const hostProfile = values['host-profile'] ? ['--cpu-prof', '--cpu-prof-dir', values['host-profile']] : [];
const variants = (values.variant ?? ['current=out']).map((spec) => {
  const [name, dir] = spec.split('=');
  return { name: name!, outDir: dir! };
});

interface Started {
  child: ReturnType<typeof spawn>;
  url: string;
  spawnedAt: number;
  listeningAt: number;
  serviceReady: Promise<void>;
}

async function startHost(outDir: string, dataDir: string, renderer: string): Promise<Started> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...hostProfile, join(outDir, 'main/browser-host.js'), '--port', '0', '--data-dir', dataDir, '--renderer', renderer, '--service-arg=--no-live'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let serviceReadyAt: () => void = () => undefined;
  const serviceReady = new Promise<void>((resolve) => (serviceReadyAt = resolve));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('Service: ')) serviceReadyAt();
      if (line.startsWith('{"event":"browser-host-listening"')) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`browser host exited ${code}`)));
  });
  return { child, url, spawnedAt, listeningAt: performance.now(), serviceReady };
}

async function stop(host: Started): Promise<void> {
  // Stopped once its service is up: a service stopped while it opens the database could leave
  // the next start waiting on its lock.
  await Promise.race([host.serviceReady, new Promise((resolve) => setTimeout(resolve, 180_000))]);
  await new Promise<void>((resolve) => {
    host.child.once('exit', () => resolve());
    host.child.kill('SIGTERM');
  });
}

// Page-side milestones on the page's clock (0 = navigation start).
// Plain JavaScript: the TypeScript runner would wrap named functions in helpers the page lacks.
const COMPOSER_WATCH = `(() => {
  const observer = new MutationObserver(() => {
    if (!document.querySelector('[data-testid="composer-input"]')) return;
    window.__benchComposerAt = performance.now();
    observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
})()`;

async function pageMilestones(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const main = performance.getEntriesByType('resource').filter((entry) => /assets\/index-.*\.js$/.test(entry.name))[0] as PerformanceResourceTiming | undefined;
    const scripts = performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('.js')) as PerformanceResourceTiming[];
    const css = performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('.css')) as PerformanceResourceTiming[];
    return {
      html: nav.responseEnd,
      mainScript: main?.responseEnd ?? -1,
      allScripts: Math.max(0, ...scripts.map((s) => s.responseEnd)),
      css: Math.max(0, ...css.map((s) => s.responseEnd)),
      domInteractive: nav.domInteractive,
      domContentLoaded: nav.domContentLoadedEventEnd,
      load: nav.loadEventEnd,
      composerInDom: (window as unknown as { __benchComposerAt?: number }).__benchComposerAt ?? -1,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
    };
  });
}

const r = (n: number): number => Math.round(n);

async function appStart(browser: Browser, outDir: string, dataDir: string, renderer: string, profileTo?: string): Promise<Record<string, number>> {
  const host = await startHost(outDir, dataDir, renderer);
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript({ content: COMPOSER_WATCH });
    const cdp = profileTo ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    const navigatedAt = performance.now();
    const steps = await openUntilComposerTakesKey(page, host.url);
    const keyShown = performance.now() - host.spawnedAt;
    if (cdp && profileTo) {
      const { profile } = await cdp.send('Profiler.stop');
      await writeFile(profileTo, JSON.stringify(profile));
    }
    const m = await pageMilestones(page);
    const offset = navigatedAt - host.spawnedAt;
    await context.close();
    return { listening: r(host.listeningAt - host.spawnedAt), navigate: r(offset), ...Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v < 0 ? -1 : r(offset + v)])), ...Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, r(v - host.spawnedAt)])), keyShown: r(keyShown) };
  } finally {
    await stop(host);
  }
}

async function floorStart(browser: Browser, outDir: string, dataDir: string, renderer: string): Promise<Record<string, number>> {
  const host = await startHost(outDir, dataDir, renderer);
  try {
    const context = await browser.newContext();
    await context.request.get(host.url, { maxRedirects: 0 });
    const page = await context.newPage();
    const navigatedAt = performance.now();
    await page.goto(`${new URL(host.url).origin}/bench-floor/floor.html`, { waitUntil: 'commit' });
    const gotoReturned = performance.now() - host.spawnedAt;
    const input = page.locator('textarea');
    await input.waitFor();
    const composerFound = performance.now() - host.spawnedAt;
    await input.press('x');
    const keyPressed = performance.now() - host.spawnedAt;
    await page.waitForFunction(() => document.querySelector('textarea')?.value === 'x');
    const keyShown = performance.now() - host.spawnedAt;
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1);
    await context.close();
    return { listening: r(host.listeningAt - host.spawnedAt), navigate: r(navigatedAt - host.spawnedAt), fcp: r(navigatedAt - host.spawnedAt + fcp), gotoReturned: r(gotoReturned), composerFound: r(composerFound), keyPressed: r(keyPressed), keyShown: r(keyShown) };
  } finally {
    await stop(host);
  }
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
const work = await mkdtemp(join(tmpdir(), 'clarity-coldab-'));
try {
  // Each variant: its renderer with the floor page beside it, and a data directory of its own
  // whose first start (the service generating its corpus cache) is not counted.
  const prepared = [];
  for (const variant of variants) {
    const renderer = join(work, variant.name, 'renderer');
    await cp(join(variant.outDir, 'renderer'), renderer, { recursive: true });
    await build({ configFile: false, root: 'test/bench/floor', base: './', logLevel: 'warn', build: { outDir: join(renderer, 'bench-floor'), emptyOutDir: true, modulePreload: false, rollupOptions: { input: 'test/bench/floor/floor.html' } } });
    const dataDir = join(work, variant.name, 'data');
    await appStart(browser, variant.outDir, dataDir, renderer);
    prepared.push({ ...variant, renderer, dataDir, app: [] as Array<Record<string, number>>, floor: [] as number[] });
  }
  const rounds = Number(values.rounds);
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < prepared.length; i += 1) {
      const v = prepared[(i + round) % prepared.length]!;
      const profileTo = values.profile ? join(values.profile, `${v.name}-${round}.cpuprofile`) : undefined;
      const app = await appStart(browser, v.outDir, v.dataDir, v.renderer, profileTo);
      const floor = await floorStart(browser, v.outDir, v.dataDir, v.renderer);
      v.app.push(app);
      v.floor.push(floor.keyShown!);
      console.log(JSON.stringify({ round, variant: v.name, app, floor }));
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const v of prepared) {
    const keys = v.app.map((a) => a.keyShown!);
    const milestones = Object.fromEntries(Object.keys(v.app[0]!).map((k) => [k, median(v.app.map((a) => a[k]!))]));
    console.log(JSON.stringify({ variant: v.name, composerKeyMedian: median(keys), composerKeyWorst: Math.max(...keys), floorMedian: median(v.floor), floorWorst: Math.max(...v.floor), gapMedian: median(v.app.map((a, i) => a.keyShown! - v.floor[i]!)), milestoneMedians: milestones }));
  }
} finally {
  await browser.close();
  await rm(work, { recursive: true, force: true });
}
