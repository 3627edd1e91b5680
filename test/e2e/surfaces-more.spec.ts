/**
 * Follow and forecast from a chat answer's citation panel, then the forecast saved to the
 * library and exported like an answer — through the browser host and the real local service.
 */
import { readFile } from 'node:fs/promises';
import { ChatPage, expect, saveCredential, test, tokenFor } from './fixtures';

// This file's app replays the sample (--replay-sample) as the supervised service did before it
// became a fixed snapshot that reports no health: the drill-down test follows a source from a health row.
test.use({ serviceArgs: ['--replay-sample'] });

test('from a cited signal: follow its retailer, forecast its revenue, save the forecast, find it in the library, export it', async ({ fileApp, page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(fileApp);
  // Following and forecasting need a signed-in caller.
  await saveCredential(page, await tokenFor(fileApp, 'analyst@example.com'));
  await page.getByTestId('nav-chat').click();
  await chat.ask('What was DMart revenue last quarter?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });

  await chat.lastAnswer().getByTestId('citation-chip').first().click();
  const panel = page.getByTestId('citation-panel');
  await expect(panel.getByTestId('panel-title')).toContainText('DMart');
  const actions = panel.getByTestId('citation-actions');
  const followDmart = actions.getByTestId('follow-entity').filter({ hasText: 'DMart' });
  await followDmart.click();
  await expect(actions.getByTestId('follow-message')).toHaveText('Following DMart.');
  await expect(followDmart).toBeDisabled();
  await expect(followDmart).toHaveText('✓ DMart');
  // The follow is on the watchlist.
  await page.getByTestId('nav-watchlist').click();
  await expect(page.getByTestId('watchlist-follows')).toContainText('DMart');
  await page.getByTestId('nav-chat').click();

  await chat.lastAnswer().getByTestId('citation-chip').first().click();
  await page.getByTestId('citation-actions').getByTestId('forecast-revenue_cr').click();
  const forecast = page.getByTestId('forecast-panel');
  await expect(forecast.getByTestId('forecast-chart')).toBeVisible();
  await expect(forecast.getByTestId('forecast-interval')).toContainText(/80% interval [\d,.-]+ to [\d,.]+/);
  const period = (await forecast.getByTestId('forecast-value').innerText()).match(/Q\d FY\d\d/)![0];
  await page.screenshot({ path: testInfo.outputPath('citation-forecast.png') });

  await forecast.getByTestId('forecast-save').click();
  await expect(forecast.getByTestId('forecast-save-status')).toHaveText(`Saved to the library as “Forecast: Revenue (₹ crore) of DMart, ${period}”.`);

  // Export it (the browser host downloads the file): the Markdown states the forecast and cites its basis.
  const download = page.waitForEvent('download');
  await forecast.getByTestId('export-format').selectOption('markdown');
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^forecast-revenue-crore-of-dmart-q\d-fy\d\d\.md$/);
  const markdown = await readFile((await file.path())!, 'utf8');
  expect(markdown).toContain(`# Forecast: Revenue (₹ crore) of DMart, ${period}`);
  expect(markdown).toMatch(/80% interval [\d,.]+ to [\d,.]+ INR crore/);
  expect(markdown).toMatch(/\*\*Method\.\*\* Damped-trend/);
  expect(markdown).toMatch(/\[\^1\]: DMart/);

  // The saved forecast is in the library, readable with its history table and cited basis.
  await page.getByTestId('nav-library').click();
  await page.getByTestId('library-search').fill('forecast DMart');
  const item = page.getByTestId('library-item').filter({ hasText: `Forecast: Revenue (₹ crore) of DMart, ${period}` });
  await expect(item).toHaveCount(1);
  await item.getByRole('button').first().click();
  const reader = page.getByTestId('library-reader');
  await expect(reader.getByTestId('library-body')).toContainText('80% interval');
  await expect(reader.getByTestId('library-body').locator('table')).toContainText(`${period} (forecast)`);
  expect(await reader.getByTestId('citation-chip').count()).toBeGreaterThanOrEqual(4);
  await page.screenshot({ path: testInfo.outputPath('library-forecast.png') });
});

test('follow a source from the health drill-down and a search from Discover; both are on the watchlist', async ({ fileApp, page }) => {
  // The file's app, as another analyst (their own follows).
  const chat = new ChatPage(page);
  await chat.open(fileApp);
  await saveCredential(page, await tokenFor(fileApp, 'watcher@example.com'));

  await page.getByTestId('nav-health').click();
  await page.getByTestId('health-row').first().click();
  const drilldown = page.getByTestId('source-drilldown');
  const sourceName = (await drilldown.locator('h3').innerText()).trim();
  await drilldown.getByTestId('follow-source').click();
  await expect(drilldown.getByTestId('follow-message')).toHaveText(`Following ${sourceName}.`);
  await expect(drilldown.getByTestId('follow-source')).toHaveText(`✓ ${sourceName}`);

  await page.getByTestId('nav-discover').click();
  await page.getByTestId('discover-query').fill('quick commerce Bengaluru');
  await page.getByTestId('discover-search').click();
  await expect(page.getByTestId('discover-results')).toHaveAttribute('data-shown-for', 'quick commerce Bengaluru');
  await page.getByTestId('follow-query').click();
  await expect(page.getByTestId('follow-message')).toHaveText('Following “quick commerce Bengaluru”.');

  await page.getByTestId('nav-watchlist').click();
  const follows = page.getByTestId('watchlist-follows');
  await expect(follows).toContainText('query: quick commerce Bengaluru');
  await expect(follows).toContainText('source: ');
});
