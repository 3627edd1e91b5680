import { useState } from 'react';
import type { FollowTargetArgs } from '../../../../shared/watchlist';
import { FORECAST_METRICS, metricLabel } from '../../../../shared/metric-labels';
import { useAppStore } from '../../store/app-store';
import { ForecastPanel } from './ForecastPanel';

/** One shared empty list: a selector returning a fresh `[]` would re-render without end. */
const NO_FOLLOWS: never[] = [];

export interface FollowChoice {
  label: string;
  target: FollowTargetArgs;
}

/** Follow buttons for what a signal, source or search names; a followed target shows ✓. */
export function FollowChips({ targets, title = 'Follow:' }: { targets: FollowChoice[]; title?: string }) {
  const follow = useAppStore((s) => s.follow);
  const follows = useAppStore((s) => s.watchlist?.follows ?? NO_FOLLOWS);
  const [message, setMessage] = useState<string | null>(null);
  const followed = (target: FollowTargetArgs) => follows.some((f) => f.target.type === target.type && f.target.value.toLowerCase() === target.value.toLowerCase());
  if (targets.length === 0) return null;
  return (
    <>
      <div className="sf-follow-row">
        <span className="hint">{title}</span>
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
    </>
  );
}

/** What a signal names, as follow choices: its retailers, segments, cities and its source. */
export function followChoicesOf(entities: { retailers: string[]; segments: string[]; cities: string[] }, source: { id: string; name: string } | null): FollowChoice[] {
  return [
    ...entities.retailers.map((value) => ({ label: value, target: { type: 'entity' as const, value } })),
    ...entities.segments.map((value) => ({ label: value, target: { type: 'segment' as const, value } })),
    ...entities.cities.map((value) => ({ label: value, target: { type: 'city' as const, value } })),
    ...(source ? [{ label: source.name, target: { type: 'source' as const, value: source.id } }] : []),
  ];
}

/** One button per metric of a signal; the chosen one opens its forecast below. */
export function ForecastChips({ entity, metrics }: { entity: string | null; metrics: string[] }) {
  const [metric, setMetric] = useState<string | null>(null);
  // Issue 47: only metrics with a history a forecast can extend.
  const forecastable = metrics.filter((key) => FORECAST_METRICS.has(key));
  if (!entity || forecastable.length === 0) return null;
  return (
    <>
      <div className="sf-follow-row">
        <span className="hint">Forecast {entity}:</span>
        {forecastable.map((key) => (
          <button key={key} type="button" className="sf-chip" onClick={() => setMetric(key)} data-testid={`forecast-${key}`}>
            {metricLabel(key)}
          </button>
        ))}
      </div>
      {metric ? <ForecastPanel key={`${entity}|${metric}`} entity={entity} metric={metric} onClose={() => setMetric(null)} /> : null}
    </>
  );
}
