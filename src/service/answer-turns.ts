/**
 * Streaming answers' work, one short step per event-loop turn, the oldest ask's steps first.
 *
 * Under many concurrent asks (200 in the benchmark) every loop turn reads the requests that
 * arrived and sends their first bytes (the handler writes `message_start` before any answer work),
 * then runs one step here. A step used to be a whole answer (retrieval, compose, verification and
 * writing: ≈ 3 ms on this project's machine), so each turn gave an earlier ask's answer ≈ 3 ms of
 * the CPU the asks still arriving needed for their first bytes. Steps are now ≈ 0.2–0.9 ms (the
 * retrieval, the compose, then the verification of a few paragraphs at a time): the turn comes back
 * to the sockets sooner, and no step waits for anything but the loop, so an ask alone gets its
 * answer as soon as before (no answer waits for a timer or for asks to stop arriving: that hold
 * met the first-byte figure but finished answers later; bench/notes.md, round 8). In a burst an
 * answer's frames are written when it ends (routes/ask.ts, `holding`), not at each step.
 *
 * The oldest ask goes first, as when composes ran one per turn in arrival order: a burst's first
 * answer is not spread over the turns of 200 answers written side by side.
 */
export class AnswerTurns {
  private readonly waiting: Array<{ ask: number; resolve: () => void }> = [];
  private scheduled = false;
  private asks = 0;

  /** A place in line for a new ask: its steps go before those of every ask that entered after it. */
  enter(): number {
    this.asks += 1;
    return this.asks;
  }

  /** Whether steps are waiting besides the caller's (other answers are being written). */
  busy(): boolean {
    return this.waiting.length > 0;
  }

  /** Resolves in a later loop turn, after the I/O that arrived meanwhile and the waiting steps of earlier asks. */
  step(ask: number): Promise<void> {
    return new Promise((resolve) => {
      let at = this.waiting.length;
      while (at > 0 && this.waiting[at - 1]!.ask > ask) at -= 1;
      this.waiting.splice(at, 0, { ask, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.run);
      }
    });
  }

  private readonly run = (): void => {
    const next = this.waiting.shift();
    // One step per turn: the next is scheduled for the next turn's check phase, after its poll.
    if (this.waiting.length > 0) setImmediate(this.run);
    else this.scheduled = false;
    // The step's work runs in the microtasks right after this callback, so still in this turn.
    next?.resolve();
  };
}
