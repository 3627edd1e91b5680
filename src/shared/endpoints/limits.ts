/**
 * The service's rate-limit buckets, declared once: the service counts requests against these
 * numbers (`rate-limiter.ts`, `surface-limits.ts`), each endpoint of the table names its bucket,
 * and the OpenAPI document's limits prose is written from them.
 */

const HOUR_MS = 3_600_000;

/** Who a bucket is counted for: per IP for anonymous callers and per user when signed in, or per user only. */
export type BucketCaller = 'caller' | 'user';

export interface FixedBucket {
  limit: number;
  windowMs: number;
  per: BucketCaller;
}

/**
 * The interface's own table (ask, research, propose): the buckets `x-rate-limit-remaining`
 * reports on routes without a limit of their own. Kept exactly as the interface states it.
 */
export const INTERFACE_BUCKETS = {
  ask: { limit: 30, windowMs: 60_000, per: 'caller' },
  research: { limit: 5, windowMs: 5 * 60_000, per: 'user' },
  propose: { limit: 3, windowMs: HOUR_MS, per: 'caller' },
} as const satisfies Record<string, FixedBucket>;
export type InterfaceBucketName = keyof typeof INTERFACE_BUCKETS;

/** Limits of the surfaces added after v1's table (Discover, predict, webhook management). */
export const SURFACE_BUCKETS = {
  discover: { limit: 60, windowMs: 60_000, per: 'caller' },
  predict: { limit: 5, windowMs: 5 * 60_000, per: 'user' },
  webhooks: { limit: 30, windowMs: 60_000, per: 'user' },
} as const satisfies Record<string, FixedBucket>;

export const TIERS = ['free', 'pro', 'team'] as const;
export type Tier = (typeof TIERS)[number];

/** How many follows each tier may hold, and how many feed reads (and follow changes) per hour. */
export const TIER_LIMITS: Record<Tier, { follows: number; perHour: number }> = {
  free: { follows: 10, perHour: 60 },
  pro: { follows: 100, perHour: 600 },
  team: { follows: 1_000, perHour: 6_000 },
};
/** Buckets counted per tier and hour (from the JWT claim `tier`), per user. */
export const TIERED_BUCKETS = ['follow', 'feed'] as const;
export const TIERED_WINDOW_MS = HOUR_MS;

export type LimitBucketName = InterfaceBucketName | keyof typeof SURFACE_BUCKETS | (typeof TIERED_BUCKETS)[number];

export function isInterfaceBucket(name: LimitBucketName): name is InterfaceBucketName {
  return Object.hasOwn(INTERFACE_BUCKETS, name);
}

/** `60 s`, `5 min`, `h`: the window as the prose writes it after a slash. */
function windowText(ms: number): string {
  if (ms === HOUR_MS) return 'h';
  if (ms % 60_000 === 0 && ms > 60_000) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

const CALLER_TEXT: Record<BucketCaller, string> = {
  caller: 'per IP for anonymous callers, per user when signed in',
  user: 'per user',
};

/** `30/60 s`, or the tiers' numbers per hour. */
export function limitNumbers(name: LimitBucketName): string {
  if ((TIERED_BUCKETS as readonly string[]).includes(name)) {
    return `per tier and hour: ${TIERS.map((tier) => `${tier} ${TIER_LIMITS[tier].perHour.toLocaleString('en-US')}`).join(', ')}`;
  }
  const bucket = (INTERFACE_BUCKETS as Record<string, FixedBucket>)[name] ?? (SURFACE_BUCKETS as Record<string, FixedBucket>)[name]!;
  return `${bucket.limit}/${windowText(bucket.windowMs)}`;
}

/** One bucket in prose: `ask bucket (30/60 s, per IP for anonymous callers, per user when signed in)`. */
export function limitProse(name: LimitBucketName): string {
  const fixed = (INTERFACE_BUCKETS as Record<string, FixedBucket>)[name] ?? (SURFACE_BUCKETS as Record<string, FixedBucket>)[name];
  return `${name} bucket (${limitNumbers(name)}, ${CALLER_TEXT[fixed?.per ?? 'user']})`;
}

/** The interface's table in one line: `ask 30/60 s, research 5/5 min, propose 3/h`. */
export function interfaceLimitsLine(): string {
  return (Object.keys(INTERFACE_BUCKETS) as InterfaceBucketName[]).map((name) => `${name} ${limitNumbers(name)}`).join(', ');
}

/** The extensions' buckets in one line. */
export function surfaceLimitsLine(): string {
  const fixed = (Object.keys(SURFACE_BUCKETS) as Array<keyof typeof SURFACE_BUCKETS>).map((name) => `${name} ${limitNumbers(name)} (${CALLER_TEXT[SURFACE_BUCKETS[name].per]})`);
  return `${fixed.join(', ')}; follow changes and feed reads ${limitNumbers('follow')} (per user)`;
}
