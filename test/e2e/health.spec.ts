/**
 * The sources-health view end to end through the browser host against the real local service:
 * 5,000 sources sorted, filtered and searched smoothly (virtualised); changes highlighted after
 * the live feed moves; the last snapshot kept, marked stale, while the service is unreachable.
 */
import { expect, signalLocalService, test } from './fixtures';

test.describe(() => {
  // The rows are the sample's sources, replayed with simulated health (by default the sample is a
  // fixed snapshot that reports no health; --sources pads the replayed roster).
  test.use({ serviceArgs: ['--replay-sample', '--sources=5000', '--no-live'] });

  test('the table sorts, filters and searches 5,000 sources, rendering only what is visible', async ({ page, app, health }, testInfo) => {
    await health.open(app);
    await health.goTo('health');
    await expect(health.count).toHaveText(/^5,000 of 5,000 sources/);
    await expect(health.stat('sources')).toContainText('5,000');
    const rows = health.rows;
    expect(await rows.count()).toBeLessThan(80); // virtualised: a screenful, not 5,000

    // Sort by items, most first.
    await health.sortBy('items_24h');
    const items = async (): Promise<number[]> =>
      Promise.all((await rows.all()).slice(0, 10).map(async (row) => Number((await row.locator('.num').innerText()).split(' ')[0])));
    const top = await items();
    expect(top).toEqual([...top].sort((a, b) => b - a));
    // And by name.
    await health.sortBy('name');
    const names = await Promise.all((await rows.all()).slice(0, 8).map((row) => row.locator('.name').innerText()));
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));

    // Filter by health and kind.
    await health.filterHealth.selectOption('down');
    await expect(health.count).not.toHaveText(/^5,000 of/);
    for (const row of (await rows.all()).slice(0, 20)) await expect(row).toHaveAttribute('data-health', 'down');
    await health.filterHealth.selectOption('all');
    await health.filterKind.selectOption('job_board');
    for (const row of (await rows.all()).slice(0, 20)) await expect(row).toContainText('job board');
    await health.filterKind.selectOption('all');

    // Search by name.
    await health.search.fill('Tanishq');
    await expect(health.count).toHaveText(/^2 of 5,000 sources/);
    await expect(rows.first()).toContainText('Tanishq');
    await health.search.fill('');

    // Scroll to the end: the last rows render, still only a screenful in the DOM.
    await health.scrollToEnd();
    await expect(rows.last()).toBeVisible();
    expect(await rows.count()).toBeLessThan(80);

    // Drill down into a source.
    await rows.first().click();
    await expect(health.drilldown).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('health-view.png') });
  });
});

test.describe(() => {
  // Changes come from the replayed sample's simulated health drift.
  test.use({ serviceArgs: ['--replay-sample', '--health-max-age=2'] });

  test('changes from the live feed are highlighted, and the last snapshot is kept, marked stale, when the service stops', async ({ page, app, health }, testInfo) => {
    try {
      await health.open(app);
      await health.goTo('health');
      await expect(health.count).toHaveText(/of \d+ sources/);
      // The live feed moves source health every few seconds; the next snapshots show it.
      await expect(health.changedRows.first()).toBeVisible({ timeout: 45_000 });
      await expect(health.count).toContainText('changed since the last snapshot');
      await expect(health.changes.first()).toHaveText(/was (healthy|degraded|down)/);
      await page.screenshot({ path: testInfo.outputPath('health-change-highlighted.png') });

      // Freeze the service: it stops answering, so the view keeps the last snapshot, marked stale.
      // Compare data, not DOM rows: the banner takes space, so the virtual list shows fewer.
      const countBefore = await health.countValue();
      await signalLocalService(app, 'SIGSTOP');
      await expect(health.stale).toBeVisible({ timeout: 30_000 });
      await expect(health.stale).toContainText('Last success');
      expect(await health.countValue()).toBe(countBefore);
      await expect(health.overview).toBeVisible();
      await page.screenshot({ path: testInfo.outputPath('health-stale.png') });
      await signalLocalService(app, 'SIGCONT');
      await expect(health.stale).toBeHidden({ timeout: 30_000 });
    } finally {
      // A frozen service would not stop: wake it before the fixture stops the app.
      await signalLocalService(app, 'SIGCONT').catch(() => undefined);
    }
  });
});
