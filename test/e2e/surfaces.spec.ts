/**
 * Discover, the watchlist, forecasts and Settings → Developer end to end through the browser
 * host and the real local service (live feed sped up with --live-ms). One app for the file.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ChatPage, expect, saveCredential, startApp, stopApp, test, type RunningApp } from './fixtures';

let app: RunningApp;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  app = await startApp({ serviceArgs: ['--live-ms=400'] });
});
test.afterAll(async () => {
  await stopApp(app);
});

/** A JWT with a tier claim from the embedded service's identity provider. */
async function tierToken(email: string, tier: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/service/cli.ts', 'token', '--user', email, '--tier', tier, '--data-dir', join(app.dataDir, 'local-service')]);
  return stdout.trim();
}

test('discover → follow → a live signal appears in the watchlist with a notice → open it → ask about it', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(app);
  await saveCredential(page, await tierToken('watcher@example.com', 'team'));

  await page.getByTestId('nav-discover').click();
  await page.getByTestId('discover-query').fill('grocery prices');
  await page.getByTestId('discover-segment').selectOption('grocery');
  await page.getByTestId('discover-search').click();
  await expect(page.getByTestId('discover-results')).toHaveAttribute('data-shown-for', 'grocery prices grocery');
  const first = page.getByTestId('discover-item').first();
  await expect(first).toBeVisible();
  // Keyboard: focus the list, move down and back, Enter opens the signal in the panel.
  await page.getByTestId('discover-results').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  const title = await first.locator('.sf-title').innerText();
  await expect(page.getByTestId('citation-panel').getByTestId('panel-title')).toHaveText(title);
  await page.getByTestId('follow-segment').click();
  await expect(page.getByTestId('follow-message')).toHaveText('Following grocery.');

  // The live feed brings a grocery signal; main's next poll finds it and the app says so.
  const notice = page.getByTestId('watchlist-notice');
  await expect(notice).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('nav-unread')).toHaveText(/^\d+$/);
  await page.screenshot({ path: testInfo.outputPath('watchlist-notice.png') });
  await notice.getByRole('button', { name: 'Open' }).click();
  const item = page.getByTestId('watchlist-item').first();
  await expect(item).toContainText('matched grocery');
  const unreadBefore = Number((await page.getByTestId('watchlist-unread').innerText()).match(/\d+/)![0]);
  await item.click();
  const itemTitle = await item.locator('.sf-title').innerText();
  await expect(page.getByTestId('citation-panel').getByTestId('panel-title')).toHaveText(itemTitle);
  await expect(page.getByTestId('panel-entities')).toContainText('grocery');
  await expect(page.getByTestId('watchlist-unread')).not.toHaveText(`${unreadBefore} unread`);
  await page.screenshot({ path: testInfo.outputPath('watchlist.png') });

  await page.getByTestId('ask-about-signal').click();
  await expect(page.getByTestId('composer-input')).toBeVisible();
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('question').last()).toContainText(itemTitle);
});

test('a forecast shows history, the forecast with its interval, basis and method', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  await chat.open(app);
  await page.getByTestId('nav-discover').click();
  await page.getByTestId('discover-entity').fill('DMart');
  await page.getByLabel('Kind').selectOption('results');
  await page.getByTestId('discover-search').click();
  await expect(page.getByTestId('discover-results')).toHaveAttribute('data-shown-for', 'DMart results');
  await expect(page.getByTestId('discover-item').first()).toContainText('DMart');
  await page.getByTestId('discover-item').first().click();
  await page.getByTestId('forecast-revenue_cr').click();
  const panel = page.getByTestId('forecast-panel');
  await expect(panel.getByTestId('forecast-chart')).toBeVisible();
  await expect(panel.getByTestId('forecast-band')).toBeVisible();
  await expect(panel.getByTestId('forecast-value')).toContainText(/Q\d FY\d\d: [\d,.]+ INR crore/);
  await expect(panel.getByTestId('forecast-interval')).toContainText(/80% interval \u2212?[\d,.]+ to [\d,.]+/);
  await expect(panel.getByTestId('forecast-method')).toContainText('Damped-trend');
  await expect(panel.getByTestId('forecast-basis').locator('.sf-chip').first()).toContainText(/sig_[0-9a-f]{16}/);
  await page.screenshot({ path: testInfo.outputPath('forecast.png') });
});

test('an API key issued in Settings → Developer works for an ask', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(app);
  await page.getByTestId('nav-settings').click();
  const keys = page.getByTestId('developer-keys');
  await keys.getByTestId('key-store').check();
  await keys.getByTestId('key-issue').click();
  const key = (await keys.getByTestId('key-new').innerText()).trim();
  expect(key).toMatch(/^ck_[A-Za-z0-9]{32}$/);
  // Saved in the keychain as the app's credential: the status shows its last four only.
  await expect(page.getByTestId('credential-status')).toContainText(key.slice(-4));
  await page.getByTestId('nav-chat').click();
  await chat.ask('Zudio store openings in Pune');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  // The service took it as a signed-in caller's key: the developer keys page lists it for that key.
  const serviceUrl = (await page.getByTestId('service-label').innerText()).match(/\((http:\/\/127\.0\.0\.1:\d+)\)/)![1]!;
  const listed = await (await fetch(`${serviceUrl}/developer/keys`, { headers: { 'x-api-key': key } })).text();
  expect(listed).toContain(`…${key.slice(-4)}`);
});
