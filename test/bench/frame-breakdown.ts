/**
 * Issue 50: a page's animation-frame tasks from a Chromium trace, each split by self time into
 * script, GC, style, layout, paint and other, as wall time and as the main thread's CPU time
 * (which the machine's load does not inflate), with the style and layout script forced. Used by
 * long-frames.ts (the profile) and renderer-bench.ts (the append's CPU time beside its wall time).
 */
import type { CDPSession } from 'playwright-core';

type Frame = { functionName?: string; url?: string; lineNumber?: number };
export type Ev = { name: string; ph: string; ts: number; dur?: number; tdur?: number; pid: number; tid: number; args?: { name?: string; beginData?: { stackTrace?: Frame[] }; data?: { stackTrace?: Frame[] } } };
export type Kind = 'script' | 'gc' | 'style' | 'layout' | 'paint' | 'other';
export const KINDS: Kind[] = ['script', 'gc', 'style', 'layout', 'paint', 'other'];

/** Which kind of work a trace event's self time is. */
export function kindOf(name: string): Kind {
  if (/^(MinorGC|MajorGC|ScheduledGC)$|^V8\.GC|^BlinkGC|^CppGC|GarbageCollect|^ThreadState::/.test(name)) return 'gc';
  if (/^(UpdateLayoutTree|RecalculateStyles|ParseAuthorStyleSheet|ScheduleStyleRecalculation)$/.test(name)) return 'style';
  if (/^(Layout|UpdateLayout|LocalFrameView::layout)$/.test(name)) return 'layout';
  if (/^(PrePaint|Paint|PaintImage|Layerize|Commit|UpdateLayer|UpdateLayerTree|CompositeLayers|PaintSetup)$/.test(name)) return 'paint';
  if (/^(FunctionCall|EvaluateScript|RunMicrotasks|FireAnimationFrame|TimerFire|EventDispatch|XHRReadyStateChange|ResizeObserver|IntersectionObserver|HitTest|ScrollLayer)|^v8\.|^V8\.|^v8::|Compile|Microtask|Observer/.test(name)) return 'script';
  return 'other';
}

export interface TaskBreakdown {
  wallMs: number;
  cpuMs: number;
  /** Self time per kind, wall clock (ms). */
  wall: Record<Kind, number>;
  /** Self time per kind, the thread's CPU time (ms; an event without it counts its wall time). */
  cpu: Record<Kind, number>;
  /** The event names with the most self time in this task (wall ms). */
  top: Array<[string, number]>;
  /** How many layouts and style recalculations ran in the task (more than one each: a forced one). */
  layouts: number;
  styles: number;
  /** Style recalculations and layouts that script forced (ran inside a script event), with the script's top frame. */
  forced: string[];
  /** The task's lifecycle in order: script, style, layout and paint events with their wall ms (LONG_FRAMES_SEQUENCE=1). */
  sequence: string[];
}

const SCRIPT_PARENTS = new Set(['FunctionCall', 'FireAnimationFrame', 'RunMicrotasks', 'EventDispatch', 'TimerFire', 'v8.callFunction', 'EvaluateScript']);
const where = (e: Ev): string => {
  const top = (e.args?.beginData?.stackTrace ?? e.args?.data?.stackTrace ?? [])[0];
  return top ? `${top.functionName || '(anonymous)'} ${top.url?.split('/').pop() ?? ''}:${(top.lineNumber ?? 0) + 1}` : 'no stack';
};

/** The page's main thread: the renderer main thread with the most timeline work. */
export function mainThread(events: Ev[]): Ev[] {
  const threads = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const busy = new Map<string, number>();
  for (const e of events) if (e.ph === 'X' && threads.some((t) => t.pid === e.pid && t.tid === e.tid)) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
  const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
  return events.filter((e) => e.ph === 'X' && e.dur !== undefined && `${e.pid}:${e.tid}` === main).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
}

/** Every outermost task that ran animation-frame callbacks, broken down by self time. */
export function animationFrameTasks(events: Ev[]): TaskBreakdown[] {
  const complete = mainThread(events);
  const isTask = (e: Ev): boolean => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask';
  const out: TaskBreakdown[] = [];
  let taskEnd = -1;
  for (let i = 0; i < complete.length; i += 1) {
    const task = complete[i]!;
    if (!isTask(task) || task.ts < taskEnd) continue;
    taskEnd = task.ts + task.dur!;
    const inside: Ev[] = [task];
    for (let j = i + 1; j < complete.length && complete[j]!.ts < taskEnd; j += 1) if (complete[j]!.ts + complete[j]!.dur! <= taskEnd) inside.push(complete[j]!);
    if (!inside.some((e) => e.name === 'FireAnimationFrame')) continue;
    // Self time: an event's time less its children's (events sorted parent first).
    const selfWall = new Map<Ev, number>();
    const selfCpu = new Map<Ev, number>();
    const stack: Ev[] = [];
    const forced: string[] = [];
    for (const e of inside) {
      while (stack.length > 0 && stack.at(-1)!.ts + stack.at(-1)!.dur! <= e.ts) stack.pop();
      const parent = stack.at(-1);
      if ((e.name === 'UpdateLayoutTree' || e.name === 'Layout') && stack.some((s) => SCRIPT_PARENTS.has(s.name))) forced.push(`${e.name} ${(e.dur! / 1000).toFixed(2)} ms in ${[...stack].reverse().find((s) => SCRIPT_PARENTS.has(s.name))!.name} (${where(e)})`);
      if (parent) {
        selfWall.set(parent, selfWall.get(parent)! - e.dur!);
        selfCpu.set(parent, selfCpu.get(parent)! - (e.tdur ?? e.dur!));
      }
      selfWall.set(e, e.dur!);
      selfCpu.set(e, e.tdur ?? e.dur!);
      stack.push(e);
    }
    const wall = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
    const cpu = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
    const byName = new Map<string, number>();
    for (const e of inside) {
      const kind = e === task ? 'other' : kindOf(e.name);
      wall[kind] += Math.max(0, selfWall.get(e)!) / 1000;
      cpu[kind] += Math.max(0, selfCpu.get(e)!) / 1000;
      byName.set(e.name, (byName.get(e.name) ?? 0) + Math.max(0, selfWall.get(e)!) / 1000);
    }
    const sequence = inside.filter((e) => e !== task && /^(FunctionCall|FireAnimationFrame|RunMicrotasks|EventDispatch|UpdateLayoutTree|Layout|PrePaint|Paint|Layerize|Commit|ScrollLayer|HitTest|ResizeObserver|MinorGC|MajorGC)/.test(e.name)).map((e) => `${e.name}${e.name === 'UpdateLayoutTree' ? `(${(e.args as { elementCount?: number } | undefined)?.elementCount ?? '?'} el)` : ''}${e.name === 'EventDispatch' ? `(${(e.args?.data as { type?: string } | undefined)?.type ?? '?'})` : ''} ${(e.dur! / 1000).toFixed(2)}`);
    out.push({ sequence, wallMs: task.dur! / 1000, cpuMs: (task.tdur ?? task.dur!) / 1000, wall, cpu, top: [...byName].sort((a, b) => b[1] - a[1]).slice(0, 4), layouts: inside.filter((e) => e.name === 'Layout').length, styles: inside.filter((e) => e.name === 'UpdateLayoutTree').length, forced });
  }
  return out;
}

/**
 * `stacks`: the JS stack of each forced style or layout (costly: every traced event then walks the stack).
 * `samples`: V8's CPU profile as trace events (Profile, ProfileChunk), for stream-profile.ts.
 */
export async function traced(cdp: CDPSession, work: () => Promise<void>, { stacks = false, samples = false }: { stacks?: boolean; samples?: boolean } = {}): Promise<Ev[]> {
  const events: Ev[] = [];
  const collect = (data: { value: object[] }): void => void events.push(...(data.value as Ev[]));
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', { categories: `devtools.timeline,disabled-by-default-devtools.timeline,${stacks ? 'disabled-by-default-devtools.timeline.stack,' : ''}v8.execute,disabled-by-default-v8.gc,${samples ? 'disabled-by-default-v8.cpu_profiler,' : ''}blink.user_timing,toplevel`, transferMode: 'ReportEvents' });
  await work();
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);
  return events;
}
