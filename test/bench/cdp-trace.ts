/** A page's Chromium timeline and CPU profile over CDP around some work, and its main thread's summary (bench scripts only). */
import type { CDPSession } from 'playwright-core';
import { selfTimeByName, type CpuProfile, type TraceEvent } from './trace-self-time';

/** Runs `work` with the page traced (timeline events) and profiled (V8 CPU profile, 200 µs samples). */
export async function traced<T>(cdp: CDPSession, work: () => Promise<T>): Promise<{ result: T; events: TraceEvent[]; profile: CpuProfile }> {
  const events: TraceEvent[] = [];
  const collect = (data: { value: object[] }): void => void events.push(...(data.value as TraceEvent[]));
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,blink.user_timing,toplevel', transferMode: 'ReportEvents' });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const result = await work();
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);
  return { result, events, profile };
}

/**
 * Self time per event name on the page's main thread (the 16 largest), its tasks' lengths over
 * 1 ms, and the lengths of its animation-frame tasks (a task that ran requestAnimationFrame
 * callbacks: for a stream, the batch's work, then style, layout and paint) with a breakdown
 * of them per event name (mean ms per such task, the event's whole time, nested ones included).
 */
export function summariseMainThread(events: TraceEvent[]): { self: Array<[string, number]>; frames: number[]; animationFrames: number[]; perAnimationFrame: Record<string, number> } {
  const threads = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  // The traced page's main thread: the one with the most timeline work.
  const busy = new Map<string, number>();
  for (const e of events) if (e.ph === 'X' && threads.some((t) => t.pid === e.pid && t.tid === e.tid)) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
  const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
  const complete = events.filter((e) => e.ph === 'X' && e.dur !== undefined && `${e.pid}:${e.tid}` === main).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const totals = selfTimeByName(complete);
  // A frame's main-thread work: the animation-frame task (rAF callbacks, then style, layout, paint).
  const frames = complete.filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask').map((e) => e.dur! / 1000).filter((ms) => ms > 1);
  // Outermost tasks only (a task can nest another), kept if a FireAnimationFrame ran inside.
  const outer: TraceEvent[] = [];
  for (const task of complete.filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask')) {
    const last = outer.at(-1);
    if (!last || task.ts >= last.ts + last.dur!) outer.push(task);
  }
  const inFrame = new Map<string, number>();
  const animationFrames: number[] = [];
  let at = 0;
  for (const task of outer) {
    const end = task.ts + task.dur!;
    while (at < complete.length && complete[at]!.ts < task.ts) at += 1;
    const inside: TraceEvent[] = [];
    for (let i = at; i < complete.length && complete[i]!.ts < end; i += 1) if (complete[i] !== task && complete[i]!.ts + complete[i]!.dur! <= end) inside.push(complete[i]!);
    if (!inside.some((e) => e.name === 'FireAnimationFrame')) continue;
    animationFrames.push(task.dur! / 1000);
    for (const e of inside) if (FRAME_PARTS.has(e.name)) inFrame.set(e.name, (inFrame.get(e.name) ?? 0) + e.dur! / 1000);
  }
  const perAnimationFrame = Object.fromEntries([...inFrame].sort((a, b) => b[1] - a[1]).map(([name, ms]) => [name, +(ms / Math.max(1, animationFrames.length)).toFixed(3)]));
  return { self: [...totals].sort((a, b) => b[1] - a[1]).slice(0, 16), frames, animationFrames, perAnimationFrame };
}

/** The parts of a frame's task worth naming (the rest is scheduling and nesting). */
const FRAME_PARTS = new Set(['FireAnimationFrame', 'RunMicrotasks', 'FunctionCall', 'EventDispatch', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit']);
