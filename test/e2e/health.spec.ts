/**
 * The sources-health view end to end through the browser host against the real local service:
 * 5,000 sources sorted, filtered and searched smoothly (virtualised); changes highlighted after
 * the live feed moves; the last snapshot kept, marked stale, while the service is unreachable.
 */
import { ChatPage, expect, signalLocalService, startApp, stopApp, test } from './fixtures';

test('the table sorts, filters and searches 5,000 sources, rendering only what is visible', async ({ page }, testInfo) => {
  const app = await startApp({ serviceArgs: ['--sources=5000', '--no-live'] });
  try {
    await new ChatPage(page).open(app);
    await page.getByTestId('nav-health').click();
    await expect(page.getByTestId('health-count')).toHaveText(/^5,000 of 5,000 sources/);
    await expect(page.getByTestId('stat-sources')).toContainText('5,000');
    const rows = page.getByTestId('health-row');
    expect(await rows.count()).toBeLessThan(80); // virtualised: a screenful, not 5,000

    // Sort by items, most first.
    await page.getByTestId('sort-items_24h').click();
    const items = async (): Promise<number[]> =>
      Promise.all((await rows.all()).slice(0, 10).map(async (row) => Number((await row.locator('.num').innerText()).split(' ')[0])));
    const top = await items();
    expect(top).toEqual([...top].sort((a, b) => b - a));
    // And by name.
    await page.getByTestId('sort-name').click();
    const names = await Promise.all((await rows.all()).slice(0, 8).map((row) => row.locator('.name').innerText()));
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));

    // Filter by health and kind.
    await page.getByTestId('health-filter-health').selectOption('down');
    await expect(page.getByTestId('health-count')).not.toHaveText(/^5,000 of/);
    for (const row of (await rows.all()).slice(0, 20)) await expect(row).toHaveAttribute('data-health', 'down');
    await page.getByTestId('health-filter-health').selectOption('all');
    await page.getByTestId('health-filter-kind').selectOption('job_board');
    for (const row of (await rows.all()).slice(0, 20)) await expect(row).toContainText('job board');
    await page.getByTestId('health-filter-kind').selectOption('all');

    // Search by name.
    await page.getByTestId('health-search').fill('Tanishq');
    await expect(page.getByTestId('health-count')).toHaveText(/^2 of 5,000 sources/);
    await expect(rows.first()).toContainText('Tanishq');
    await page.getByTestId('health-search').fill('');

    // Scroll to the end: the last rows render, still only a screenful in the DOM.
    await page.getByTestId('health-scroll').evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await expect(rows.last()).toBeVisible();
    expect(await rows.count()).toBeLessThan(80);

    // Drill down into a source.
    await rows.first().click();
    await expect(page.getByTestId('source-drilldown')).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('health-view.png') });
  } finally {
    await stopApp(app);
  }
});

test('changes from the live feed are highlighted, and the last snapshot is kept, marked stale, when the service stops', async ({ page }, testInfo) => {
  const app = await startApp({ serviceArgs: ['--health-max-age=2'] });
  try {
    await new ChatPage(page).open(app);
    await page.getByTestId('nav-health').click();
    await expect(page.getByTestId('health-count')).toHaveText(/of \d+ sources/);
    // The live feed moves source health every few seconds; the next snapshots show it.
    await expect(page.locator('[data-testid="health-row"][data-changed="true"]').first()).toBeVisible({ timeout: 45_000 });
    await expect(page.getByTestId('health-count')).toContainText('changed since the last snapshot');
    await expect(page.getByTestId('health-change').first()).toHaveText(/was (healthy|degraded|down)/);
    await page.screenshot({ path: testInfo.outputPath('health-change-highlighted.png') });

    // Freeze the service: it stops answering, so the view keeps the last snapshot, marked stale.
    // Compare data, not DOM rows: the banner takes space, so the virtual list shows fewer.
    const countBefore = (await page.getByTestId('health-count').innerText()).split(' sources')[0];
    await signalLocalService(app, 'SIGSTOP');
    await expect(page.getByTestId('health-stale')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('health-stale')).toContainText('Last success');
    expect((await page.getByTestId('health-count').innerText()).split(' sources')[0]).toBe(countBefore);
    await expect(page.getByTestId('health-overview')).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('health-stale.png') });
    await signalLocalService(app, 'SIGCONT');
    await expect(page.getByTestId('health-stale')).toBeHidden({ timeout: 30_000 });
  } finally {
    await signalLocalService(app, 'SIGCONT').catch(() => undefined);
    await stopApp(app);
  }
});
