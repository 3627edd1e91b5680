/**
 * Renderer figures of the performance issue, measured in Debian's Chromium (playwright-core)
 * on the harness page (test/bench/harness): the app's streaming markdown against react-markdown
 * (whole answer re-rendered per update) and streamdown, on the identical stream.
 *   2. render cost per delta at 4 KB and 40 KB, and their ratio
 *   3. long frames while streaming 200 deltas/s into a conversation of 500 answers
 *   4. renderer heap after GC with 500 answers, and growth per extra answer
 *   5. opening a 1,000-answer conversation, appending to it, keystroke latency while streaming
 */
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { startService } from '../../src/service/server';

type RendererName = 'clarity' | 'react-markdown' | 'streamdown';

/** What the harness page exposes (test/bench/harness/main.tsx). */
interface BenchWindow {
  bench: {
    renderCost(renderer: string, source: string, sizes: number[]): Record<string, { median: number; p95: number }>;
    longFrames(renderer: string, source: string, history: readonly string[], rate: number, durationMs: number): Promise<unknown>;
    mountHistory(renderer: string, history: readonly string[]): Promise<number>;
    append(message: string): Promise<number>;
    keystrokes(source: string, count: number): Promise<{ median: number; p95: number }>;
  };
}
export const RENDERERS: RendererName[] = ['clarity', 'react-markdown', 'streamdown'];
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run', '--enable-precise-memory-info', '--js-flags=--expose-gc'];
const RUNS = 3;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (n: number): number => Math.round(n * 1000) / 1000;

async function answers(): Promise<string[]> {
  const service = await startService({ paceMs: 0, liveFeed: false });
  const questions = ['How fast is quick commerce growing in Bengaluru?', 'Tanishq jewellery in Kerala', 'Zudio store openings in Pune', 'Apollo Pharmacy hiring in Hyderabad', 'Nykaa beauty prices in Mumbai', 'DMart grocery in Gujarat', 'Croma electronics in Chennai', 'Blinkit dark stores in Delhi'];
  const out: string[] = [];
  for (const content of questions) {
    const response = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content }] }) });
    out.push(((await response.json()) as { content: string }).content);
  }
  await service.close();
  return out;
}

async function serveHarness(): Promise<{ url: string; close(): Promise<void> }> {
  const outDir = resolve('bench/harness-dist');
  await build({ root: resolve('test/bench/harness'), plugins: [react()], logLevel: 'warn', build: { outDir, emptyOutDir: true }, base: './' });
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  const server = createServer((request, response) => {
    const path = join(outDir, (request.url ?? '/').split('?')[0] === '/' ? 'index.html' : (request.url ?? '').split('?')[0]!);
    if (!path.startsWith(outDir)) return void response.writeHead(404).end();
    readFile(path)
      // Cross-origin isolated, so performance.now() has 5 µs resolution instead of 100 µs.
      .then((body) => response.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream', 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }).end(body))
      .catch(() => response.writeHead(404).end());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`, close: () => new Promise((done) => server.close(() => done())) };
}

async function heapAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  await cdp.detach();
  return usedSize;
}

export interface RendererBenchResult {
  renderCost: Record<RendererName, { kb4: { median: number; p95: number }; kb40: { median: number; p95: number }; ratioP95: number }>;
  longFrames: Record<RendererName, { overBudgetShare: number; missedVsyncShare: number; longestTaskMs: number; longestFrameMs: number }>;
  heap: Record<RendererName, { mb500: number; growthPerAnswerMb: number }>;
  history: { open1000Ms: number; appendMs: number; appendAnswerMs: number; keystroke: { median: number; p95: number } };
}

export async function benchRenderer(): Promise<RendererBenchResult> {
  const texts = await answers();
  let source = texts.join('\n\n');
  while (source.length < 45_000) source += `\n\n${texts.join('\n\n')}`;
  const history500 = Array.from({ length: 500 }, (_, i) => texts[i % texts.length]!);
  const harness = await serveHarness();
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const open = async (): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(harness.url);
    await page.waitForFunction(() => document.title === 'ready');
    return page;
  };
  try {
    const renderCost = {} as RendererBenchResult['renderCost'];
    const longFrames = {} as RendererBenchResult['longFrames'];
    const heap = {} as RendererBenchResult['heap'];
    for (const renderer of RENDERERS) {
      const kb4: number[][] = [[], []];
      const kb40: number[][] = [[], []];
      for (let run = 0; run < RUNS; run += 1) {
        const page = await open();
        const costs = (await page.evaluate(([r, s]) => (window as unknown as BenchWindow).bench.renderCost(r, s, [4_000, 40_000]), [renderer, source] as const)) as Record<string, { median: number; p95: number }>;
        kb4[0]!.push(costs['4000']!.median);
        kb4[1]!.push(costs['4000']!.p95);
        kb40[0]!.push(costs['40000']!.median);
        kb40[1]!.push(costs['40000']!.p95);
        await page.close();
      }
      renderCost[renderer] = {
        kb4: { median: round(median(kb4[0]!)), p95: round(median(kb4[1]!)) },
        kb40: { median: round(median(kb40[0]!)), p95: round(median(kb40[1]!)) },
        ratioP95: round(median(kb40[1]!) / Math.max(0.001, median(kb4[1]!))),
      };
      console.log(`  render cost ${renderer}:`, JSON.stringify(renderCost[renderer]));

      const frames: Array<{ overBudgetShare: number; missedVsyncShare: number; longestTaskMs: number; longestFrameMs: number }> = [];
      for (let run = 0; run < RUNS; run += 1) {
        const page = await open();
        frames.push((await page.evaluate(([r, s, h]) => (window as unknown as BenchWindow).bench.longFrames(r, s, h, 200, 3_000), [renderer, source, history500] as const)) as never);
        await page.close();
      }
      longFrames[renderer] = {
        overBudgetShare: round(median(frames.map((f) => f.overBudgetShare))),
        missedVsyncShare: round(median(frames.map((f) => f.missedVsyncShare))),
        longestTaskMs: round(median(frames.map((f) => f.longestTaskMs))),
        longestFrameMs: round(median(frames.map((f) => f.longestFrameMs))),
      };
      console.log(`  long frames ${renderer}:`, JSON.stringify(longFrames[renderer]));

      const page = await open();
      await page.evaluate(([r, h]) => (window as unknown as BenchWindow).bench.mountHistory(r, h), [renderer, history500] as const);
      const at500 = await heapAfterGc(page);
      const history510 = [...history500, ...history500.slice(0, 10)];
      await page.evaluate(([r, h]) => (window as unknown as BenchWindow).bench.mountHistory(r, h), [renderer, history510] as const);
      const at510 = await heapAfterGc(page);
      heap[renderer] = { mb500: round(at500 / 2 ** 20), growthPerAnswerMb: round((at510 - at500) / 10 / 2 ** 20) };
      console.log(`  heap ${renderer}:`, JSON.stringify(heap[renderer]));
      await page.close();
    }

    const page = await open();
    const history1000 = Array.from({ length: 1_000 }, (_, i) => texts[i % texts.length]!);
    const opens: number[] = [];
    for (let run = 0; run < RUNS; run += 1) opens.push((await page.evaluate(([h]) => (window as unknown as BenchWindow).bench.mountHistory('clarity', h), [history1000] as const)) as number);
    // Appending as the app does when the analyst asks (the question, its answer then streams),
    // and, harsher, a whole 4 KB answer arriving at once.
    const appendOnce = async (message: string): Promise<number> => (await page.evaluate(([m]) => (window as unknown as BenchWindow).bench.append(m), [message] as const)) as number;
    const appends: number[] = [];
    for (let run = 0; run < 10; run += 1) appends.push(await appendOnce(`Follow-up ${run}: how did Zudio's store openings in Pune change this quarter?`));
    const answerAppends: number[] = [];
    for (let run = 0; run < 10; run += 1) answerAppends.push(await appendOnce(texts[run % texts.length]!));
    const keystroke = (await page.evaluate(([s]) => (window as unknown as BenchWindow).bench.keystrokes(s, 60), [source] as const)) as { median: number; p95: number };
    await page.close();
    return { renderCost, longFrames, heap, history: { open1000Ms: round(median(opens)), appendMs: round(median(appends)), appendAnswerMs: round(median(answerAppends)), keystroke: { median: round(keystroke.median), p95: round(keystroke.p95) } } };
  } finally {
    await browser.close();
    await harness.close();
  }
}

if (process.argv[1]?.endsWith('renderer-bench.ts')) console.log(JSON.stringify(await benchRenderer(), null, 2));
