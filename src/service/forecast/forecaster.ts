/**
 * Predictions for `POST /api/v1/predict`: an entity's metric as a series of Indian fiscal
 * quarters (April–March years; Q1 FY27 = April–June 2026), each quarter the mean of the
 * values its signals reported, forecast with a damped trend (see damped-trend.ts).
 */
import type { Forecast } from '../../shared/surface-schemas';
import type { CorpusSignal } from '../world/signal-types';
import { matchesTarget } from '../follows/signal-query';
import { ServiceError } from '../http-errors';
import type { SignalStore } from '../signal-store';
import { fitDampedTrend, forecastAhead, PHI } from './damped-trend';

/** Fewer observed quarters than this and the forecast would be guesswork: 422. */
export const MIN_PERIODS = 4;
export const INTERVAL_LEVEL = 0.8;
/** Local price: a flat fee per forecast plus a little per signal read (documented in the docs). */
export const PRICE_USD = { base: 0.002, perSignal: 0.00001 };

export interface QuarterPoint {
  /** Quarters since Q1 FY2000, so consecutive quarters differ by one. */
  index: number;
  value: number;
  signals: CorpusSignal[];
}

export function fiscalQuarterIndex(at: Date): number {
  const month = at.getUTCMonth();
  const fiscalYear = at.getUTCFullYear() + (month >= 3 ? 1 : 0);
  const quarter = Math.floor(((month + 9) % 12) / 3);
  return (fiscalYear - 2000) * 4 + quarter;
}

export function quarterLabel(index: number): string {
  const fiscalYear = 2000 + Math.floor(index / 4);
  return `Q${(index % 4) + 1} FY${String(fiscalYear % 100).padStart(2, '0')}`;
}

export function parseQuarter(text: string): number | null {
  const match = /^Q([1-4]) ?FY ?(\d{2}|\d{4})$/.exec(text.trim());
  if (!match) return null;
  const year = Number(match[2]);
  const fiscalYear = year < 100 ? 2000 + year : year;
  return (fiscalYear - 2000) * 4 + Number(match[1]) - 1;
}

/** The entity's metric by fiscal quarter, up to and including the quarter of `untilMs`. */
export function quarterlySeries(signals: Iterable<CorpusSignal>, entity: string, metric: string, untilMs: number): QuarterPoint[] {
  const target = { type: 'entity', value: entity } as const;
  const byQuarter = new Map<number, CorpusSignal[]>();
  for (const signal of signals) {
    if (!(metric in signal.metrics) || Date.parse(signal.published_at) > untilMs || !matchesTarget(signal, target)) continue;
    const index = fiscalQuarterIndex(new Date(signal.published_at));
    byQuarter.set(index, [...(byQuarter.get(index) ?? []), signal]);
  }
  return [...byQuarter.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, list]) => ({
      index,
      value: list.reduce((sum, s) => sum + s.metrics[metric]!, 0) / list.length,
      signals: list.sort((a, b) => a.published_at.localeCompare(b.published_at)),
    }));
}

export function unitOf(metric: string): string {
  if (metric.endsWith('_cr')) return 'INR crore';
  if (metric.endsWith('_pct')) return 'percent';
  if (metric.endsWith('_min')) return 'minutes';
  if (metric.endsWith('_days')) return 'days';
  return 'count';
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** Forecasts `points` (a sorted series) `steps` quarters past its last quarter. */
export function forecastSeries(points: QuarterPoint[], steps: number, level = INTERVAL_LEVEL) {
  const first = points[0]!.index;
  const last = points[points.length - 1]!.index;
  const dense: Array<number | null> = Array.from({ length: last - first + 1 }, () => null);
  for (const point of points) dense[point.index - first] = point.value;
  const fit = fitDampedTrend(dense);
  return { fit, point: forecastAhead(fit, steps, level) };
}

export function predict(store: SignalStore, request: { entity: string; metric: string; horizon: string }, now: number): Forecast {
  const points = quarterlySeries(store.allSignals(), request.entity, request.metric, now);
  const current = fiscalQuarterIndex(new Date(now));
  if (points.length < MIN_PERIODS) {
    throw new ServiceError(
      'insufficient_history',
      `Too little history to forecast ${request.metric} for ${request.entity}: ${points.length} fiscal quarter${points.length === 1 ? '' : 's'} with values, ${MIN_PERIODS} needed. Check the entity and metric names (a metric a signal reports, such as revenue_cr or stores_opened).`,
    );
  }
  const target =
    request.horizon === 'next_quarter' ? current + 1 : request.horizon === 'next_year' ? current + 4 : parseQuarter(request.horizon);
  const last = points[points.length - 1]!.index;
  if (target === null || target <= current) {
    throw new ServiceError('invalid_request', `Invalid field \`horizon\`: ${request.horizon} is not after the current quarter (${quarterLabel(current)}).`);
  }
  if (target - current > 8) throw new ServiceError('invalid_request', 'Invalid field `horizon`: at most 8 quarters (two fiscal years) ahead.');
  const { fit, point } = forecastSeries(points, target - last);
  const basis = points.flatMap((p) => p.signals.map((s) => s.id));
  const residualScale = Math.abs(point.value) > 1e-9 ? (point.high - point.low) / (2 * Math.abs(point.value)) : 1;
  // Confidence: more history and a tighter interval relative to the value mean more confidence.
  const confidence = Math.max(0.05, Math.min(0.95, (1 - Math.min(1, residualScale)) * Math.min(1, points.length / 8)));
  return {
    forecast: { value: round(point.value), unit: unitOf(request.metric), period: quarterLabel(target), interval: { low: round(point.low), high: round(point.high), level: INTERVAL_LEVEL } },
    method:
      `Damped-trend exponential smoothing (Holt, damping φ=${PHI}, α=${fit.alpha}, β=${fit.beta} chosen by least one-step error) on the mean ${request.metric} ` +
      `that signals about ${request.entity} reported in each Indian fiscal quarter (${points.length} quarters, ${quarterLabel(points[0]!.index)}–${quarterLabel(last)}), ` +
      `${target - last} quarter${target - last === 1 ? '' : 's'} ahead. The ${Math.round(INTERVAL_LEVEL * 100)}% interval is the one-step residuals' standard deviation, widened for the horizon and by Student's t for a short series. Figures in the local corpus are synthetic.`,
    basis,
    history: points.map((p) => ({ period: quarterLabel(p.index), value: round(p.value), signal: p.signals[p.signals.length - 1]!.id })),
    confidence: Math.round(confidence * 100) / 100,
    cost_usd: Math.round((PRICE_USD.base + PRICE_USD.perSignal * basis.length) * 1e6) / 1e6,
  };
}
