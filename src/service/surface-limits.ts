/**
 * Limits of the surfaces added after v1's table (docs/decisions/design.md §3): Discover 60 / 60 s, predict
 * 5 / 5 min, webhook management 30 / 60 s, and follow per tier (from the JWT claim `tier`).
 * Same fixed windows and clock as the interface's limiter; kept apart so its table stays
 * exactly the interface's.
 */
import type { FastifyReply } from 'fastify';
import { SURFACE_BUCKETS, TIER_LIMITS, TIERED_WINDOW_MS, TIERS, type Tier } from '../shared/endpoints/limits';
import { ServiceError } from './http-errors';
import { RateLimiter, type LimitName, type LimitRule } from './rate-limiter';

export { TIERS, TIER_LIMITS, type Tier } from '../shared/endpoints/limits';

const HOUR = TIERED_WINDOW_MS;
const fixed = ({ limit, windowMs }: LimitRule): LimitRule => ({ limit, windowMs });

/** The numbers are the endpoint table's buckets (src/shared/endpoints/limits.ts). */
export const SURFACE_LIMITS = {
  discover: fixed(SURFACE_BUCKETS.discover),
  predict: fixed(SURFACE_BUCKETS.predict),
  webhooks: fixed(SURFACE_BUCKETS.webhooks),
  'feed:free': { limit: TIER_LIMITS.free.perHour, windowMs: HOUR },
  'feed:pro': { limit: TIER_LIMITS.pro.perHour, windowMs: HOUR },
  'feed:team': { limit: TIER_LIMITS.team.perHour, windowMs: HOUR },
  'follow:free': { limit: TIER_LIMITS.free.perHour, windowMs: HOUR },
  'follow:pro': { limit: TIER_LIMITS.pro.perHour, windowMs: HOUR },
  'follow:team': { limit: TIER_LIMITS.team.perHour, windowMs: HOUR },
} satisfies Record<string, LimitRule>;
export type SurfaceLimitName = keyof typeof SURFACE_LIMITS;

/** A tier claim we do not know counts as free: never more than the caller paid for. */
export function tierOf(claim: unknown): Tier {
  return TIERS.includes(claim as Tier) ? (claim as Tier) : 'free';
}

export class SurfaceLimiter {
  private readonly limiter: RateLimiter;

  constructor(
    private readonly rules: Record<SurfaceLimitName, LimitRule> = SURFACE_LIMITS,
    now: () => number = Date.now,
  ) {
    // The interface's limiter works on any table of named rules; only its type names v1's.
    this.limiter = new RateLimiter(rules as unknown as Record<LimitName, LimitRule>, now);
  }

  /** Counts the request, sets `x-rate-limit-remaining`, throws 429 with Retry-After when spent. */
  enforce(name: SurfaceLimitName, key: string, reply: FastifyReply): void {
    const decision = this.limiter.take(name as unknown as LimitName, key);
    reply.header('x-rate-limit-remaining', String(decision.remaining));
    if (!decision.allowed) {
      const rule = this.rules[name];
      throw new ServiceError(
        'rate_limited',
        `Rate limit reached: ${rule.limit} requests per ${describeWindow(rule.windowMs)}. Retry in ${decision.retryAfterS} s.`,
        decision.retryAfterS,
      );
    }
  }
}

function describeWindow(ms: number): string {
  if (ms % HOUR === 0) return ms === HOUR ? 'hour' : `${ms / HOUR} hours`;
  if (ms % 60_000 === 0 && ms >= 120_000) return `${ms / 60_000} minutes`;
  return `${ms / 1000} s`;
}
