import { useState } from 'react';
import type { ReportSeries } from '../../../../shared/research';
import { formatNumber } from '../../../../shared/format';

const WIDTH = 480;
const HEIGHT = 200;
const PAD = { left: 48, right: 12, top: 12, bottom: 40 };

/**
 * The key figures' series drawn (a metric over periods as a line, subjects side by side as bars).
 * Each point is focusable and names its value and the signal that states it on hover and focus;
 * Enter or a click opens that signal in the citation panel. The report's table stays beside the
 * chart for screen readers (the SVG is labelled, its points are read one by one).
 */
export function ReportCharts({ series, onCite }: { series: ReportSeries[]; onCite(id: string): void }) {
  if (series.length === 0) return null;
  return (
    <section className="report-charts" aria-label="Key figures drawn" data-testid="report-charts">
      {series.map((entry) => (
        <SeriesChart key={entry.title} series={entry} onCite={onCite} />
      ))}
    </section>
  );
}

function SeriesChart({ series, onCite }: { series: ReportSeries; onCite(id: string): void }) {
  const [active, setActive] = useState<number | null>(null);
  const values = series.points.map((point) => point.value);
  const low = Math.min(0, ...values);
  const high = Math.max(...values, low + 1);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, series.points.length);
  const x = (index: number): number => PAD.left + step * index + step / 2;
  const y = (value: number): number => PAD.top + plotH - ((value - low) / (high - low)) * plotH;
  const point = active === null ? null : series.points[active];
  const label = (index: number): string => {
    const p = series.points[index]!;
    return `${p.x}: ${formatNumber(p.value, { maxFractionDigits: 2 })} (source ${p.citation})`;
  };
  return (
    <figure className="report-chart" data-testid="report-chart">
      <figcaption>{series.title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="group" aria-label={`${series.title}: ${series.points.length} points`}>
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(low)} y2={y(low)} className="axis" />
        <text x={PAD.left - 6} y={y(high) + 4} textAnchor="end" className="tick">
          {formatNumber(high, { maxFractionDigits: 1 })}
        </text>
        <text x={PAD.left - 6} y={y(low) + 4} textAnchor="end" className="tick">
          {formatNumber(low, { maxFractionDigits: 1 })}
        </text>
        {series.kind === 'over_time' ? (
          <polyline className="series-line" fill="none" points={series.points.map((p, index) => `${x(index)},${y(p.value)}`).join(' ')} />
        ) : null}
        {series.points.map((p, index) => {
          const shared = {
            tabIndex: 0,
            role: 'button',
            'aria-label': label(index),
            'data-testid': 'chart-point',
            'data-citation': p.citation,
            onMouseEnter: () => setActive(index),
            onMouseLeave: () => setActive(null),
            onFocus: () => setActive(index),
            onBlur: () => setActive(null),
            onClick: () => onCite(p.citation),
            onKeyDown: (event: React.KeyboardEvent) => {
              if (event.key === 'Enter' || event.key === ' ') {
                event.preventDefault();
                onCite(p.citation);
              }
            },
          };
          return series.kind === 'over_time' ? (
            <circle key={index} cx={x(index)} cy={y(p.value)} r={5} className="series-point" {...shared}>
              <title>{label(index)}</title>
            </circle>
          ) : (
            <rect key={index} x={x(index) - step * 0.35} width={step * 0.7} y={Math.min(y(p.value), y(0))} height={Math.abs(y(0) - y(p.value))} className="series-bar" {...shared}>
              <title>{label(index)}</title>
            </rect>
          );
        })}
        {series.points.map((p, index) => (
          <text key={`x${index}`} x={x(index)} y={HEIGHT - PAD.bottom + 14} textAnchor="middle" className="tick">
            {p.x.length > 12 ? `${p.x.slice(0, 11)}…` : p.x}
          </text>
        ))}
      </svg>
      <p className="chart-tooltip hint" role="status" data-testid="chart-tooltip">
        {point ? `${point.x}: ${formatNumber(point.value, { maxFractionDigits: 2 })} — from ${point.citation}` : '\u00a0'}
      </p>
    </figure>
  );
}
