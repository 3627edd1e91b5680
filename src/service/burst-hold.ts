/**
 * Work that can wait while a burst of streaming asks is still arriving: the composes, and the
 * new sessions' rows. Both run on the CPU (the service's thread; the embedded database's thread)
 * that the arriving asks need for their first bytes (message_start). Profiled under 200 asks at
 * once (bench/notes.md, "200 streams' first byte, round 8"): composes of the first asks, about
 * 2–3 ms each, ran between the arrivals and held back the later asks' first bytes by hundreds of
 * milliseconds on a busy machine. Held, every ask gets its message_start first; the answers then
 * come in the same order, and the burst's work is the same.
 *
 * Only when asks arrive together: work with no stream opened after it was scheduled runs on the
 * next event-loop turn (setImmediate), as before.
 */

/** Until no stream has opened for `quietMs`, and never longer than `maxHoldMs` per piece of work (so asks arriving without end cannot stop answers). */
export const BURST_HOLD = { quietMs: 2, maxHoldMs: 50 };

let streamsOpened = 0;
let lastOpenedAt = 0;

/** Called as a stream opens (as its message_start is written). */
export function streamOpened(): void {
  streamsOpened += 1;
  lastOpenedAt = performance.now();
}

/**
 * Runs `work` on a later event-loop turn, once asks have stopped arriving (see above). `ownStreams`:
 * streams the caller's own ask will open after this call (a new session's row is queued before its
 * stream opens), which do not count as others arriving.
 */
export function afterArrivals(work: () => void, ownStreams = 0): void {
  const openedBefore = streamsOpened + ownStreams;
  const heldSince = performance.now();
  const run = (): void => {
    const now = performance.now();
    const quietFor = now - lastOpenedAt;
    const heldFor = now - heldSince;
    if (streamsOpened > openedBefore && quietFor < BURST_HOLD.quietMs && heldFor < BURST_HOLD.maxHoldMs) {
      // A timer, not setImmediate: the loop then waits on the sockets, and the CPU is free for the senders.
      setTimeout(run, Math.max(1, Math.min(BURST_HOLD.quietMs - quietFor, BURST_HOLD.maxHoldMs - heldFor)));
      return;
    }
    work();
  };
  setImmediate(run);
}
