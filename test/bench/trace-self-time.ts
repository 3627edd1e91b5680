/** Chromium trace events as the bench scripts read them, and self time per event name. */
export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { frame?: string } };
}

/**
 * Self time (ms) per event name over one thread's complete events, sorted by start (a parent
 * before its children): each event's duration less that of the events nested in it.
 */
export function selfTimeByName(complete: TraceEvent[]): Map<string, number> {
  const stack: TraceEvent[] = [];
  const self = new Map<TraceEvent, number>();
  for (const event of complete) {
    while (stack.length > 0 && stack.at(-1)!.ts + stack.at(-1)!.dur! <= event.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) self.set(parent, (self.get(parent) ?? parent.dur!) - event.dur!);
    self.set(event, event.dur!);
    stack.push(event);
  }
  const totals = new Map<string, number>();
  for (const [event, us] of self) totals.set(event.name, (totals.get(event.name) ?? 0) + us / 1000);
  return totals;
}

interface CpuProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }
/** A V8 CPU profile (node:inspector's `Profiler.stop`). */
export type CpuProfile = { nodes: CpuProfileNode[]; samples: number[]; timeDeltas: number[] };

/** Self time (ms) per function (name, file, line) in a CPU profile, idle left out, the `n` largest first. */
export function cpuProfileTopSelf(profile: CpuProfile, n: number): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals].filter(([name]) => !name.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, n);
}
