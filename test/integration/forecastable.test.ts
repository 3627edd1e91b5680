/**
 * Which of an entity's metrics a forecast is offered for (issue 47 item 6, decision 0045), through
 * the real service as its own process over HTTP: a learned retailer's history arrives from a feed
 * on the fixture web, quarter by quarter; `GET /api/v1/predict/metrics` judges every metric its
 * signals carry (one the app's labels do not name too) by the rule, and what it offers the predict
 * surface forecasts. A built-in retailer of the sample is judged the same way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevIdentityProvider } from '../../src/service/auth';
import type { ForecastableList, ForecastableMetric } from '../../src/shared/surface-schemas';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { seedServiceFolder } from '../support/prepared-service-folder';
import { FAST_ARGS, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

let web: FixtureWeb;
let service: ServiceProcess;
let dataDir: string;

/**
 * Six quarters of Vishal Mega Mart (learned: the gazetteer does not know it): a growing store
 * count, a private-label share that never changes, footfall growth that swings too much for a
 * trend, and one closure.
 */
const QUARTERS = [
  { at: '2025-05-14T06:00:00Z', city: 'Lucknow', stores: 560, growth: 4 },
  { at: '2025-08-13T06:00:00Z', city: 'Kanpur', stores: 588, growth: 85 },
  { at: '2025-11-12T06:00:00Z', city: 'Varanasi', stores: 611, growth: 3 },
  { at: '2026-02-11T06:00:00Z', city: 'Patna', stores: 637, growth: 96 },
  { at: '2026-05-13T06:00:00Z', city: 'Gorakhpur', stores: 652, growth: 2 },
  { at: '2026-08-12T06:00:00Z', city: 'Prayagraj', stores: 671, growth: 110 },
];

beforeAll(async () => {
  web = await startFixtureWeb();
  QUARTERS.forEach((q, i) =>
    web.publish('open-world', {
      id: `vmm-history-${i}`,
      title: `Vishal Mega Mart update from ${q.city}`,
      html: `<p>Private labels are 40% of its sales, value retailer Vishal Mega Mart (VMM) told investors in ${q.city}. Vishal Mega Mart now runs ${q.stores} stores across India, and footfall rose ${q.growth}% in the period.</p>`,
      published: q.at,
    }),
  );
  web.publish('open-world', { id: 'vmm-closure', title: 'Vishal Mega Mart shuts stores in Kanpur', html: '<p>Vishal Mega Mart closed 3 stores in Kanpur after its leases ended.</p>', published: '2026-09-02T06:00:00Z' });
  // As a first start leaves a folder (the suite's copy): the history comes from the fetch.
  dataDir = await seedServiceFolder(await mkdtemp(join(tmpdir(), 'clarity-forecastable-')));
  service = await startServiceProcess([...FAST_ARGS, '--allow-private-sources', '--data-dir', dataDir]);
  const admin = await (await DevIdentityProvider.open(dataDir)).issueToken('admin@example.com', 3_600, Date.now(), { role: 'admin' });
  const added = await fetch(`${service.url}/api/v1/sources`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    body: JSON.stringify({ id: 'open-world', name: 'Open world desk', kind: 'rss', url: `${web.url}/open-world.xml`, cadence_s: 3_600 }),
  });
  expect(added.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await service?.kill9();
  await web?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const judged = async (entity: string): Promise<{ status: number; body: ForecastableList }> => {
  const response = await fetch(`${service.url}/api/v1/predict/metrics?entity=${encodeURIComponent(entity)}`);
  return { status: response.status, body: (await response.json()) as ForecastableList };
};
const metricOf = (list: ForecastableList, metric: string): ForecastableMetric | undefined => list.metrics.find((m) => m.metric === metric);

const until = <T>(check: () => Promise<T | null | undefined | false>, what: string, ms = 60_000): Promise<T> =>
  waitFor(check, { what, timeout: ms, interval: 200 }) as Promise<T>;

describe('forecasts offered by history', () => {
  it("judges every metric of a learned retailer's history by the rule, by name or alias", async () => {
    const list = await until(async () => {
      const { body } = await judged('Vishal Mega Mart');
      return (metricOf(body, 'store_count')?.quarters ?? 0) >= 6 && metricOf(body, 'stores_closed') ? body : null;
    }, "Vishal Mega Mart's history fetched and learned");
    expect(list.entity).toBe('Vishal Mega Mart');
    expect(list.rule).toMatch(/at least 5 fiscal quarters spanning at least 270 days/);

    // A store count growing quarter by quarter: offered, its backtest error small. `store_count`
    // is a metric the app's labels do not name: the history decides, not a list.
    const count = metricOf(list, 'store_count')!;
    expect(count).toMatchObject({ offered: true, reason: null, unit: 'count' });
    expect(count.observations).toBeGreaterThanOrEqual(6);
    expect(count.span_days).toBeGreaterThanOrEqual(455);
    expect(count.backtest_error).toBeLessThanOrEqual(0.5);

    // One closure: not enough history, with its count and span.
    expect(metricOf(list, 'stores_closed')).toMatchObject({ offered: false, reason: 'not_enough_history', observations: 1, quarters: 1, span_days: 0 });
    // The same share every quarter: nothing to extend.
    expect(metricOf(list, 'pct')).toMatchObject({ offered: false, reason: 'constant', observations: 6 });
    // Footfall growth swinging between 2% and 110%: its own backtest misses by more than half.
    const growth = metricOf(list, 'growth_yoy_pct')!;
    expect(growth).toMatchObject({ offered: false, reason: 'backtest_error' });
    expect(growth.backtest_error).toBeGreaterThan(0.5);
    // Offered first.
    expect(list.metrics.findIndex((m) => !m.offered)).toBeGreaterThan(list.metrics.findIndex((m) => m.offered));

    // The alias is the same entity.
    const byAlias = await judged('VMM');
    expect(byAlias.body.entity).toBe('Vishal Mega Mart');
    expect(metricOf(byAlias.body, 'store_count')).toMatchObject({ offered: true });
  }, 120_000);

  it('what it offers, the predict surface forecasts', async () => {
    const token = await (await DevIdentityProvider.open(dataDir)).issueToken('analyst@example.com', 3_600, Date.now());
    const response = await fetch(`${service.url}/api/v1/predict`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ entity: 'VMM', metric: 'store_count', horizon: 'next_quarter' }),
    });
    expect(response.status).toBe(200);
    const forecast = (await response.json()) as { forecast: { value: number; unit: string }; history: unknown[] };
    expect(forecast.history.length).toBeGreaterThanOrEqual(6);
    expect(forecast.forecast.unit).toBe('count');
    expect(forecast.forecast.value).toBeGreaterThan(600);
  });

  it("judges a built-in retailer of the sample the same way; an entity with no signals has no metrics; no entity is a 400", async () => {
    const dmart = (await judged('DMart')).body;
    expect(dmart.metrics.length).toBeGreaterThan(3);
    for (const m of dmart.metrics) {
      // Each verdict follows the rule from the figures it reports.
      const enough = m.quarters >= 5 && m.span_days >= 270;
      if (!enough) expect(m).toMatchObject({ offered: false, reason: 'not_enough_history' });
      if (m.offered) expect(m.backtest_error).toBeLessThanOrEqual(0.5);
      if (m.reason === 'backtest_error') expect(m.backtest_error).toBeGreaterThan(0.5);
    }
    expect(dmart.metrics.some((m) => m.offered)).toBe(true);

    const nobody = await judged('Nobody Heard Of Us Stores');
    expect(nobody.status).toBe(200);
    expect(nobody.body.metrics).toEqual([]);

    const missing = await fetch(`${service.url}/api/v1/predict/metrics`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toContain("`entity`");
  });
});
