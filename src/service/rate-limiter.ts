/**
 * Fixed-window rate limits, exactly the interface's table (DESIGN §3): per IP for anonymous
 * callers, per user for authenticated ones. The clock is injectable so tests can cross a
 * window boundary without waiting.
 */
export interface LimitRule {
  limit: number;
  windowMs: number;
}

export const LIMIT_TABLE = {
  ask: { limit: 30, windowMs: 60_000 },
  research: { limit: 5, windowMs: 5 * 60_000 },
  propose: { limit: 3, windowMs: 60 * 60_000 },
} satisfies Record<string, LimitRule>;
export type LimitName = keyof typeof LIMIT_TABLE;

export interface LimitDecision {
  allowed: boolean;
  remaining: number;
  /** Whole seconds until the window resets (for Retry-After). */
  retryAfterS: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly rules: Record<LimitName, LimitRule> = LIMIT_TABLE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request against the bucket and says whether it may go ahead. */
  take(name: LimitName, key: string): LimitDecision {
    return this.check(name, key, true);
  }

  /** Reports the bucket without counting a request (for the header on other routes). */
  peek(name: LimitName, key: string): LimitDecision {
    return this.check(name, key, false);
  }

  private check(name: LimitName, key: string, consume: boolean): LimitDecision {
    const rule = this.rules[name];
    const now = this.now();
    const id = `${name}:${key}`;
    let window = this.windows.get(id);
    if (!window || now - window.start >= rule.windowMs) {
      window = { start: now, count: 0 };
      if (consume) this.windows.set(id, window);
    }
    const retryAfterS = Math.max(1, Math.ceil((window.start + rule.windowMs - now) / 1000));
    if (window.count >= rule.limit) return { allowed: false, remaining: 0, retryAfterS };
    if (consume) window.count += 1;
    return { allowed: true, remaining: rule.limit - window.count, retryAfterS };
  }
}
