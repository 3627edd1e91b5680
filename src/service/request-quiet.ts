/**
 * When the service has nobody to answer: work that only makes a later request faster (Discover's
 * timeline, follows/signal-timeline.ts) waits for a quiet moment after the start instead of
 * running in it. Each request counts from its arrival until its connection's response closes
 * (sent, streamed to its end, or cut), so a streamed answer is "under way" for all of it.
 */
export class RequestQuiet {
  private underWay = 0;
  private lastAt = performance.now();
  private readonly waiting = new Set<() => void>();

  /** A request arrived; `onClose` is given the function to call once its response has ended (sent or cut). */
  began(onClose: (ended: () => void) => void): void {
    this.underWay += 1;
    this.lastAt = performance.now();
    let ended = false;
    onClose(() => {
      if (ended) return;
      ended = true;
      this.underWay -= 1;
      this.lastAt = performance.now();
    });
  }

  /**
   * Resolves true once no request has been under way for `quietMs`, false if `cancel()` came
   * first. Its timer keeps no process alive (a service closing meanwhile just never runs the work).
   */
  whenQuiet(quietMs: number): { quiet: Promise<boolean>; cancel(): void } {
    let timer: NodeJS.Timeout | null = null;
    let settle!: (quiet: boolean) => void;
    const quiet = new Promise<boolean>((resolve) => (settle = resolve));
    const finish = (value: boolean): void => {
      if (timer) clearTimeout(timer);
      timer = null;
      this.waiting.delete(cancel);
      settle(value);
    };
    const cancel = (): void => finish(false);
    const check = (): void => {
      const left = this.lastAt + quietMs - performance.now();
      if (this.underWay === 0 && left <= 0) {
        finish(true);
        return;
      }
      // Under way: look again a full quiet period later (its end restarts the count anyway).
      timer = setTimeout(check, this.underWay > 0 ? quietMs : Math.ceil(left));
      timer.unref();
    };
    this.waiting.add(cancel);
    check();
    return { quiet, cancel };
  }

  /** Ends every wait (the service's close). */
  cancelAll(): void {
    for (const cancel of [...this.waiting]) cancel();
  }
}
