/**
 * Signals' publication days, kept: answer after answer dates the same signals ("18 Nov 2026" in a
 * list, "2026-11-18" to group figures by day), and each date is an Intl call (profiled: ≈ 4 % of
 * the main thread over a burst of 200 answers). Kept by the exact timestamp string and zone, so a
 * kept day is the one `formatDayIn` / `isoDayIn` gives; bounded, emptied when full.
 */
import { formatDayIn, isoDayIn } from '../world/time-zone';

const MAX_KEPT = 50_000;
const shown = new Map<string, string>();
const iso = new Map<string, string>();

function kept(days: Map<string, string>, at: string, zone: string, compute: () => string): string {
  const key = `${zone}\n${at}`;
  let day = days.get(key);
  if (day === undefined) {
    if (days.size >= MAX_KEPT) days.clear();
    day = compute();
    days.set(key, day);
  }
  return day;
}

/** "18 Nov 2026": the day `at` (an ISO timestamp) falls on in `zone`, as `formatDayIn` writes it. */
export const shownDayOf = (at: string, zone: string): string => kept(shown, at, zone, () => formatDayIn(at, zone));

/** "2026-11-18": the day `at` (an ISO timestamp) falls on in `zone`, as `isoDayIn` gives it. */
export const isoDayOf = (at: string, zone: string): string => kept(iso, at, zone, () => isoDayIn(at, zone));
