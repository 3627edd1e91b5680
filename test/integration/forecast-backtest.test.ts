/** The predict method's 80% interval, backtested on the bundled corpus (also `npm run eval:forecast`). */
import { describe, expect, it } from 'vitest';
import { backtestCoverage } from '../../src/service/forecast/backtest';
import { testStore } from '../support/local-service';

describe('forecast backtest', () => {
  it('the 80% interval holds the held-out outcome 75–85% of the time', () => {
    const result = backtestCoverage(testStore(), Date.parse('2026-11-01T00:00:00Z'));
    expect(result.cases).toBeGreaterThan(500);
    expect(result.coverage).toBeGreaterThanOrEqual(0.75);
    expect(result.coverage).toBeLessThanOrEqual(0.85);
  });
});
