/**
 * Which of an entity's metrics a forecast is offered for (issue 47 item 6, decision 0045): judged
 * from the entity's own history, not from a list of metric names. Every metric a signal about
 * the entity carries is judged by one rule, so a learned entity and a metric no list names are
 * judged like the rest:
 *
 * 1. Enough history: at least 5 fiscal quarters with a value (4 to fit a damped trend, as
 *    predict needs, and at least one more to check it against), spanning at least 270 days.
 * 2. Not constant: the quarterly values are not all the same (a flat line has nothing to extend).
 * 3. A backtest it passes: each of the last (up to 3) quarters is forecast from the quarters
 *    before it; the mean absolute miss is at most half the series' typical size (the mean of its
 *    absolute quarterly values). A scale-free error that stays finite where values cross zero.
 */
import type { ForecastableMetric } from '../../shared/surface-schemas';
import type { CorpusSignal } from '../world/signal-types';
import { matchesTarget } from '../follows/signal-query';
import { forecastSeries, MIN_PERIODS, quarterlySeries, unitOf } from './forecaster';

export const OFFER_RULE = {
  minQuarters: MIN_PERIODS + 1,
  minSpanDays: 270,
  maxBacktestError: 0.5,
  holdouts: 3,
} as const;

export const OFFER_RULE_TEXT =
  `A forecast is offered when the metric has values in at least ${OFFER_RULE.minQuarters} fiscal quarters spanning at least ${OFFER_RULE.minSpanDays} days, ` +
  `they are not all the same, and forecasting each of its last (up to ${OFFER_RULE.holdouts}) quarters from the quarters before missed by at most ` +
  `${Math.round(OFFER_RULE.maxBacktestError * 100)}% of the metric's typical value on average.`;

const DAY_MS = 86_400_000;

/** Judges one metric's history (signals about the entity, any order) by the rule above. */
export function judgeMetric(about: CorpusSignal[], entity: string, metric: string, untilMs: number): ForecastableMetric {
  const dated = about.filter((signal) => metric in signal.metrics && Date.parse(signal.published_at) <= untilMs).map((signal) => Date.parse(signal.published_at));
  const first = dated.length ? Math.min(...dated) : untilMs;
  const last = dated.length ? Math.max(...dated) : untilMs;
  const spanDays = Math.floor((last - first) / DAY_MS);
  const points = quarterlySeries(about, entity, metric, untilMs);
  const values = points.map((point) => point.value);
  const base = {
    metric,
    unit: unitOf(metric),
    observations: dated.length,
    quarters: points.length,
    span_days: spanDays,
    first_at: dated.length ? new Date(first).toISOString() : null,
    last_at: dated.length ? new Date(last).toISOString() : null,
  };
  if (points.length < OFFER_RULE.minQuarters || spanDays < OFFER_RULE.minSpanDays) {
    return { ...base, offered: false, reason: 'not_enough_history', backtest_error: null };
  }
  const typical = values.reduce((sum, value) => sum + Math.abs(value), 0) / values.length;
  if (Math.max(...values) - Math.min(...values) <= 1e-9 * Math.max(1, typical)) {
    return { ...base, offered: false, reason: 'constant', backtest_error: null };
  }
  const misses: number[] = [];
  for (let hold = Math.min(OFFER_RULE.holdouts, points.length - MIN_PERIODS); hold >= 1; hold -= 1) {
    const known = points.slice(0, points.length - hold);
    const outcome = points[points.length - hold]!;
    const { point } = forecastSeries(known, outcome.index - known[known.length - 1]!.index);
    misses.push(Math.abs(outcome.value - point.value));
  }
  const error = misses.reduce((sum, miss) => sum + miss, 0) / misses.length / Math.max(typical, 1e-9);
  const backtestError = Math.round(error * 1000) / 1000;
  return error <= OFFER_RULE.maxBacktestError
    ? { ...base, offered: true, reason: null, backtest_error: backtestError }
    : { ...base, offered: false, reason: 'backtest_error', backtest_error: backtestError };
}

/** Every metric the signals about `entity` carry, judged; offered first, then by name. */
export function forecastableMetrics(signals: Iterable<CorpusSignal>, entity: string, untilMs: number): ForecastableMetric[] {
  const target = { type: 'entity', value: entity } as const;
  const about: CorpusSignal[] = [];
  for (const signal of signals) if (matchesTarget(signal, target)) about.push(signal);
  const metrics = new Set(about.flatMap((signal) => Object.keys(signal.metrics)));
  return [...metrics]
    .map((metric) => judgeMetric(about, entity, metric, untilMs))
    .sort((a, b) => Number(b.offered) - Number(a.offered) || a.metric.localeCompare(b.metric));
}
