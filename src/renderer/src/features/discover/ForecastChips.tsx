import { useEffect, useState } from 'react';
import type { ForecastableMetric } from '../../../../shared/surface-schemas';
import { formatNumber } from '../../../../shared/format';
import { metricLabel } from '../../../../shared/metric-labels';
import { clarity } from '../../bridge/clarity';
import { ForecastPanel } from './ForecastPanel';

const plural = (count: number, word: string): string => `${formatNumber(count, { maxFractionDigits: 0 })} ${word}${count === 1 ? '' : 's'}`;

/** Why no forecast is offered for a metric, in the analyst's words (decision 0045's rule). */
export function notOfferedText(judged: ForecastableMetric): string {
  const label = metricLabel(judged.metric);
  const history = `${plural(judged.observations, 'observation')} over ${plural(judged.span_days, 'day')}`;
  if (judged.reason === 'constant') return `No forecast of ${label}: it has the same value in all ${history}.`;
  if (judged.reason === 'backtest_error') {
    const miss = Math.round((judged.backtest_error ?? 0) * 100);
    return `No forecast of ${label}: forecasting its last quarters from the ones before missed by ${miss}% of its typical value (${history}).`;
  }
  return `Not enough history for a forecast of ${label}: ${history}.`;
}

type Judged = { entity: string; metrics: ForecastableMetric[] | null; error: string | null };

/**
 * One button per metric of a signal whose history supports a forecast (the service judges each:
 * GET /api/v1/predict/metrics); the others say why not. The chosen one opens its forecast below.
 */
export function ForecastChips({ entity, metrics }: { entity: string | null; metrics: string[] }) {
  const [metric, setMetric] = useState<string | null>(null);
  const [judged, setJudged] = useState<Judged | null>(null);
  const wanted = metrics.length > 0 ? entity : null;
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    void clarity()
      .invoke('forecast.metrics', { entity: wanted })
      .then((result) => live && setJudged({ entity: wanted, metrics: result.ok ? result.value.metrics : null, error: result.ok ? null : result.error.message }));
    return () => {
      live = false;
    };
  }, [wanted]);
  if (!wanted) return null;
  const current = judged?.entity === wanted ? judged : null;
  if (!current) return <p className="hint" data-testid="forecast-checking">Checking which figures have history for a forecast…</p>;
  if (current.error) return <p className="hint" data-testid="forecast-unavailable">Forecasts are not available: {current.error}</p>;
  const ofSignal = metrics.map((key) => current.metrics?.find((m) => m.metric === key) ?? emptyHistory(key));
  const offered = ofSignal.filter((m) => m.offered);
  const refused = ofSignal.filter((m) => !m.offered);
  // The panel stays open only for a metric this signal offers (the chips outlive a change of signal).
  const shown = metric && offered.some((m) => m.metric === metric) ? metric : null;
  return (
    <>
      {offered.length > 0 ? (
        <div className="sf-follow-row">
          <span className="hint">Forecast {wanted}:</span>
          {offered.map(({ metric: key }) => (
            <button key={key} type="button" className="sf-chip" onClick={() => setMetric(key)} data-testid={`forecast-${key}`}>
              {metricLabel(key)}
            </button>
          ))}
        </div>
      ) : null}
      {refused.length > 0 ? (
        <ul className="hint sf-not-offered" data-testid="forecast-not-offered" aria-label={`Figures of ${wanted} with no forecast`}>
          {refused.map((m) => (
            <li key={m.metric} data-testid={`forecast-not-offered-${m.metric}`}>
              {notOfferedText(m)}
            </li>
          ))}
        </ul>
      ) : null}
      {shown ? <ForecastPanel key={`${wanted}|${shown}`} entity={wanted} metric={shown} onClose={() => setMetric(null)} /> : null}
    </>
  );
}

/** A metric of the signal the service holds no dated history for (about this entity). */
const emptyHistory = (metric: string): ForecastableMetric => ({
  metric,
  unit: '',
  observations: 0,
  quarters: 0,
  span_days: 0,
  first_at: null,
  last_at: null,
  offered: false,
  reason: 'not_enough_history',
  backtest_error: null,
});
