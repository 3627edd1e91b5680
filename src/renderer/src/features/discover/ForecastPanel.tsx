import { useEffect, useState } from 'react';
import type { Forecast } from '../../../../shared/surface-schemas';
import { formatNumber } from '../../../../shared/format';
import { metricLabel } from '../../../../shared/metric-labels';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { ForecastSave } from './ForecastSave';

const HORIZONS = [
  { value: 'next_quarter', label: 'Next quarter' },
  { value: 'next_year', label: 'A year ahead' },
];

/** A forecast of an entity's metric: history and forecast with its interval, basis, method and cost. */
export function ForecastPanel({ entity, metric, onClose }: { entity: string; metric: string; onClose(): void }) {
  const [horizon, setHorizon] = useState('next_quarter');
  const display = useDisplay();
  const [state, setState] = useState<{ key: string; forecast: Forecast | null; error: string | null } | null>(null);
  const key = `${entity}|${metric}|${horizon}`;
  useEffect(() => {
    let live = true;
    void clarity()
      .invoke('forecast.get', { entity, metric, horizon })
      .then((result) => live && setState({ key, forecast: result.ok ? result.value : null, error: result.ok ? null : result.error.message }));
    return () => {
      live = false;
    };
  }, [entity, metric, horizon, key]);
  const current = state?.key === key ? state : null;
  const forecast = current?.forecast ?? null;

  return (
    <section className="sf-forecast" aria-label="Forecast" data-testid="forecast-panel">
      <header className="sf-forecast-head">
        <h3>
          {metricLabel(metric)} · {entity}
        </h3>
        <select value={horizon} onChange={(event) => setHorizon(event.target.value)} aria-label="Horizon">
          {HORIZONS.map((h) => (
            <option key={h.value} value={h.value}>
              {h.label}
            </option>
          ))}
        </select>
        <button type="button" className="icon" aria-label="Close forecast" onClick={onClose}>
          ✕
        </button>
      </header>
      {!current ? <p className="hint">Forecasting…</p> : null}
      {current?.error ? (
        <p className="notice" role="alert" data-testid="forecast-error">
          {current.error}
        </p>
      ) : null}
      {forecast ? (
        <>
          <ForecastChart forecast={forecast} />
          <p data-testid="forecast-value">
            <strong>
              {forecast.forecast.period}: {format(forecast.forecast.value)} {forecast.forecast.unit}
            </strong>{' '}
            <span data-testid="forecast-interval">
              ({Math.round(forecast.forecast.interval.level * 100)}% interval {format(forecast.forecast.interval.low)} to {format(forecast.forecast.interval.high)})
            </span>
          </p>
          <p className="hint">
            Confidence {Math.round(forecast.confidence * 100)}% · cost {display.cost(forecast.cost_usd)}
          </p>
          <p className="sf-method" data-testid="forecast-method">
            {forecast.method}
          </p>
          <div className="sf-basis" data-testid="forecast-basis">
            <span className="hint">Basis ({forecast.basis.length} signals):</span>
            {forecast.history.map((point) => (
              <span key={point.period} className="sf-chip mono" title={point.signal}>
                {point.period}: {point.signal}
              </span>
            ))}
          </div>
          <ForecastSave entity={entity} metric={metric} horizon={horizon} forecast={forecast} />
        </>
      ) : null}
    </section>
  );
}

const format = (value: number): string => formatNumber(value, { maxFractionDigits: 1 });

/** History as a line, the forecast as a point with its interval as a band. */
function ForecastChart({ forecast }: { forecast: Forecast }) {
  const width = 420;
  const height = 160;
  const pad = 28;
  const points = [...forecast.history.map((h) => ({ label: h.period, value: h.value })), { label: forecast.forecast.period, value: forecast.forecast.value }];
  const values = [...points.map((p) => p.value), forecast.forecast.interval.low, forecast.forecast.interval.high];
  const min = Math.min(...values);
  const max = Math.max(...values);
  const x = (i: number) => pad + (i * (width - 2 * pad)) / Math.max(1, points.length - 1);
  const y = (v: number) => height - pad - ((v - min) / (max - min || 1)) * (height - 2 * pad);
  const last = points.length - 1;
  const history = forecast.history.map((h, i) => `${x(i)},${y(h.value)}`).join(' ');
  return (
    <svg className="sf-chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`History and forecast of ${forecast.forecast.unit}`} data-testid="forecast-chart">
      <rect x={x(last) - 8} y={y(forecast.forecast.interval.high)} width={16} height={Math.max(1, y(forecast.forecast.interval.low) - y(forecast.forecast.interval.high))} className="sf-band" data-testid="forecast-band" />
      <polyline points={history} className="sf-line" fill="none" />
      <line x1={x(last - 1)} y1={y(points[last - 1]!.value)} x2={x(last)} y2={y(forecast.forecast.value)} className="sf-dash" />
      {points.map((p, i) => (
        <g key={p.label}>
          <circle cx={x(i)} cy={y(p.value)} r={i === last ? 4 : 2.5} className={i === last ? 'sf-forecast-dot' : 'sf-dot'} />
          <text x={x(i)} y={height - 8} textAnchor="middle" className="sf-axis">
            {p.label}
          </text>
        </g>
      ))}
    </svg>
  );
}
