/**
 * Issue 47: the app on a fresh data folder as a new analyst meets it, through the browser host and
 * the real local service: research and a follow with no credential typed (the app is the service's
 * owner), an example question that asks, nothing laid over the page at start; the first screens
 * of the health and Sources views with their two actions and the starter pack; an intranet
 * (loopback) feed added with consent while a second private host is still asked about, and the
 * consent withdrawn in Settings; sharing that asks first and is withdrawn; the forecast's axis.
 * The first start, the share and the forecast run on one app (`fileApp`, the first start first: it
 * is the app's first page; the other two check nothing of a first start, and the share asks in a
 * new conversation); the empty views and the private feed each get a fresh data folder of their own.
 */
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { expect, SourcesPage, test } from './fixtures';

let web: FixtureWeb;
test.beforeAll(async () => {
  web = await startFixtureWeb();
});
test.afterAll(async () => {
  await web?.close();
});

/** A cold start on a loaded machine can pass the supervisor's minute. */
const START = { startTimeoutMs: 240_000 };

test('research and a follow with no credential typed; an example asks at once; nothing covers the page at start', async ({ page, fileApp: app, chat, research, discover, statusBar }, testInfo) => {
  test.setTimeout(480_000);
  await chat.open(app);
  // Nothing over the content at start: no notice, the question box and examples in view.
  await expect(page.locator('.notice-stack .notice-card')).toHaveCount(0);
  await expect(chat.composer).toBeInViewport();
  await expect(page.getByTestId('caller')).toHaveText('You (owner of the local service)');
  await page.screenshot({ path: testInfo.outputPath('first-start.png') });

  await page.getByTestId('example-question').first().click();
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(chat.questions.last()).toHaveText('How fast is quick commerce growing in Bengaluru?');

  await research.goTo('research');
  await expect(page.getByTestId('research-needs-credential')).toHaveCount(0);
  const run = await research.start('Quick commerce in Bengaluru');
  await expect(run.root).toHaveAttribute('data-state', 'completed', { timeout: 60_000 });

  await discover.goTo('discover');
  await discover.search({ query: 'grocery prices', segment: 'grocery' });
  await expect(discover.results).toHaveAttribute('data-shown-for', 'grocery prices grocery');
  // The signal's panel offers to follow its segment.
  await discover.items.first().click();
  await discover.followSegment.click();
  await expect(discover.followMessage).toHaveText('Following grocery.');
  await expect(statusBar.root).not.toContainText('Anonymous');
});

test('the empty health and Sources views say what they will show, offer add-a-source and the starter pack, and fetch nothing until picked', async ({ page, apps, health }, testInfo) => {
  test.setTimeout(480_000);
  const app = await apps.start(START);
  const sources = new SourcesPage(page);
  await health.open(app);
  await health.goTo('health');
  await expect(health.firstScreen).toContainText('No source is fetched yet');
  await expect(page.getByTestId('health-first-add')).toBeVisible();
  await expect(health.stat('miss-rate')).toContainText('not measured — no reference feed');
  await page.getByTestId('health-explain').locator('summary').click();
  await expect(page.getByTestId('health-rule-explained')).toContainText('Down: 3 or more consecutive failures');
  await page.screenshot({ path: testInfo.outputPath('health-first-screen.png') });

  // "Choose from the starter pack" leads to Sources with the pack open.
  await health.firstPack.click();
  await expect(sources.starterPack).toBeVisible();
  expect(await sources.starterSources.count()).toBeGreaterThanOrEqual(10);
  await expect(sources.starterSources.first()).toContainText('NSE');
  await expect(sources.starterSources.first().getByTestId('starter-source-documented')).toBeVisible();
  await expect(sources.starterPack.locator('legend')).toHaveText(['Stock-exchange announcements', 'Business papers', "Regulators' press releases", 'Company newsrooms']);
  // Nothing was added by opening the pack.
  await expect(sources.cards).toHaveCount(0);
  await expect(sources.firstScreen).toBeVisible();
  await expect(page.getByTestId('starter-pack-add')).toBeDisabled();
  await page.screenshot({ path: testInfo.outputPath('starter-pack.png') });

  await sources.firstAdd.click();
  await expect(sources.url).toBeFocused();
});

test('a loopback feed is added after consent to its host only; another private host is still asked about; the consent is withdrawn in Settings', async ({ page, apps, settings }, testInfo) => {
  test.setTimeout(480_000);
  // Not --allow-private-sources: the service fetches only what the analyst allows.
  const app = await apps.start({ serviceArgs: ['--no-sample'], startTimeoutMs: 240_000 });
  const sources = new SourcesPage(page);
  await sources.open(app);
  await sources.openView();
  await sources.url.fill(`${web.url}/rss.xml`);
  await sources.previewButton.click();
  await expect(sources.privateHostConsent).toContainText('127.0.0.1 is on your private network. Fetch it from this computer?');
  await expect(sources.previewItems).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('consent.png') });
  await sources.privateHostYes.click();
  // The local service restarts with that host allowed, then the preview runs.
  await expect(sources.previewItems.first()).toBeVisible({ timeout: 120_000 });
  await sources.name.fill('Intranet newsroom');
  await sources.confirmAdd.click();
  await expect(sources.card('Intranet newsroom')).toBeVisible();

  // Another private host (the same machine by another name) is not covered by that yes.
  await sources.url.fill(`http://localhost:${web.host.split(':')[1]}/rss.xml`);
  await sources.previewButton.click();
  await expect(sources.privateHostConsent).toHaveAttribute('data-host', 'localhost');
  await expect(sources.previewItems).toHaveCount(0);
  await page.getByTestId('private-host-no').click();

  await settings.goTo('settings');
  await expect(settings.sourceHosts).toHaveText([/127\.0\.0\.1/]);
  await settings.sourceHosts.first().getByTestId('source-host-withdraw').click();
  await expect(page.getByTestId('source-hosts-empty')).toBeVisible({ timeout: 120_000 });
});

test('share asks who can open the link first, then the shared page is listed and withdrawn', async ({ page, fileApp: app, chat, settings }) => {
  test.setTimeout(480_000);
  await chat.open(app);
  await chat.startNewConversation();
  await chat.ask('How fast is quick commerce growing in Bengaluru?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');

  await chat.shareButton.click();
  await expect(chat.shareConfirm).toContainText('Only this computer can open the link');
  await page.getByTestId('share-confirm-no').click();
  await expect(chat.publicUrl).toHaveCount(0);

  await chat.shareButton.click();
  await chat.shareConfirmYes.click();
  await expect(chat.publicUrl).toContainText('/ask/');
  const url = (await chat.publicUrl.innerText()).replace(/^Public:\s*/, '').trim();
  expect((await page.request.get(url)).status()).toBe(200);

  await settings.goTo('settings');
  await expect(settings.sharedPages).toHaveCount(1);
  await expect(settings.sharedPages.first()).toContainText('/ask/');
  await settings.sharedPages.first().getByTestId('shared-page-withdraw').click();
  await expect(page.getByTestId('shared-pages-message')).toContainText('is private again');
  await expect.poll(async () => (await page.request.get(url)).status()).toBe(404);
  await expect(settings.sharedPages).toHaveCount(0);
});

test("the forecast's value axis has values and the metric's own label; no forecast where the history is too short, with why", async ({ page, fileApp: app, chat, discover, citations }, testInfo) => {
  test.setTimeout(480_000);
  await chat.open(app);
  await discover.goTo('discover');
  await discover.search({ entity: 'DMart', kind: 'results' });
  await expect(discover.items.first()).toContainText('DMart');
  await discover.items.first().click();
  await citations.forecastButton('revenue_cr').click();
  await expect(citations.forecastPart('axis-name')).toHaveText('Revenue (₹ crore)');
  const ticks = await citations.forecastPart('tick').allTextContents();
  expect(ticks.length).toBeGreaterThanOrEqual(2);
  for (const tick of ticks) expect(tick).toMatch(/^−?[\d,]+(\.\d)?$/);
  await expect(citations.forecastPart('chart')).not.toContainText('revenue_cr');
  await page.screenshot({ path: testInfo.outputPath('forecast-axis.png') });

  // Item 6: a forecast is offered only where the history supports one. DMart closed stores once:
  // no "Stores closed" forecast button, and the panel says why in its history's numbers.
  await discover.search({ entity: 'DMart', kind: 'closure' });
  await expect(discover.items.first()).toContainText('DMart');
  await discover.items.first().click();
  const notOffered = page.getByTestId('forecast-not-offered-stores_closed');
  await expect(notOffered).toHaveText(/^Not enough history for a forecast of Stores closed: \d+ observations? over \d+ days?\.$/);
  await expect(citations.forecastButton('stores_closed')).toHaveCount(0);
  // The revenue forecast of the signal before does not stay open under one that reports no revenue.
  await expect(citations.forecast).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('forecast-not-offered.png') });
});
