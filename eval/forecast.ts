/**
 * The forecast backtest as part of the evaluation: how often predict's 80% interval holds the
 * held-out outcome (issue 15: it should be 75–85%). Shared by `npm run eval` and `npm run eval:forecast`.
 */
import { backtestCoverage, type BacktestResult } from '../src/service/forecast/backtest';
import type { SignalStore } from '../src/service/signal-store';

export const COVERAGE_TARGET = { low: 0.75, high: 0.85 } as const;

export interface ForecastEvaluation {
  result: BacktestResult;
  passed: boolean;
  /** One line for the report. */
  line: string;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

export function evaluateForecasts(store: SignalStore, untilMs: number): ForecastEvaluation {
  const result = backtestCoverage(store, untilMs);
  const passed = result.coverage >= COVERAGE_TARGET.low && result.coverage <= COVERAGE_TARGET.high;
  const line =
    `Forecast backtest: ${result.cases} held-out quarters; the ${pct(result.level)} interval covered ${result.covered} (${pct(result.coverage)}, ` +
    `target ${pct(COVERAGE_TARGET.low)}–${pct(COVERAGE_TARGET.high)}: ${passed ? 'pass' : 'FAIL'}); mean absolute % error ${pct(result.meanAbsPctError)}.`;
  return { result, passed, line };
}
