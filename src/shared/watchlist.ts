/**
 * The watchlist as main keeps it and the renderer shows it: follows on the service, the feed
 * of new matches (kept for offline reading), unread counts and the polling state.
 */
import { z } from 'zod';
import { FOLLOW_TARGET_TYPES, type DiscoverItem, type Follow } from './surface-schemas';

export const FollowTargetArgs = z.object({
  type: z.enum(FOLLOW_TARGET_TYPES),
  value: z.string().trim().min(1, 'Name what to follow.').max(200),
});
export type FollowTargetArgs = z.infer<typeof FollowTargetArgs>;

export interface WatchlistItem {
  signal: DiscoverItem;
  /** Follow ids the signal matched. */
  matched: string[];
  arrivedAt: string;
  read: boolean;
}

/** Feed reads per hour by tier (docs/decisions/design.md §3): main paces its polling to stay inside them. */
export const FEED_READS_PER_HOUR: Record<string, number> = { free: 60, pro: 600, team: 6_000 };

export interface WatchlistView {
  follows: Follow[];
  /** Newest first. */
  items: WatchlistItem[];
  unread: number;
  tier: string | null;
  followLimit: number | null;
  lastPolledAt: string | null;
  nextPollAt: string | null;
  /** Why the last poll or change failed (shown; the kept items stay readable). */
  error: string | null;
  /** Items that arrived with the latest poll (for the notification); empty otherwise. */
  fresh: string[];
}
