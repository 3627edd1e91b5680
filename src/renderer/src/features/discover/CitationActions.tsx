import type { CitationDetail } from '../../../../shared/citation';
import { FollowChips, followChoicesOf } from './FollowChips';
import { ForecastChips } from './ForecastChips';
import './surfaces.css';

/**
 * Follow and forecast from a cited signal in the citation panel (a chat answer's or a report's):
 * follow its retailers, segments, cities or source; forecast its first retailer's (or segment's) metrics.
 */
export function CitationActions({ entities, metrics, source }: { entities: CitationDetail['entities'] | undefined; metrics: Record<string, number> | undefined; source: { id: string; name: string } | null }) {
  const named = entities ?? { retailers: [], segments: [], cities: [], states: [] };
  const entity = named.retailers[0] ?? named.segments[0] ?? named.cities[0] ?? null;
  return (
    <section className="sf-actions" aria-label="Follow and forecast" data-testid="citation-actions">
      <FollowChips targets={followChoicesOf(named, source)} />
      <ForecastChips entity={entity} metrics={Object.keys(metrics ?? {})} />
    </section>
  );
}
