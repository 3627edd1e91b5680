import type { DiscoverItem } from '../../../../shared/surface-schemas';
import { useAppStore } from '../../store/app-store';
import { FollowChips, followChoicesOf } from './FollowChips';
import { ForecastChips } from './ForecastChips';

/** What an analyst does with a signal: ask about it, follow what it names, forecast its figures. */
export function SignalActions({ item }: { item: DiscoverItem }) {
  const askAbout = useAppStore((s) => s.askAbout);
  const entity = item.entities.retailers[0] ?? item.entities.segments[0] ?? item.entities.cities[0] ?? null;
  return (
    <section className="sf-actions" aria-label="Actions on this signal" data-testid="signal-actions">
      <button type="button" className="primary" onClick={() => void askAbout([{ id: item.id, title: item.title }])} data-testid="ask-about-signal">
        Ask about this signal
      </button>
      <FollowChips targets={followChoicesOf(item.entities, item.source)} />
      <ForecastChips entity={entity} metrics={Object.keys(item.metrics)} />
    </section>
  );
}
