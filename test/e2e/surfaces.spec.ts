/**
 * Discover, the watchlist, forecasts and Settings → Developer end to end through the browser
 * host and the real local service (live feed sped up with --live-ms). One app for the file: the
 * tests run in order on it (the team-tier credential saved first is the one later tests use).
 */
import { expect, signalTitle, oneAppForThisFile, test, tokenFor } from './fixtures';

// The live arrivals are the sample replayed (--replay-sample; by default it is a fixed snapshot).
const app = oneAppForThisFile({ serviceArgs: ['--replay-sample', '--live-ms=400'] });

test('discover → follow → a live signal appears in the watchlist with a notice → open it → ask about it', async ({ page, chat, discover, watchlist, settings, citations }, testInfo) => {
  await chat.open(app());
  await settings.saveCredential(await tokenFor(app(), 'watcher@example.com', { tier: 'team' }));

  await discover.goTo('discover');
  await discover.search({ query: 'grocery prices', segment: 'grocery' });
  await expect(discover.results).toHaveAttribute('data-shown-for', 'grocery prices grocery');
  const first = discover.items.first();
  await expect(first).toBeVisible();
  // Keyboard: focus the list, move down and back, Enter opens the signal in the panel.
  await discover.results.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  const title = await signalTitle(first).innerText();
  await expect(citations.title).toHaveText(title);
  await discover.followSegment.click();
  await expect(discover.followMessage).toHaveText('Following grocery.');

  // The live feed brings a grocery signal; main's next poll finds it and the app says so.
  await expect(watchlist.notice).toBeVisible({ timeout: 30_000 });
  await expect(watchlist.navUnread).toHaveText(/^\d+$/);
  await page.screenshot({ path: testInfo.outputPath('watchlist-notice.png') });
  await watchlist.openFromNotice();
  const item = watchlist.items.first();
  await expect(item).toContainText('matched grocery');
  const unreadBefore = await watchlist.unreadValue();
  await item.click();
  const itemTitle = await signalTitle(item).innerText();
  await expect(citations.title).toHaveText(itemTitle);
  await expect(citations.entities).toContainText('grocery');
  await expect(watchlist.unread).not.toHaveText(`${unreadBefore} unread`);
  await page.screenshot({ path: testInfo.outputPath('watchlist.png') });

  await citations.askAboutSignal.click();
  await expect(chat.composer).toBeVisible();
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(chat.questions.last()).toContainText(itemTitle);
});

test('a forecast shows history, the forecast with its interval, basis and method', async ({ page, chat, discover, citations }, testInfo) => {
  await chat.open(app());
  await discover.goTo('discover');
  await discover.search({ entity: 'DMart', kind: 'results' });
  await expect(discover.results).toHaveAttribute('data-shown-for', 'DMart results');
  await expect(discover.items.first()).toContainText('DMart');
  await discover.items.first().click();
  await citations.forecastButton('revenue_cr').click();
  await expect(citations.forecastPart('chart')).toBeVisible();
  await expect(citations.forecastPart('band')).toBeVisible();
  await expect(citations.forecastPart('value')).toContainText(/Q\d FY\d\d: [\d,.]+ INR crore/);
  await expect(citations.forecastPart('interval')).toContainText(/80% interval \u2212?[\d,.]+ to [\d,.]+/);
  await expect(citations.forecastPart('method')).toContainText('Damped-trend');
  await expect(citations.forecastPart('basis').locator('.sf-chip').first()).toContainText(/sig_[0-9a-f]{16}/);
  await page.screenshot({ path: testInfo.outputPath('forecast.png') });
});

test('an API key issued in Settings → Developer works for an ask', async ({ chat, settings, statusBar, watchlist }) => {
  await chat.open(app());
  // The grocery segment followed in the first test brings a notice every few seconds, and the
  // notice sits over the Send button: stop following it and close the notice first.
  await watchlist.unfollow('grocery');
  await watchlist.dismissNotice();
  await settings.goTo('settings');
  await settings.keyStore.check();
  await settings.keyIssue.click();
  const key = (await settings.keyNew.innerText()).trim();
  expect(key).toMatch(/^ck_[A-Za-z0-9]{32}$/);
  // Saved in the keychain as the app's credential: the status shows its last four only.
  await expect(settings.credentialStatus).toContainText(key.slice(-4));
  await chat.goTo('chat');
  await chat.ask('Zudio store openings in Pune');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  // The service took it as a signed-in caller's key: the developer keys page lists it for that key.
  const serviceUrl = await statusBar.serviceUrl();
  const listed = await (await fetch(`${serviceUrl}/developer/keys`, { headers: { 'x-api-key': key } })).text();
  expect(listed).toContain(`…${key.slice(-4)}`);
});
