/**
 * Fixed-window rate limits, exactly the interface's table (docs/decisions/design.md §3): per IP for anonymous
 * callers, per user for authenticated ones. The clock is injectable so tests can cross a
 * window boundary without waiting.
 */
import { INTERFACE_BUCKETS } from '../shared/endpoints/limits';
import type { Queryable } from './store/database';
export interface LimitRule {
  limit: number;
  windowMs: number;
}

const rule = ({ limit, windowMs }: LimitRule): LimitRule => ({ limit, windowMs });
/** The numbers are the endpoint table's buckets (src/shared/endpoints/limits.ts). */
export const LIMIT_TABLE = {
  ask: rule(INTERFACE_BUCKETS.ask),
  research: rule(INTERFACE_BUCKETS.research),
  propose: rule(INTERFACE_BUCKETS.propose),
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

/**
 * The same fixed windows, counted in the database, so a team server's processes share one
 * budget (30 asks per 60 s in total, not per process). One upsert per request decides; the
 * header on other routes reads the last decision this process saw for the bucket.
 */
export class SharedRateLimiter {
  private readonly seen = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly db: Queryable,
    private readonly rules: Record<LimitName, LimitRule> = LIMIT_TABLE,
    private readonly now: () => number = Date.now,
  ) {}

  async take(name: LimitName, key: string): Promise<LimitDecision> {
    const rule = this.rules[name];
    const now = this.now();
    const bucket = `${name}:${key}`;
    // A new or expired window starts at 1; otherwise count up, never past the limit + 1.
    const [row] = await this.db.query<{ window_start_ms: number; count: number }>(
      `INSERT INTO rate_windows (bucket, window_start_ms, count) VALUES ($1, $2, 1)
       ON CONFLICT (bucket) DO UPDATE SET
         window_start_ms = CASE WHEN $2 - rate_windows.window_start_ms >= $3 THEN $2 ELSE rate_windows.window_start_ms END,
         count = CASE WHEN $2 - rate_windows.window_start_ms >= $3 THEN 1 ELSE least(rate_windows.count + 1, $4 + 1) END
       RETURNING window_start_ms, count`,
      [bucket, now, rule.windowMs, rule.limit],
    );
    const window = { start: row!.window_start_ms, count: Math.min(row!.count, rule.limit) };
    this.seen.set(bucket, window);
    const retryAfterS = Math.max(1, Math.ceil((window.start + rule.windowMs - now) / 1000));
    if (row!.count > rule.limit) return { allowed: false, remaining: 0, retryAfterS };
    return { allowed: true, remaining: rule.limit - row!.count, retryAfterS };
  }

  peek(name: LimitName, key: string): LimitDecision {
    const rule = this.rules[name];
    const now = this.now();
    const window = this.seen.get(`${name}:${key}`);
    if (!window || now - window.start >= rule.windowMs) return { allowed: true, remaining: rule.limit, retryAfterS: Math.ceil(rule.windowMs / 1000) };
    const retryAfterS = Math.max(1, Math.ceil((window.start + rule.windowMs - now) / 1000));
    return { allowed: window.count < rule.limit, remaining: rule.limit - window.count, retryAfterS };
  }
}
