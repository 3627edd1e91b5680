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

/** Self time per event name on the page's main thread (the 16 largest), and its tasks' lengths over 1 ms. */
export function summariseMainThread(events: TraceEvent[]): { self: Array<[string, number]>; frames: number[] } {
  const threads = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  // The traced page's main thread: the one with the most timeline work.
  const busy = new Map<string, number>();
  for (const e of events) if (e.ph === 'X' && threads.some((t) => t.pid === e.pid && t.tid === e.tid)) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
  const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
  const complete = events.filter((e) => e.ph === 'X' && e.dur !== undefined && `${e.pid}:${e.tid}` === main).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const totals = selfTimeByName(complete);
  // A frame's main-thread work: the animation-frame task (rAF callbacks, then style, layout, paint).
  const frames = complete.filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask').map((e) => e.dur! / 1000).filter((ms) => ms > 1);
  return { self: [...totals].sort((a, b) => b[1] - a[1]).slice(0, 16), frames };
}
