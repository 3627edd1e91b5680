/**
 * `npm run bench`: every benchmark on this machine, each beside its baseline in the same run,
 * and each figure beside the target of the performance issue, judged on the statistic its label
 * names (worst or p95 where the target says so). Each client figure is taken over BENCH_RUNS
 * (default 3) independent runs, a new browser each, and reported as the median run with the
 * spread over the runs (issue 50; runs.ts). Writes bench/results/latest.json and latest.md (with
 * bench/notes.md appended), bench/results/<cpu-slug>.json (one file per machine kind), and
 * regenerates the README's tables between <!-- bench-table --> and <!-- bench-machines -->.
 * BENCH_ONLY=app,renderer (any of service, library, renderer, app, verification, ingest, soak,
 * storage) measures those sections only, prints their figures and writes
 * bench/results/sections/<cpu-slug>-<sections>.json, touching neither latest.* nor the README.
 * Figures, never assertions.
 */
import { readFile, readdir, stat, mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { benchApp, type AppBenchResult } from './app-bench';
import { benchFigures, type Figure } from './figures';
import { writeMachinesTable } from './machines-table';
import { describeMachine, machineKind, runsTable, summariseRuns, type RunsFigure } from './runs';
import { benchIngest, type IngestBenchResult } from './ingest-bench';
import { benchLibrary, type LibraryBenchResult } from './library-bench';
import { benchRenderer, type RendererBenchResult } from './renderer-bench';
import { benchService, type ServiceBenchResult } from './service-bench';
import { benchSoak, type SoakResult } from './soak-bench';
import { benchStorage, type StorageBenchResult } from './storage-bench';
import { benchVerification, type VerificationBenchResult } from './verification-bench';
import { closeMemoryDatabase } from '../../src/service/store/embedded';

// The CPU model from /proc/cpuinfo names the machine kind: results of different kinds are kept apart.
const kind = machineKind();
let machine = describeMachine(kind);
let measuredAt = new Date().toISOString();
// The machine may be shared: its load before and after the run says how far to trust the figures.
const loadBefore = kind.loadAtStart.toFixed(2);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const SECTIONS = ['service', 'library', 'renderer', 'app', 'verification', 'ingest', 'soak', 'storage'] as const;
type Section = (typeof SECTIONS)[number];
const only = process.env.BENCH_ONLY ? (process.env.BENCH_ONLY.split(',').map((x) => x.trim()) as Section[]) : null;
for (const name of only ?? []) if (!SECTIONS.includes(name)) throw new Error(`BENCH_ONLY: no section '${name}' (sections: ${SECTIONS.join(', ')})`);
const wanted = (section: Section): boolean => !only || only.includes(section);
console.log(`Machine: ${machine}; load average at the start ${loadBefore}; ${RUNS} run${RUNS === 1 ? '' : 's'} of each client section${only ? `; sections: ${only.join(', ')}` : ''}`);

/** What start-up loads of the built renderer (entry chunk, and with what it preloads), in KB. */
async function bundleSize(): Promise<{ mainChunkKb: number; startupKb: number; lazyKb: number }> {
  const html = await readFile('out/renderer/index.html', 'utf8');
  const entry = /<script type="module"[^>]*src="\.\/([^"]+)"/.exec(html)![1]!;
  const preloaded = [...html.matchAll(/<link rel="modulepreload"[^>]*href="\.\/([^"]+)"/g)].map((m) => m[1]!);
  const kb = async (file: string): Promise<number> => (await stat(join('out/renderer', file))).size / 1024;
  let startupKb = await kb(entry);
  for (const file of preloaded) startupKb += await kb(file);
  let lazyKb = 0;
  for (const file of await readdir('out/renderer/assets')) if (file.endsWith('.js') && `assets/${file}` !== entry && !preloaded.includes(`assets/${file}`)) lazyKb += await kb(`assets/${file}`);
  const round1 = (n: number): number => Math.round(n * 10) / 10;
  return { mainChunkKb: round1(await kb(entry)), startupKb: round1(startupKb), lazyKb: round1(lazyKb) };
}

// `npm run bench -- --from bench/results/latest.json`: re-renders latest.md and the README's table
// from a saved run, measuring nothing.
const fromIndex = process.argv.indexOf('--from');
type Saved = { measured_at: string; machine: string; runs?: Runs; renderer: RendererBenchResult; app: AppBenchResult; bundle: Awaited<ReturnType<typeof bundleSize>>; service: ServiceBenchResult; serviceTable: string; library: LibraryBenchResult; verification?: { result: VerificationBenchResult; table: string }; ingest?: IngestBenchResult; soak?: SoakResult; storage?: StorageBenchResult; storageTable?: string };
const saved = fromIndex > 0 ? (JSON.parse(await readFile(process.argv[fromIndex + 1]!, 'utf8')) as Saved) : null;
// Each part's result is kept in bench/results/partial.json as it ends, so a run that fails in a
// late part (the soak, the 1M storage load) can go on with `npm run bench -- --resume` instead of
// measuring the forty minutes before it again. Every part of a resumed run is still from one day's
// quiet machine: the file records when each part was measured, and the header the first part's time.
const resume = process.argv.includes('--resume');
// (A run of some sections keeps its parts apart: it never touches a whole run's partial file.)
const partialFile = only ? `bench/results/sections/partial-${only.join('-')}.json` : 'bench/results/partial.json';
type Partial = { parts: Record<string, { measured_at: string; machine_load: string; value: unknown }> };
const partial: Partial = resume ? (JSON.parse(await readFile(partialFile, 'utf8').catch(() => '{"parts":{}}')) as Partial) : { parts: {} };
async function part<T>(name: string, label: string, run: () => Promise<T>): Promise<T> {
  const kept = partial.parts[name];
  if (kept) {
    console.log(`${label} (kept from ${kept.measured_at})`);
    return kept.value as T;
  }
  console.log(`${label}…`);
  const at = new Date().toISOString();
  const value = await run();
  partial.parts[name] = { measured_at: at, machine_load: loadavg()[0]!.toFixed(1), value };
  await mkdir(only ? 'bench/results/sections' : 'bench/results', { recursive: true });
  await writeFile(partialFile, `${JSON.stringify(partial)}\n`);
  return value;
}
/** Every run of the client sections after the first (the first is the full result above). */
type Runs = { service: ServiceBenchResult[]; library: LibraryBenchResult[]; renderer: RendererBenchResult[]; app: AppBenchResult[]; soak: SoakResult[] };
/** A client section, `RUNS` times: the first under its own part name (as before), the others as name#2, name#3… */
async function repeated<T>(name: string, label: string, run: (index: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < RUNS; i += 1) out.push(await part(i === 0 ? name : `${name}#${i + 1}`, RUNS === 1 ? label : `${label}, run ${i + 1} of ${RUNS}`, () => run(i)));
  return out;
}
const measure = async (): Promise<Omit<Saved, 'measured_at' | 'machine'>> => {
  const serviceRuns = wanted('service') ? await repeated('service', 'Service benchmark', () => benchService()) : [];
  const libraryRuns = wanted('library') ? await repeated('library', 'Library benchmark', () => benchLibrary()) : [];
  // The repeats measure the app's renderer only (the figures judged on it); the first run has the baselines too.
  const rendererRuns = wanted('renderer') ? await repeated('renderer', 'Renderer benchmark (harness, three renderers)', (i) => benchRenderer({ figuresOnly: i > 0 })) : [];
  // The app is built once, before its first run.
  const appRuns = wanted('app') ? await repeated('app', 'App benchmark (browser host)', (i) => benchApp({ build: i === 0 })) : [];
  const verificationRun = wanted('verification') ? await part('verification', 'Claim verification and the model composer', () => benchVerification()) : undefined;
  const ingestRun = wanted('ingest') ? await part('ingest', 'Ingest benchmark (the live feed)', () => benchIngest()) : undefined;
  // The CI-sized soak (issue 31): 5 minutes unless CLARITY_SOAK_MINUTES says otherwise (0 skips it).
  const soakMinutes = Number(process.env.CLARITY_SOAK_MINUTES ?? 5);
  const soakRuns = soakMinutes > 0 && wanted('soak') ? await repeated('soak', `Soak (${soakMinutes} min)`, () => benchSoak({ minutes: soakMinutes, build: false })) : [];
  const storageRun = wanted('storage') ? await part('storage', 'Storage benchmark (PostgreSQL, 1,000,000 signals)', () => benchStorage()) : undefined;
  const runs: Runs = { service: serviceRuns.map((r) => r.result), library: libraryRuns, renderer: rendererRuns, app: appRuns, soak: soakRuns };
  return { runs, renderer: rendererRuns[0]!, app: appRuns[0]!, bundle: wanted('app') ? await bundleSize() : (undefined as never), service: serviceRuns[0]?.result as ServiceBenchResult, serviceTable: serviceRuns[0]?.table as string, library: libraryRuns[0]!, verification: verificationRun, ingest: ingestRun, soak: soakRuns[0], storage: storageRun?.result as StorageBenchResult, storageTable: storageRun?.table };
};
const measured = saved ?? (await measure());
const { renderer, app, bundle, library, serviceTable, service: serviceResult, verification, ingest, soak, storage, storageTable } = measured;
// A run saved before issue 50 is one run of each section.
const runs: Runs = measured.runs ?? { service: [serviceResult], library: [library], renderer: [renderer], app: [app], soak: soak ? [soak] : [] };
/** Run i's figures, from run i of every section that has one (a section with fewer runs gives none for later i). */
const perRunFigures: Array<Record<string, Figure>> = Array.from({ length: Math.max(1, ...Object.values(runs).map((r) => r.length)) }, (_, i) =>
  benchFigures({ app: runs.app[i], service: runs.service[i], renderer: runs.renderer[i], library: runs.library[i], soak: runs.soak[i] }),
);
const figures: Record<string, RunsFigure> = summariseRuns(perRunFigures);
if (saved) {
  measuredAt = saved.measured_at;
  machine = saved.machine;
} else {
  machine += `; load average ${loadBefore} at the start, ${loadavg()[0]!.toFixed(2)} at the end; client figures: median of ${RUNS} run${RUNS === 1 ? '' : 's'}`;
  const kept = Object.entries(partial.parts).filter(([, p]) => p.measured_at < measuredAt);
  if (kept.length > 0) machine += `; resumed: ${kept.map(([name, p]) => `${name} measured ${p.measured_at} (load ${p.machine_load})`).join(', ')}`;
}
if (only) {
  // Some sections only: their figures, on the console and in a file of their own.
  const table = runsTable(figures);
  const file = `bench/results/sections/${kind.slug}-${only.join('-')}.json`;
  await mkdir('bench/results/sections', { recursive: true });
  await writeFile(file, `${JSON.stringify({ machine_kind: kind.slug, cpu: kind.cpu, cores: kind.cores, machine, measured_at: measuredAt, sections: only, runs: RUNS, figures, per_run: perRunFigures, results: runs }, null, 2)}\n`);
  console.log(`\nMeasured ${measuredAt} on ${machine} (sections ${only.join(', ')})\n\n${table}\n\nWritten to ${file}.`);
  await closeMemoryDatabase();
  process.exit(0);
}
const service = { result: serviceResult, table: serviceTable };

const verdict = (value: number, target: number): string => (value <= target ? 'met' : `missed by ${(value - target).toFixed(value - target < 1 ? 2 : 1)}`);
const pct = (share: number): string => `${(share * 100).toFixed(1)} %`;
const r = renderer.renderCost;
const f = renderer.longFrames;
const fd = renderer.longFramesPerDelta;
const h = renderer.heap;
const loaf = (x: { longAnimationFrames: number; longestAnimationFrameMs: number; blockingMs: number } | undefined): string =>
  !x ? '' : x.longAnimationFrames === 0 ? 'none ≥ 50 ms' : `${x.longAnimationFrames}, longest ${x.longestAnimationFrameMs.toFixed(1)}, blocking ${x.blockingMs.toFixed(1)}`;
const libraryP95 = Math.max(...library.queries.map((q) => q.p95_ms));
const s = service.result.concurrent;
const c = app.coldStart;
const rows: string[] = [
  '| # | Figure | Clarity | react-markdown | streamdown | Target | Clarity vs target |',
  '|---|---|---:|---:|---:|---|---|',
  `| 1 | Client-added latency, SSE bytes in main → painted, median / p95 (ms, ${app.latencyMs.n} batches, clocks calibrated ± ${app.latencyMs.calibrationUncertaintyMs}) | ${app.latencyMs.median} / ${app.latencyMs.p95} | | | p95 ≤ 20 | ${verdict(app.latencyMs.p95, 20)} |`,
  `| 2 | Render cost per delta at 4 KB, median / p95 (ms) | ${r.clarity.kb4.median} / ${r.clarity.kb4.p95} | ${r['react-markdown'].kb4.median} / ${r['react-markdown'].kb4.p95} | ${r.streamdown.kb4.median} / ${r.streamdown.kb4.p95} | | |`,
  `| 2 | Render cost per delta at 40 KB, median / p95 (ms) | ${r.clarity.kb40.median} / ${r.clarity.kb40.p95} | ${r['react-markdown'].kb40.median} / ${r['react-markdown'].kb40.p95} | ${r.streamdown.kb40.median} / ${r.streamdown.kb40.p95} | p95 ≤ 1 | ${verdict(r.clarity.kb40.p95, 1)} |`,
  `| 2 | 40 KB / 4 KB ratio (p95) | ${r.clarity.ratioP95} | ${r['react-markdown'].ratioP95} | ${r.streamdown.ratioP95} | ≤ 1.5 | ${verdict(r.clarity.ratioP95, 1.5)} |`,
  `| 3 | Frames over 16.7 ms / missing a vsync (> 25 ms), 200 deltas/s into 500 answers, all batched per frame (worst of 3 runs) | ${pct(f.clarity.overBudgetShare)} / ${pct(f.clarity.missedVsyncShare)} | ${pct(f['react-markdown'].overBudgetShare)} / ${pct(f['react-markdown'].missedVsyncShare)} | ${pct(f.streamdown.overBudgetShare)} / ${pct(f.streamdown.missedVsyncShare)} | < 1 % missing a vsync | ${verdict(f.clarity.missedVsyncShare * 100, 1)} |`,
  `| 3 | Long animation frames (LoAF, ≥ 50 ms) while streaming, worst run: count, longest, total blocking (ms) | ${loaf(f.clarity)} | ${loaf(f['react-markdown'])} | ${loaf(f.streamdown)} | none ≥ 50 ms | ${f.clarity.longAnimationFrames === 0 ? 'met' : `missed (${f.clarity.longAnimationFrames})`} |`,
  `| 3 | Extra: the same, baselines re-rendering per delta (one run): missing a vsync / LoAF | | ${fd['react-markdown'] ? `${pct(fd['react-markdown'].missedVsyncShare)} / ${loaf(fd['react-markdown'])}` : ''} | ${fd.streamdown ? `${pct(fd.streamdown.missedVsyncShare)} / ${loaf(fd.streamdown)}` : ''} | | |`,
  `| 4 | Renderer heap after GC, 500 distinct answers (MB) | ${h.clarity.mb500} | ${h['react-markdown'].mb500} | ${h.streamdown.mb500} | ≤ 100 | ${verdict(h.clarity.mb500, 100)} |`,
  `| 4 | Heap growth per extra distinct answer (MB, 10 added) | ${h.clarity.growthPerAnswerMb} | ${h['react-markdown'].growthPerAnswerMb} | ${h.streamdown.growthPerAnswerMb} | ≤ 1 | ${verdict(h.clarity.growthPerAnswerMb, 1)} |`,
  `| 5 | Open a 1,000-answer conversation (ms, median of 3) | ${renderer.history.open1000Ms} | | | ≤ 100 | ${verdict(renderer.history.open1000Ms, 100)} |`,
  `| 5 | Append a whole ${(renderer.history.appendAnswerChars / 1024).toFixed(1)} KB answer to it, render and layout: median / worst of ${renderer.history.appendMs.n} (ms) | ${renderer.history.appendMs.median} / ${renderer.history.appendMs.worst} | | | worst ≤ 3 | ${verdict(renderer.history.appendMs.worst, 3)} |`,
  `| 5 | Keystroke → next paint in the app's Composer while an answer streams, median / p95 (ms, ${app.keystrokeMs.n} keys) | ${app.keystrokeMs.median} / ${app.keystrokeMs.p95} | | | p95 ≤ 16 | ${verdict(app.keystrokeMs.p95, 16)}${app.keystrokePlainMs ? `; a plain textarea in the same page and streams: p95 ${app.keystrokePlainMs.p95}` : ''} |`,
  ...(app.keystrokePlainMs && app.keystrokeIdleMs
    ? [
        `| 5 | Baseline: the same keys into a plain, uncontrolled textarea in the same page during the same streams, median / p95 (ms, ${app.keystrokePlainMs.n} keys) | ${app.keystrokePlainMs.median} / ${app.keystrokePlainMs.p95} | | | | Composer adds ${(app.keystrokeMs.p95 - app.keystrokePlainMs.p95).toFixed(1)} at p95 |`,
        `| 5 | Extra: the same with nothing streaming, Composer / plain textarea, median / p95 (ms) | ${app.keystrokeIdleMs.composer.median} / ${app.keystrokeIdleMs.composer.p95}; ${app.keystrokeIdleMs.plain.median} / ${app.keystrokeIdleMs.plain.p95} | | | | |`,
      ]
    : []),
  `| 6 | Health table, 5,000 sources: mount / sort, median and worst of ${app.healthTable.sortClicks} clicks / filter (ms) | ${app.healthTable.mountMs} / ${app.healthTable.sortMedianMs} and ${app.healthTable.sortWorstMs} / ${app.healthTable.filterMs} | | | mount ≤ 50, sort worst ≤ 16 | mount ${verdict(app.healthTable.mountMs, 50)}, sort ${verdict(app.healthTable.sortWorstMs, 16)} |`,
  `| 7 | Cold start (browser host, service included), median / worst of ${c.runs}, ms from process start: service ready / shell painted / composer accepts a key / ready to ask | ${c.serviceReadyMs.median} / ${c.shellPaintedMs.median} / ${c.composerReadyMs.median} / ${c.askReadyMs.median} (worst ${c.serviceReadyMs.worst} / ${c.shellPaintedMs.worst} / ${c.composerReadyMs.worst} / ${c.askReadyMs.worst}); first start on a new data directory ${c.firstStart.serviceReady} / ${c.firstStart.shellPainted} / ${c.firstStart.composerReady} / ${c.firstStart.askReady} | | | composer ≤ 1,500 (worst) | composer ${verdict(c.composerReadyMs.worst, 1500)}; ready to ask ${verdict(c.askReadyMs.worst, 1500)} |`,
  `| 8 | Renderer JS, minified: main chunk / all loaded at start-up / loaded later by views (KB) | ${bundle.mainChunkKb} / ${bundle.startupKb} / ${bundle.lazyKb} | | | ≤ 350 (gated in npm test) | ${verdict(bundle.startupKb, 350)} |`,
  `| 9 | Local service, ${s.streams} concurrent streams${s.bursts ? `, ${s.bursts} bursts` : ''}: errors / first byte p50, p95 (ms)${s.bursts ? " of the median burst; worst burst's p95" : ''} | ${s.errors} / ${s.ttfb_p50_ms}, ${s.ttfb_p95_ms}${s.worst_burst_p95_ms !== undefined ? `; ${s.worst_burst_p95_ms}` : ''} | | | 0 errors, p95 ≤ 50 | ${s.errors === 0 ? verdict(s.ttfb_p95_ms, 50) : `${s.errors} errors`}; plain Node, same bytes and client: p95 ${s.baseline_plain_node.ttfb_p95_ms} |`,
  `| 10 | Library, ${library.items.toLocaleString('en-IN')} items: first page of the list shown, first open / later opens; whole library searchable, first open / later opens; search p95, worst query (ms) | ${library.first_open_first_results_ms ?? '–'} / ${library.open_to_first_results_ms}; ${library.open_ms} / ${library.reopen_ready_ms ?? '–'}; ${libraryP95} | | | first results ≤ 300, p95 ≤ 10 | first results: later opens ${verdict(library.open_to_first_results_ms, 300)}, first open ${verdict(library.first_open_first_results_ms ?? Infinity, 300)}; search ${verdict(libraryP95, 10)} |`,
  ...(verification
    ? [
        `| 11 | Claim verification: one sentence, p95 (ms, ${verification.result.verify_ms.sentences} sentences) | ${verification.result.verify_ms.p95} | | | p95 ≤ 2 | ${verdict(verification.result.verify_ms.p95, 2)} |`,
        `| 11 | First answer text, extractive / scripted model (a token every 20 ms), p50 (ms) | ${verification.result.first_text_ms.extractive.p50} / ${verification.result.first_text_ms.model.p50} | | | | |`,
      ]
    : []),
];
const libraryTable = [
  `Library search over ${library.items.toLocaleString('en-IN')} saved items (first open: first page after ${library.first_open_first_results_ms ?? '–'} ms, ${library.first_page_newest === false ? 'NOT the newest items' : 'checked to be the newest items'}, ready after ${library.open_ms} ms; later opens: first results after ${library.open_to_first_results_ms} ms)`,
  '',
  '| Query | p50 (ms) | p95 (ms) | Results | Baseline, same semantics: p50 / p95 (ms) | Baseline results |',
  '|---|---:|---:|---:|---:|---:|',
  ...library.queries.map((q) => `| ${q.query} | ${q.p50_ms} | ${q.p95_ms} | ${q.results} | ${q.baseline_p50_ms} / ${q.baseline_p95_ms} | ${q.baseline_results} |`),
].join('\n');
const a = renderer.answers;
const how = [
  `- 1, latency: main stamps a batch when its first SSE bytes arrive (its clock); the renderer stamps it from a message posted in the frame that painted it (its clock); each stamp is moved onto the benchmark's clock by an offset measured with 30 round trips (shortest kept), never by subtracting two timeOrigins.`,
  `- 2, render cost: one update's work (React render and commit, style and layout, forced) per delta of a few words, around 4 KB and 40 KB of answer; median of 3 runs of each statistic. Script time (the issue 31 goals for render cost and append): the same update's React render and commit alone, up to before the forced style and layout (a layout the list's layout effects force is inside it). Following the end is not in it: the list scrolls from its ResizeObserver callback, after the browser's own layout (no layout of its own there).`,
  `- 3, frames: rAF intervals while 200 deltas/s stream into the app's virtualised list holding 500 answers; every renderer applies the deltas once per frame, as the app does; long frames from the Long Animation Frames API (reports only frames of 50 ms or more, so "none" means none).`,
  `- 4, heap: used JS heap after two forced GCs with ${a.distinct} distinct service answers (median ${a.medianChars} characters; ${a.withTable} with a table, ${a.withList} with a list, ${a.citationMarkers} citation markers) mounted in the list, and after 10 more distinct ones.`,
  `- 5, append: from a frame's start, one whole answer of about 4 KB (two distinct answers joined) added to a 1,000-answer conversation: render, commit, style and layout; judged on the worst of 12. Keystroke: real key events (CDP) into the app's zustand-controlled Composer while the local service streams an answer at 200 deltas/s; from the event's timestamp to a message posted in the next frame (after its paint); only keys typed mid-stream count. Keys go in blocks of six to the Composer and to a plain, uncontrolled textarea the benchmark adds to the same page, in turn (focus moves between blocks, a frame before the next key) (the baseline: what any text box gets from this browser, machine and stream); then both again with nothing streaming.`,
  `- 6, health table: a click's work (sort, render, forced layout) over 12 clicks, each column both ways; judged on the worst.`,
  `- 7, cold start: the benchmark's clock from spawning the browser host process exactly as \`npm run web\` runs it after its build (\`node out/main/browser-host.js\`, which starts the built local service as a child process); the page is opened as soon as the host serves it (its browser-host-listening line; the Electron window too loads while the service starts); milestones: the host's "Service:" line, the page's first contentful paint (navigation start + FCP), a key typed into the composer showing in it, and the page showing the service ready (Ask then works); a new process and browser context each run. All runs use one data directory, as one user's app does: the first start on it (the service generates its corpus and index and caches them there) is reported apart; median and worst are of the 5 starts after it (the service reads the cache).`,
  `- 8, bundle: sizes of the built files in out/renderer (electron-vite build, minified); "start-up" is the entry chunk with the chunks index.html preloads.`,
  `- 9, service: ${s.streams} asks sent at once to the service in its own process (the built \`out/main/service.js\` the app runs, pace 0), each read to its end over node:http, ${s.bursts ?? 1} times; first byte from sending the request to the first body chunk; an error is a rejected request or an answer under 1,000 bytes; judged on the median burst by p95 (one burst's p95 swings twofold between runs here), the worst burst beside it. The service table below also gives the same burst against the plain Node baseline (same bytes), the floor the client and this machine set.`,
  `- 10, library: 10,000 item files written beforehand (modified times all alike, as in a copied or synced folder). First open (no cache): a new LibraryStore until the view's first page (newest first, no query) lists an item, the page checked to be the 200 newest items by createdAt; and until every file is read and indexed (searchable); then, as every later start does, a new store over the cache it wrote: the same two times. Neither blocks start-up in the app (it opens in the background). Each query 40 times on the ready store, the whole search as the view gets it (matching, scoring, sorting, the first 200 results with snippets); no query result is cached between repetitions; then the baseline's 40 runs (not in turn with the store's: so neither is timed amid the other's garbage collection). The baseline scans a corpus tokenised beforehand with the store's semantics (same fields, prefix, one typo in a last term over 5 letters, AND); result counts for both.`,
].join('\n');

let notes = '';
try {
  notes = `\n${await readFile('bench/notes.md', 'utf8')}`;
} catch {
  // No notes: the figures alone.
}
// Issue 31: each figure beside its floor from the same run, and its goal; issue 50: over the runs.
const summary = `Measured ${measuredAt} on ${machine} by \`npm run bench\`.\n\n${runsTable(figures)}\n\nThe table below is the first run's (with the baselines, and the figures without a goal).\n\n${rows.join('\n')}`;
const verificationSection = verification ? `\n\n## Claim verification and the model composer\n\n${verification.table}` : '';
const storageSection = storageTable ? `\n\n## Storage (PostgreSQL and the embedded database)\n\n${storageTable}` : '';
const markdown = `# Clarity benchmarks\n\n${summary}\n\n## How each figure is taken\n\n${how}\n\n## Local service\n\n${service.table}\n\n## Library\n\n${libraryTable}${verificationSection}${storageSection}\n${notes}`;
await mkdir('bench/results', { recursive: true });
await writeFile('bench/results/latest.json', `${JSON.stringify({ measured_at: measuredAt, machine, machine_kind: kind.slug, figures, per_run: perRunFigures, runs, renderer, app, bundle, service: service.result, serviceTable: service.table, library, verification, ingest, soak, storage, storageTable }, null, 2)}\n`);
await writeFile('bench/results/latest.md', markdown);
// One file per machine kind, the latest full run on it: the README shows the kinds side by side.
if (!saved) await writeFile(`bench/results/${kind.slug}.json`, `${JSON.stringify({ machine_kind: kind.slug, cpu: kind.cpu, cores: kind.cores, machine, measured_at: measuredAt, runs: RUNS, figures, per_run: perRunFigures }, null, 2)}\n`);

// The README's table, regenerated between its markers (as `npm run eval` does for its own).
const readme = await readFile('README.md', 'utf8');
const marked = /<!-- bench-table -->[\s\S]*?<!-- \/bench-table -->/;
if (marked.test(readme)) await writeFile('README.md', readme.replace(marked, `<!-- bench-table -->\n${summary}\n<!-- /bench-table -->`));
await writeMachinesTable();
console.log(`\n${markdown}`);
// The in-process services (renderer answers, ingest) shared one in-memory database: closing it
// lets the process end by itself.
await closeMemoryDatabase();
