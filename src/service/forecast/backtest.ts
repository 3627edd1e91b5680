/**
 * Backtest of the predict method: for every entity and metric in the corpus with enough
 * history, hide the last observed quarters one at a time, forecast them from what came
 * before, and count how often the 80% interval holds the outcome (it should: 75–85%).
 */
import { CITIES, RETAILERS, SEGMENTS } from '../world/gazetteer';
import { matchesTarget } from '../follows/signal-query';
import type { SignalStore } from '../signal-store';
import { forecastSeries, INTERVAL_LEVEL, MIN_PERIODS, quarterlySeries } from './forecaster';

export interface BacktestResult {
  level: number;
  cases: number;
  covered: number;
  coverage: number;
  /** Mean of |outcome − forecast| / |outcome|, for a sense of accuracy. */
  meanAbsPctError: number;
}

/** How many final quarters each series holds out (each is forecast from the ones before). */
const HOLDOUTS = 3;

export function backtestCoverage(store: SignalStore, untilMs: number): BacktestResult {
  const signals = [...store.allSignals()];
  const metrics = new Set(signals.flatMap((signal) => Object.keys(signal.metrics)));
  const entities = [...RETAILERS.map((r) => r.name), ...SEGMENTS, ...CITIES.map((c) => c.city)];
  let cases = 0;
  let covered = 0;
  let pctErrorSum = 0;
  for (const entity of entities) {
    const about = signals.filter((signal) => matchesTarget(signal, { type: 'entity', value: entity }));
    for (const metric of metrics) {
      const points = quarterlySeries(about, entity, metric, untilMs);
      for (let hold = HOLDOUTS; hold >= 1; hold -= 1) {
        const known = points.slice(0, points.length - hold);
        const outcome = points[points.length - hold];
        if (!outcome || known.length < MIN_PERIODS) continue;
        const { point } = forecastSeries(known, outcome.index - known[known.length - 1]!.index, INTERVAL_LEVEL);
        cases += 1;
        if (outcome.value >= point.low && outcome.value <= point.high) covered += 1;
        if (Math.abs(outcome.value) > 1e-9) pctErrorSum += Math.abs(outcome.value - point.value) / Math.abs(outcome.value);
      }
    }
  }
  return { level: INTERVAL_LEVEL, cases, covered, coverage: cases === 0 ? 0 : covered / cases, meanAbsPctError: cases === 0 ? 0 : pctErrorSum / cases };
}
