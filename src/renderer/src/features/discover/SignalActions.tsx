import { useState } from 'react';
import type { DiscoverItem } from '../../../../shared/surface-schemas';
import type { FollowTargetArgs } from '../../../../shared/watchlist';
import { metricLabel } from '../../../../shared/metric-labels';
import { useAppStore } from '../../store/app-store';
import { ForecastPanel } from './ForecastPanel';

/** What an analyst does with a signal: ask about it, follow what it names, forecast its figures. */
export function SignalActions({ item }: { item: DiscoverItem }) {
  const follow = useAppStore((s) => s.follow);
  const askAbout = useAppStore((s) => s.askAbout);
  const follows = useAppStore((s) => s.watchlist?.follows ?? []);
  const [message, setMessage] = useState<string | null>(null);
  const [forecast, setForecast] = useState<{ entity: string; metric: string } | null>(null);
  const entity = item.entities.retailers[0] ?? item.entities.segments[0] ?? item.entities.cities[0] ?? null;
  const targets: Array<{ label: string; target: FollowTargetArgs }> = [
    ...item.entities.retailers.map((value) => ({ label: value, target: { type: 'entity' as const, value } })),
    ...item.entities.segments.map((value) => ({ label: value, target: { type: 'segment' as const, value } })),
    ...item.entities.cities.map((value) => ({ label: value, target: { type: 'city' as const, value } })),
    { label: item.source.name, target: { type: 'source' as const, value: item.source.id } },
  ];
  const followed = (target: FollowTargetArgs) => follows.some((f) => f.target.type === target.type && f.target.value.toLowerCase() === target.value.toLowerCase());

  return (
    <section className="sf-actions" aria-label="Actions on this signal" data-testid="signal-actions">
      <button type="button" className="primary" onClick={() => void askAbout([{ id: item.id, title: item.title }])} data-testid="ask-about-signal">
        Ask about this signal
      </button>
      <div className="sf-follow-row">
        <span className="hint">Follow:</span>
        {targets.map(({ label, target }) => (
          <button
            key={`${target.type}:${target.value}`}
            type="button"
            className="sf-chip"
            disabled={followed(target)}
            data-testid={`follow-${target.type}`}
            onClick={async () => {
              const result = await follow(target);
              setMessage(result.ok ? `Following ${label}.` : result.message);
            }}
          >
            {followed(target) ? '✓ ' : '+ '}
            {label}
          </button>
        ))}
      </div>
      {message ? (
        <p className="hint" role="status" data-testid="follow-message">
          {message}
        </p>
      ) : null}
      {entity && Object.keys(item.metrics).length > 0 ? (
        <div className="sf-follow-row">
          <span className="hint">Forecast {entity}:</span>
          {Object.keys(item.metrics).map((metric) => (
            <button key={metric} type="button" className="sf-chip" onClick={() => setForecast({ entity, metric })} data-testid={`forecast-${metric}`}>
              {metricLabel(metric)}
            </button>
          ))}
        </div>
      ) : null}
      {forecast ? <ForecastPanel entity={forecast.entity} metric={forecast.metric} onClose={() => setForecast(null)} /> : null}
    </section>
  );
}
