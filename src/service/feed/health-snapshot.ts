/**
 * The health snapshot: the fetched sources with the facts behind their health, the measured
 * oracle, and counts over what is listed. The synthetic sample's sources appear only when it is
 * replayed for a demo or a test, each marked `simulated: true` (by default the sample is a fixed
 * snapshot that is never fetched, so it reports no health).
 */
import type { HealthSnapshot } from '../../shared/service-schemas';
import type { SignalStore } from '../signal-store';
import type { FeedService } from './feed-service';

export type SampleMode = 'snapshot' | 'replay' | 'off';

export function healthSnapshot(feed: FeedService, store: SignalStore, sample: SampleMode, now: number): HealthSnapshot & Record<string, unknown> {
  const measured = feed.snapshotParts(now);
  const simulated = sample === 'replay' ? store.sampleSourceEntries(now).map((entry) => ({ ...entry, simulated: true, origin: 'sample' })) : [];
  const sources = [...measured.entries, ...simulated];
  const count = (state: string): number => sources.filter((source) => source.health === state).length;
  const simulatedItems = simulated.reduce((sum, source) => sum + source.items_24h, 0);
  const signals24h = measured.signals24h + simulatedItems;
  return {
    generated_at: new Date(now).toISOString(),
    stats: {
      sources_total: sources.length,
      healthy: count('healthy'),
      degraded: count('degraded'),
      down: count('down'),
      items_per_hour: Math.round((signals24h / 24) * 10) / 10,
      signals_24h: signals24h,
    },
    oracle: measured.oracle,
    health_rule: measured.health_rule,
    sample: sample === 'replay' ? 'replayed as simulated arrivals (demo/test): its sources’ health is simulated' : sample === 'snapshot' ? 'fixed snapshot, not fetched: its sources report no health' : 'off',
    sources,
  };
}
