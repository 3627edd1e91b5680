import { describe, expect, it } from 'vitest';
import { animationFrameTasks, kindOf, type Ev } from '../bench/frame-breakdown';

// Issue 50: what ran in a frame, from trace events (µs), split by self time.
const main = { pid: 1, tid: 7 };
const x = (name: string, ts: number, dur: number, tdur = dur, args?: Ev['args']): Ev => ({ name, ph: 'X', ts, dur, tdur, ...main, args });

describe('frame breakdown', () => {
  it('splits an animation-frame task into script, GC, style, layout and paint, and names the layout script forced', () => {
    const events: Ev[] = [
      { name: 'thread_name', ph: 'M', ts: 0, ...main, args: { name: 'CrRendererMain' } },
      // A task that ran no animation frame: not counted.
      x('ThreadControllerImpl::RunTask', 0, 500),
      x('FunctionCall', 10, 400),
      // The frame: 10 ms of wall, 6 of CPU (the thread waited 4 ms for a core inside the callback).
      x('ThreadControllerImpl::RunTask', 1_000, 10_000, 6_000),
      x('FireAnimationFrame', 1_100, 6_000, 2_000),
      x('FunctionCall', 1_100, 6_000, 2_000),
      x('MinorGC', 1_200, 300, 300),
      x('Layout', 2_000, 700, 700, { beginData: { stackTrace: [{ functionName: 'follow', url: 'http://x/assets/index.js', lineNumber: 41 }] } }),
      x('UpdateLayoutTree', 7_200, 400, 400),
      x('Layout', 7_700, 1_000, 1_000),
      x('Paint', 8_800, 1_500, 1_500),
    ];
    const [frame, ...rest] = animationFrameTasks(events);
    expect(rest).toEqual([]);
    expect(frame!.wallMs).toBe(10);
    expect(frame!.cpuMs).toBe(6);
    expect(frame!.wall.script).toBeCloseTo(5); // 6 ms of callback less the GC and the forced layout
    expect(frame!.cpu.script).toBeCloseTo(1);
    expect(frame!.wall.gc).toBeCloseTo(0.3);
    expect(frame!.wall.layout).toBeCloseTo(1.7);
    expect(frame!.wall.style).toBeCloseTo(0.4);
    expect(frame!.wall.paint).toBeCloseTo(1.5);
    expect(frame!.wall.other).toBeCloseTo(1.1);
    expect(frame!.layouts).toBe(2);
    expect(frame!.forced).toEqual(['Layout 0.70 ms in FunctionCall (follow index.js:42)']);
  });

  it('names the kinds of work by their trace event', () => {
    expect(kindOf('V8.GCScavenger')).toBe('gc');
    expect(kindOf('MajorGC')).toBe('gc');
    expect(kindOf('UpdateLayoutTree')).toBe('style');
    expect(kindOf('Layout')).toBe('layout');
    expect(kindOf('Commit')).toBe('paint');
    expect(kindOf('RunMicrotasks')).toBe('script');
    expect(kindOf('ThreadControllerImpl::RunTask')).toBe('other');
  });
});
