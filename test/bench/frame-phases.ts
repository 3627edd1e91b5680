/**
 * Benchmark only (issue 31): a saved trace's (latency-ab.ts --trace) streamed frames, phase by
 * phase. `npx tsx test/bench/frame-phases.ts TRACE.json [...]`: for each animation-frame task on
 * the page's main thread, how long script, style, layout, pre-paint, paint, layerize and commit
 * took, how many elements each style recalculation touched, each layout's root and objects
 * (dirty / total), what was painted, and what else ran in the frame (scroll, hit tests, events,
 * observers). Printed as the mean per frame, then the typical (median-length) frame in full.
 */
import { readFileSync } from 'node:fs';
import type { TraceEvent } from './trace-self-time';

interface Args { name?: string; elementCount?: number; beginData?: { dirtyObjects?: number; totalObjects?: number }; endData?: { layoutRoots?: Array<{ nodeName: string }> }; data?: { clip?: number[]; nodeName?: string; type?: string } }
type Ev = Omit<TraceEvent, 'args'> & { args?: Args };
const TASK = new Set(['ThreadControllerImpl::RunTask', 'RunTask']);

for (const file of process.argv.slice(2)) {
  const events = (JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: Ev[] }).traceEvents;
  const threads = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const busy = new Map<string, number>();
  for (const e of events) if (e.ph === 'X' && threads.some((t) => t.pid === e.pid && t.tid === e.tid)) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
  const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
  const onMain = events.filter((e) => `${e.pid}:${e.tid}` === main && (e.ph === 'X' || e.ph === 'I' || e.ph === 'i')).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const outer: Ev[] = [];
  for (const task of onMain.filter((e) => e.ph === 'X' && TASK.has(e.name))) {
    const last = outer.at(-1);
    if (!last || task.ts >= last.ts + last.dur!) outer.push(task);
  }
  const frames: Array<{ ms: number; parts: Record<string, number>; counts: Record<string, number>; notes: string[] }> = [];
  for (const task of outer) {
    const end = task.ts + task.dur!;
    const inside = onMain.filter((e) => e !== task && e.ts >= task.ts && e.ts + (e.dur ?? 0) <= end);
    if (!inside.some((e) => e.name === 'FireAnimationFrame')) continue;
    const parts: Record<string, number> = {};
    const counts: Record<string, number> = {};
    const notes: string[] = [];
    const add = (k: string, ms: number): void => void (parts[k] = (parts[k] ?? 0) + ms);
    const count = (k: string, n = 1): void => void (counts[k] = (counts[k] ?? 0) + n);
    for (const e of inside) {
      const ms = (e.dur ?? 0) / 1000;
      switch (e.name) {
        case 'FunctionCall': case 'FireAnimationFrame': case 'RunMicrotasks': case 'EventDispatch': case 'UpdateLayoutTree': case 'Layout': case 'PrePaint': case 'Paint': case 'Layerize': case 'Commit': case 'HitTest': case 'ScrollLayer': case 'IntersectionObserverController::computeIntersections': case 'UpdateLayer':
          add(e.name, ms);
          count(e.name);
          break;
      }
      if (e.name === 'UpdateLayoutTree') { count('styleElements', e.args?.elementCount ?? 0); notes.push(`style ${e.args?.elementCount} el ${ms.toFixed(2)}ms`); }
      if (e.name === 'Layout') {
        const b = e.args?.beginData ?? {};
        count('layoutDirty', b.dirtyObjects ?? 0);
        count('layoutTotal', b.totalObjects ?? 0);
        const roots = (e.args?.endData?.layoutRoots ?? []).map((r) => r.nodeName).join('|');
        notes.push(`layout ${b.dirtyObjects}/${b.totalObjects} root ${roots} ${ms.toFixed(2)}ms`);
      }
      if (e.name === 'Paint') { const c = e.args?.data?.clip as number[] | undefined; notes.push(`paint ${e.args?.data?.nodeName} ${c ? `${c[2]! - c[0]!}x${c[5]! - c[1]!}` : ''} ${ms.toFixed(2)}ms`); }
      if (e.name === 'EventDispatch') notes.push(`event ${e.args?.data?.type} ${ms.toFixed(2)}ms`);
      if (e.name === 'ScrollLayer') notes.push(`scroll ${e.args?.data?.nodeName}`);
      if (e.name === 'InvalidateLayout') count('invalidateLayout');
      if (e.name === 'ScheduleStyleRecalculation') count('scheduleStyle');
      if (e.name === 'HitTest') notes.push(`hittest ${ms.toFixed(2)}ms`);
    }
    frames.push({ ms: task.dur! / 1000, parts, counts, notes });
  }
  const n = Math.max(1, frames.length);
  const mean = (pick: (f: (typeof frames)[number]) => Record<string, number>): Record<string, number> => {
    const sum: Record<string, number> = {};
    for (const f of frames) for (const [k, v] of Object.entries(pick(f))) sum[k] = (sum[k] ?? 0) + v;
    return Object.fromEntries(Object.entries(sum).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, +(v / n).toFixed(3)]));
  };
  const sorted = [...frames].sort((a, b) => a.ms - b.ms);
  const typical = sorted[Math.floor(sorted.length / 2)];
  console.log(JSON.stringify({ file, frames: frames.length, taskMs: { mean: +(frames.reduce((a, f) => a + f.ms, 0) / n).toFixed(2), median: typical?.ms.toFixed(2) }, meanMsPerFrame: mean((f) => f.parts), meanCountPerFrame: mean((f) => f.counts), typical }, null, 1));
}
