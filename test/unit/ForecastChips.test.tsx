/**
 * What the analyst sees of issue 47 item 6 beside a signal: a forecast button for each figure
 * whose history the service judged enough, and for the others the reason in the history's numbers.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClarityBridge } from '../../src/shared/bridge-contract';
import type { ForecastableMetric } from '../../src/shared/surface-schemas';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { ForecastChips, notOfferedText } from '../../src/renderer/src/features/discover/ForecastChips';

const judged = (metric: string, fields: Partial<ForecastableMetric>): ForecastableMetric => ({
  metric,
  unit: 'count',
  observations: 0,
  quarters: 0,
  span_days: 0,
  first_at: null,
  last_at: null,
  offered: false,
  reason: 'not_enough_history',
  backtest_error: null,
  ...fields,
});

const METRICS: ForecastableMetric[] = [
  judged('store_count_national', { observations: 29, quarters: 7, span_days: 476, offered: true, reason: null, backtest_error: 0.01 }),
  judged('store_count', { observations: 8, quarters: 6, span_days: 480, offered: true, reason: null, backtest_error: 0.02 }),
  judged('stores_closed', { observations: 1, quarters: 1, span_days: 0 }),
  judged('share_pct', { observations: 6, quarters: 6, span_days: 455, reason: 'constant' }),
  judged('growth_yoy_pct', { observations: 6, quarters: 6, span_days: 455, reason: 'backtest_error', backtest_error: 0.853 }),
];

const asked: Array<[string, unknown]> = [];
function useBridge(answer: { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } }): void {
  const bridge: ClarityBridge = {
    host: 'electron',
    invoke: (async (method: string, args: unknown) => {
      asked.push([method, args]);
      return method === 'forecast.metrics' ? answer : { ok: false, error: { code: 'unavailable', message: 'not in this test' } };
    }) as ClarityBridge['invoke'],
    startStream: async () => ({ ok: true, value: null }),
    abortStream: async () => undefined,
    onStreamMessage: () => () => undefined,
    onPush: () => () => undefined,
  };
  setBridgeForTests(bridge);
}

afterEach(() => {
  cleanup();
  asked.length = 0;
  setBridgeForTests(null);
});

describe('forecast buttons by history', () => {
  it("offers the figures with history, and says why not for the others, in the history's numbers", async () => {
    useBridge({ ok: true, value: { entity: 'DMart', rule: '…', metrics: METRICS } });
    render(<ForecastChips entity="DMart" metrics={['store_count_national', 'stores_closed', 'share_pct', 'growth_yoy_pct', 'store_count', 'open_roles']} />);
    expect(await screen.findByTestId('forecast-store_count_national')).toHaveProperty('textContent', 'Stores nationwide');
    // A metric no label names is offered by its history too.
    expect(screen.getByTestId('forecast-store_count').textContent).toBe('Store count');
    expect(screen.queryByTestId('forecast-stores_closed')).toBeNull();
    expect(screen.getByTestId('forecast-not-offered-stores_closed').textContent).toBe('Not enough history for a forecast of Stores closed: 1 observation over 0 days.');
    expect(screen.getByTestId('forecast-not-offered-share_pct').textContent).toBe('No forecast of Share (%): it has the same value in all 6 observations over 455 days.');
    expect(screen.getByTestId('forecast-not-offered-growth_yoy_pct').textContent).toBe('No forecast of Growth YoY (%): forecasting its last quarters from the ones before missed by 85% of its typical value (6 observations over 455 days).');
    // A figure of the signal the service holds no history for.
    expect(screen.getByTestId('forecast-not-offered-open_roles').textContent).toBe('Not enough history for a forecast of Open roles: 0 observations over 0 days.');
    expect(asked).toEqual([['forecast.metrics', { entity: 'DMart' }]]);
  });

  it("opens a forecast for an offered figure", async () => {
    useBridge({ ok: true, value: { entity: 'DMart', rule: '…', metrics: METRICS } });
    render(<ForecastChips entity="DMart" metrics={['store_count_national']} />);
    fireEvent.click(await screen.findByTestId('forecast-store_count_national'));
    expect(screen.getByTestId('forecast-panel').textContent).toContain('Stores nationwide · DMart');
  });

  it('says so when the service cannot judge, and asks nothing for a signal with no figures', async () => {
    useBridge({ ok: false, error: { code: 'unavailable', message: 'The service is not reachable.' } });
    const { unmount } = render(<ForecastChips entity="DMart" metrics={['revenue_cr']} />);
    expect((await screen.findByTestId('forecast-unavailable')).textContent).toBe('Forecasts are not available: The service is not reachable.');
    unmount();
    asked.length = 0;
    const { container } = render(<ForecastChips entity="DMart" metrics={[]} />);
    expect(container.textContent).toBe('');
    expect(asked).toEqual([]);
  });

  it('counts read in words: one observation, 1,234 days', () => {
    expect(notOfferedText(judged('rank', { observations: 1, span_days: 1 }))).toBe('Not enough history for a forecast of App rank: 1 observation over 1 day.');
    expect(notOfferedText(judged('rank', { observations: 4, span_days: 1234 }))).toBe('Not enough history for a forecast of App rank: 4 observations over 1,234 days.');
  });
});
