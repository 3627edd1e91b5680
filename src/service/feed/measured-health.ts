/**
 * What the health snapshot says of the fetched sources, measured: each source's entry (its health
 * by the rule in feed-health.ts, items in the last day, the facts of its fetches) and the oracle
 * miss rate (how many of an oracle's items the primary sources also had).
 */
import type { SourceEntry } from '../../shared/service-schemas';
import { healthOf } from './feed-health';
import type { FeedSignals } from './feed-signals';
import type { OracleItem, SourceState } from './feed-repository';
import { cadenceText, type FeedSourceRecord } from './source-registry';

export function measuredEntry(source: FeedSourceRecord, state: SourceState, kept: FeedSignals, now: number): SourceEntry {
  const { health, reason } = healthOf(state, source.cadence_s, now, source.created_at);
  const dayAgo = now - 86_400_000;
  let items24h = 0;
  let lastItemAt: string | null = null;
  for (const signal of kept.signals.values()) {
    if (signal.source_id !== source.id) continue;
    if (Date.parse(signal.first_seen_at) >= dayAgo) items24h += 1;
    if (!lastItemAt || signal.published_at > lastItemAt) lastItemAt = signal.published_at;
  }
  if (source.role === 'oracle') {
    items24h = 0;
    for (const item of kept.oracleItems.values()) if (item.canonical.length > 0 && Date.parse(item.published_at) >= dayAgo) items24h += 1;
  }
  return {
    id: source.id,
    name: source.name,
    kind: source.kind,
    health,
    cadence: cadenceText(source.cadence_s),
    items_24h: items24h,
    last_item_at: lastItemAt,
    url: source.url,
    role: source.role,
    paused: source.paused,
    cadence_s: source.cadence_s,
    health_reason: reason,
    last_fetch_at: state.last_fetch_at,
    last_success_at: state.last_success_at,
    consecutive_failures: state.consecutive_failures,
    last_error: state.last_error,
    next_fetch_at: source.paused ? null : state.next_fetch_at,
    not_modified_ratio: state.fetches > 0 ? Math.round((state.not_modified / state.fetches) * 1000) / 1000 : 0,
    items_total: state.items_total,
    origin: 'fetched',
  };
}

/**
 * The oracle miss rate: an oracle item published within the window counts once it is older than
 * the grace (2 × the slowest primary cadence), and is missed when no primary signal has its
 * canonical URL or near-duplicate text by then.
 */
export function oracleReport(sources: Iterable<FeedSourceRecord>, kept: FeedSignals, windowMs: number, now: number) {
  const primaries = [...sources].filter((source) => source.role === 'primary');
  const graceMs = 2 * Math.max(0, ...primaries.map((source) => source.cadence_s)) * 1000;
  const primaryIds = new Set(primaries.map((source) => source.id));
  const primaryUrls = new Set<string>();
  for (const signal of kept.signals.values()) if (primaryIds.has(signal.source_id)) primaryUrls.add(signal.canonical_url);
  let counted = 0;
  let matched = 0;
  const misses: OracleItem[] = [];
  for (const item of kept.oracleItems.values()) {
    const age = now - Date.parse(item.published_at);
    if (age > windowMs || age < graceMs) continue;
    counted += 1;
    const found = primaryUrls.has(item.canonical) || kept.duplicates.matches(item.text, (id) => primaryIds.has(kept.signals.get(id)?.source_id ?? ''));
    if (found) matched += 1;
    else misses.push(item);
  }
  misses.sort((a, b) => b.published_at.localeCompare(a.published_at));
  return {
    miss_rate: counted > 0 ? Math.round(((counted - matched) / counted) * 1000) / 1000 : 0,
    window: `${Math.round(windowMs / 3_600_000)}h`,
    grace: `${Math.round(graceMs / 1000)}s`,
    counted,
    matched,
    missed: counted - matched,
    latest_misses: misses.slice(0, 5).map((item) => ({ title: item.title, url: item.url, published_at: item.published_at })),
    updated_at: new Date(now).toISOString(),
  };
}
