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
