/**
 * `npm run eval:forecast` — backtests the predict method's 80% interval on the bundled
 * corpus and fails when its coverage falls outside 75–85%.
 */
import { createSignalStore } from '../src/service/server';
import { backtestCoverage } from '../src/service/forecast/backtest';

const anchor = new Date('2026-11-01T00:00:00Z');
const store = createSignalStore({ anchor });
const result = backtestCoverage(store, anchor.getTime());
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
console.log(`Forecast backtest: ${result.cases} held-out quarters; ${pct(result.level)} interval covered ${result.covered} (${pct(result.coverage)}); mean absolute % error ${pct(result.meanAbsPctError)}.`);
const ok = result.coverage >= 0.75 && result.coverage <= 0.85;
console.log(ok ? 'Coverage within 75–85%: pass.' : 'Coverage outside 75–85%: FAIL.');
process.exit(ok ? 0 : 1);
