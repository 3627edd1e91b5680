/**
 * `npm run eval:forecast` — backtests the predict method's 80% interval on the bundled
 * corpus and fails when its coverage falls outside 75–85% (`npm run eval` reports it too).
 */
import { createSignalStore } from '../src/service/server';
import { evaluateForecasts } from '../eval/forecast';

const anchor = new Date('2026-11-01T00:00:00Z');
const evaluation = evaluateForecasts(createSignalStore({ anchor }), anchor.getTime());
console.log(evaluation.line);
process.exit(evaluation.passed ? 0 : 1);
