/**
 * The hold on composes and new sessions' rows while a burst of asks arrives
 * (src/service/burst-hold.ts), on fake timers and a fake clock: no timing in the assertions.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterArrivals, BURST_HOLD, streamOpened } from '../../src/service/burst-hold';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('work held while asks arrive', () => {
  it('runs at once (next turn) when no other stream opened: an ask alone is not held', () => {
    const work = vi.fn();
    afterArrivals(work);
    vi.advanceTimersByTime(0);
    expect(work).toHaveBeenCalledOnce();
  });

  it('does not count the caller\'s own stream (a new session\'s row is queued before its stream opens)', () => {
    const work = vi.fn();
    afterArrivals(work, 1);
    streamOpened();
    vi.advanceTimersByTime(0);
    expect(work).toHaveBeenCalledOnce();
  });

  it('waits while streams keep opening, and runs once none has opened for the quiet time', () => {
    const work = vi.fn();
    afterArrivals(work);
    streamOpened();
    vi.advanceTimersByTime(1);
    streamOpened();
    vi.advanceTimersByTime(BURST_HOLD.quietMs - 0.5);
    expect(work).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(work).toHaveBeenCalledOnce();
  });

  it('never waits longer than the longest hold, however the asks keep coming', () => {
    const work = vi.fn();
    afterArrivals(work);
    let waited = 0;
    while (work.mock.calls.length === 0 && waited < 10 * BURST_HOLD.maxHoldMs) {
      streamOpened();
      vi.advanceTimersByTime(1);
      waited += 1;
    }
    expect(work).toHaveBeenCalledOnce();
    expect(waited).toBeLessThanOrEqual(BURST_HOLD.maxHoldMs + 1);
  });
});
