/**
 * The service's quiet moment (src/service/request-quiet.ts): work that only speeds up a later
 * request (Discover's timeline) waits until no request has been under way for a while. Time is
 * the subject here, so the clock is a fake one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestQuiet } from '../../src/service/request-quiet';

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => vi.useRealTimers());

/** Whether the wait has settled, and with what, after the clock moved. */
function watch(wait: { quiet: Promise<boolean> }): { settled: boolean | null } {
  const seen = { settled: null as boolean | null };
  void wait.quiet.then((quiet) => (seen.settled = quiet));
  return seen;
}

describe('request quiet', () => {
  it('says quiet once nobody has asked anything for the whole period', async () => {
    const quiet = new RequestQuiet();
    const seen = watch(quiet.whenQuiet(1_000));
    await vi.advanceTimersByTimeAsync(999);
    expect(seen.settled).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(seen.settled).toBe(true);
  });

  it('waits while a request is under way, and a full period after it ended', async () => {
    const quiet = new RequestQuiet();
    let end!: () => void;
    quiet.began((ended) => (end = ended));
    const seen = watch(quiet.whenQuiet(1_000));
    // A streamed answer under way for 5 s: not quiet all that time.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(seen.settled).toBeNull();
    end();
    end(); // a response's close told twice counts once
    await vi.advanceTimersByTimeAsync(999);
    expect(seen.settled).toBeNull();
    // Another request that came and went restarts the count.
    quiet.began((ended) => ended());
    await vi.advanceTimersByTimeAsync(999);
    expect(seen.settled).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(seen.settled).toBe(true);
  });

  it('a cancelled wait (the service closing) settles as not quiet and runs nothing later', async () => {
    const quiet = new RequestQuiet();
    const seen = watch(quiet.whenQuiet(1_000));
    const other = watch(quiet.whenQuiet(2_000));
    quiet.cancelAll();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(seen.settled).toBe(false);
    expect(other.settled).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
