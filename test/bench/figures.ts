/**
 * Issue 31: every client figure beside its floor (measured in the same run, on the same host,
 * through the same transport, with the same measurement code), and every figure judged against
 * its goal: a ratio to the floor where one exists, absolute where the work is ours alone.
 * Written under `figures` in bench/results/latest.json and shown as a table in the README.
 */
import type { AppBenchResult } from './app-bench';
import type { LibraryBenchResult } from './library-bench';
import type { RendererBenchResult } from './renderer-bench';
import type { ServiceBenchResult } from './service-bench';
import type { SoakResult } from './soak-bench';

export interface Figure {
  label: string;
  value: number;
  /** The same measurement on the bare page / plain server; absent where the work is ours alone. */
  floor?: number;
  ratio?: number;
  goal: string;
  met: boolean;
  /** The number the goal is judged on (ratio, value, or the gap to the floor): runs are ranked by it. */
  judged?: number;
  /** How many samples the figure's statistic is taken over in one run (keys, batches, deltas, appends…). */
  samples?: number;
}

const ratioOf = (value: number, floor: number): number => Math.round((value / Math.max(0.001, floor)) * 100) / 100;

function againstFloor(label: string, value: number, floor: number, maxRatio: number, samples?: number): Figure {
  const ratio = ratioOf(value, floor);
  return { label, value, floor, ratio, goal: `ratio ≤ ${maxRatio}`, met: ratio <= maxRatio, judged: ratio, samples };
}

/**
 * Each part is optional: a run of some sections only (BENCH_ONLY) gets the figures of those parts.
 * A figure's `judged` is what its goal compares; `samples` what one run's statistic is taken over.
 */
export function benchFigures(input: { app?: AppBenchResult; service?: ServiceBenchResult; renderer?: RendererBenchResult; library?: LibraryBenchResult; soak?: SoakResult }): Record<string, Figure> {
  const { app, service, renderer, library, soak } = input;
  const out: Record<string, Figure> = {};
  const floors = app?.floors;
  if (app && floors) {
    out.keystroke_p95_ms = againstFloor('Keystroke → paint while an answer streams, p95 (ms): Composer / bare textarea page', app.keystrokeMs.p95, floors.keystrokeMs.p95, 1.2, app.keystrokeMs.n);
    out.client_latency_p95_ms = againstFloor('Client-added latency, bytes in main → painted, p95 (ms): app / page appending each batch to a <div>', app.latencyMs.p95, floors.latencyMs.p95, 1.3, app.latencyMs.n);
    const composer = app.coldStart.composerReadyMs.median;
    const floor = floors.coldStartMs.median;
    out.cold_start_composer_ms = { label: 'Cold start to a composer taking a key, median of 5 (ms): app / empty page with a textarea', value: composer, floor, ratio: ratioOf(composer, floor), goal: 'value ≤ floor + 500', met: composer <= floor + 500, judged: Math.round((composer - floor) * 10) / 10, samples: app.coldStart.runs };
  }
  if (service) {
    const s = service.concurrent;
    out.service_200_streams_first_byte_p95_ms = againstFloor(`${s.streams} concurrent streams, first byte p95 of the median burst (ms): service / plain Node HTTP server, same bytes`, s.ttfb_p95_ms, s.baseline_plain_node.ttfb_p95_ms, 1.2, s.streams * (s.bursts ?? 1));
  }
  const absolute = (label: string, value: number, max: number, samples?: number): Figure => ({ label, value, goal: `≤ ${max}`, met: value <= max, judged: value, samples });
  if (renderer) {
    // The issue's goals are script time; the whole update (style and layout after it) is named beside.
    const kb40 = renderer.renderCost.clarity.kb40;
    out.render_cost_40kb_p95_ms =
      kb40.scriptP95 === undefined
        ? absolute('Render cost per delta at 40 KB, p95 (ms; update work: render, commit, style, layout)', kb40.p95, 1, kb40.n)
        : absolute(`Render cost per delta at 40 KB, p95 of script time (ms; React's render and commit, a layout they force included; the whole update with style and layout: ${kb40.p95})`, kb40.scriptP95, 1, kb40.n);
    const append = renderer.history.appendMs;
    const cpu = renderer.history.appendCpuMs;
    out.append_answer_worst_ms =
      append.scriptWorst === undefined
        ? absolute('Append a whole 4 KB answer to a 1,000-answer conversation, worst of 12 (ms)', append.worst, 3, append.n)
        : absolute(`Append a whole 4 KB answer to a 1,000-answer conversation, worst of 12, script time (ms; the whole update with style and layout: ${append.worst}${cpu ? `; traced again, the main thread's CPU time in script and GC: median ${cpu.scriptMedian}, worst ${cpu.scriptWorst}, GC worst ${cpu.gcWorst}` : ''})`, append.scriptWorst, 3, append.n);
  }
  if (library) Object.assign(out, libraryFigures(library, absolute));
  if (soak) Object.assign(out, soakFigures(soak, absolute));
  return out;
}

type Absolute = (label: string, value: number, max: number, samples?: number) => Figure;

function libraryFigures(library: LibraryBenchResult, absolute: Absolute): Record<string, Figure> {
  const out: Record<string, Figure> = {};
  const firstPage = absolute(`Library, ${library.items.toLocaleString('en-IN')} items: first page shown after opening, first open without a cache (ms; floor: reading every item file's bytes in a plain loop)`, library.first_open_first_results_ms ?? library.open_to_first_results_ms, 300, 1);
  out.library_first_page_ms = library.first_open_floor_ms === undefined ? firstPage : { ...firstPage, floor: library.first_open_floor_ms, ratio: ratioOf(firstPage.value, library.first_open_floor_ms) };
  // Since item names sort by time (decision 15) a first open lists the folder and reads only the
  // newest files, showing the first 50 rows once those are in: the floor honest for that work,
  // beside the one above.
  if (library.first_page_floor_ms !== undefined) {
    const listing = library.listing_ms;
    const others = listing ? `; on this disk readdir ${listing.readdir}, with types ${listing.readdir_with_types}, stat of every file ${listing.stat_every_file}, the 200 newest files ${listing.read_newest_head}` : '';
    out.library_first_page_vs_listing_ms = { ...firstPage, label: `Library, ${library.items.toLocaleString('en-IN')} items: first page on a first open (ms; floor: listing the folder and reading the 50 newest item files' bytes, the rows shown first${others})`, floor: library.first_page_floor_ms, ratio: ratioOf(firstPage.value, library.first_page_floor_ms) };
  }
  const items = library.items.toLocaleString('en-IN');
  if (library.search_usable_ms !== undefined) out.library_search_usable_ms = absolute(`Library, ${items} items: search finds all it will after a later open, the persisted index loaded (ms)`, library.search_usable_ms, 1000, 1);
  else if (library.reopen_ready_ms !== undefined) out.library_search_usable_ms = absolute(`Library, ${items} items: a later open until the folder is checked (a run before search-usable was timed; ms)`, library.reopen_ready_ms, 1000, 1);
  out.library_search_p95_ms = absolute('Library search p95, worst query (ms)', Math.max(...library.queries.map((q) => q.p95_ms)), 10, 40);
  return out;
}

function soakFigures(soak: SoakResult, absolute: Absolute): Record<string, Figure> {
  const out: Record<string, Figure> = {};
  const span = `${soak.minutes} min soak, ${soak.turnsAtEnd} turns at the end${soak.conversation === 'fixed' ? ' (held at that size)' : ''}${soak.answersNotDone?.length ? `, ${soak.answersNotDone.length} answers not done` : ''}`;
  // A growing conversation grows the heap by its own data: that share is named beside the figure.
  const perTurn = soak.heapKbPerAddedTurn !== null ? `; ${soak.heapKbPerAddedTurn} KB of heap per added turn, its stored answer ${soak.storedKbPerAddedTurn ?? '?'} KB` : '';
  // The bare page's growth in the same run (soak-bench.ts, heapFloor): KB/h is the unit both pages
  // share; each one's % is of its own base. The goal stays the app's %/h as defined.
  const hf = soak.heapFloor;
  const floorText = hf ? `; beside a bare page in the same run, driven more lightly (2 fills and 1 evaluate per answer: a lower bound): app ${hf.kbPerHour.value} KB/h, floor ${hf.kbPerHour.floor} KB/h (${hf.pctPerHour.floor} %/h of its ${hf.baseMb.floor} MB), difference (an upper bound on the app's own) ${hf.kbPerHour.difference} KB/h = ${hf.pctPerHour.difference} %/h of the app's ${hf.baseMb.value} MB` : '';
  out.soak_heap_growth_pct_per_h = absolute(`${span}: JS heap growth after warm-up (% per hour${perTurn}${floorText})`, soak.heapGrowthPctPerHour, 5, soak.samples.length);
  out.soak_dom_growth_pct_per_h = absolute(`${span}: DOM node growth after warm-up (% per hour)`, soak.domNodeGrowthPctPerHour, 5, soak.samples.length);
  // Trees of other documents (DOMPurify's inert one) are never the page's; named beside it. A
  // soak saved before they were told apart has no otherDocuments: its count is of both.
  const other = soak.detached.otherDocuments;
  out.soak_detached_trees = absolute(`${span}: detached DOM trees of the page's document held by JS at the end (${soak.detached.nodes} nodes)${other ? `; other documents' trees beside them: ${other.trees} (${other.nodes} nodes${other.examples.length > 0 ? `: ${other.examples.join(', ')}` : ''})` : ''}`, soak.detached.trees, 0, 1);
  out.soak_scroll_over_share = { label: `${span}: share of scroll frames over 1.5 × the floor page's median frame (value: app median frame ms; floor: floor page's)`, value: soak.scroll.medianMs, floor: soak.scroll.floorMedianMs, ratio: soak.scroll.overShare, goal: 'share (ratio column) ≤ 0.05', met: soak.scroll.overShare <= 0.05, judged: soak.scroll.overShare, samples: soak.scroll.frames };
  out.soak_keystroke_end_vs_start = { label: `${span}: keystroke → paint p95 at the end (value) vs the start (floor column), ${soak.keystroke.n} keys each, 10 s after the load and after the last answer, ms${soak.keystroke.endAtOnceP95 === undefined ? '' : `; at once after the last answer: ${soak.keystroke.endAtOnceP95} (${soak.keystroke.atOnceRatio} ×)`}`, value: soak.keystroke.endP95, floor: soak.keystroke.startP95, ratio: soak.keystroke.ratio, goal: 'ratio ≤ 1.1', met: soak.keystroke.ratio <= 1.1, judged: soak.keystroke.ratio, samples: soak.keystroke.n };
  return out;
}

export function figuresTable(figures: Record<string, Figure>): string {
  const cell = (n: number | undefined): string => (n === undefined ? '' : String(n));
  return [
    '| Figure (issue 31) | Value | Floor | Ratio | Goal | |',
    '|---|---:|---:|---:|---|---|',
    ...Object.values(figures).map((f) => `| ${f.label} | ${cell(f.value)} | ${cell(f.floor)} | ${cell(f.ratio)} | ${f.goal} | ${f.met ? 'met' : 'missed'} |`),
  ].join('\n');
}
