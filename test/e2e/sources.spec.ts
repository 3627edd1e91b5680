/**
 * The analyst's own sources, end to end (issue 26): the app on its embedded service (private
 * addresses allowed for the test, as the fixture web is on loopback) adds a feed from the fixture
 * web in the Sources view (preview, then add), waits for its items, finds one in Discover, gets an
 * answer that cites it, then watches the source turn degraded, with the reason, once the fixture
 * starts failing. Independent of how the service treats its sample corpus.
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

test('a feed added in the app is fetched, found in Discover, cited in an answer, and its failure shown with the reason', async ({ page, apps, chat, discover }, testInfo) => {
  test.setTimeout(480_000);
  // Private addresses allowed: the fixture web is on loopback. Without the sample the service
  // starts faster, and nothing found or cited can come from it. A loaded machine may be slow to start.
  const app = await apps.start({ serviceArgs: ['--allow-private-sources', '--no-sample'], startTimeoutMs: 240_000 });
  // A story only this feed carries, so Discover and the answer can only have it from the feed.
  web.publish('rss', {
    id: 'kirana-bazaar-indore',
    title: 'Kirana Bazaar opens 12 stores in Indore',
    html: '<p>Value grocer Kirana Bazaar opened 12 stores in Indore and Bhopal this week, taking its Madhya Pradesh network to 60 stores.</p>',
    published: new Date().toISOString(),
  });
  const sources = new SourcesPage(page);
  await sources.open(app);
  await sources.openView();
  await expect(sources.addForm).toBeVisible();

  // An address that gives no items: the reason, and nothing added.
  await sources.preview({ url: `${web.url}/html-as-feed.xml`, name: 'Not a feed' });
  await expect(sources.addError).toHaveAttribute('data-no-items', 'true');
  await expect(sources.addError).toContainText('No items found');
  await expect(sources.cards).toHaveCount(0);

  // The feed: previewed with its items before it is added.
  await sources.preview({ url: `${web.url}/rss.xml`, name: 'Retail Wire' });
  await expect(sources.kind).toHaveValue('rss');
  await expect(sources.previewItems.filter({ hasText: 'Kirana Bazaar opens 12 stores in Indore' })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('sources-preview.png') });
  await sources.confirmAdd.click();
  const card = sources.card('Retail Wire');
  await expect(card).toBeVisible();
  // Its items arrive with its first fetch.
  await expect(card.getByTestId('source-items')).not.toHaveText(/^0 in 24 h/, { timeout: 20_000 });
  await expect(card).toHaveAttribute('data-health', 'healthy');
  await expect(card.getByTestId('source-last-fetch')).not.toHaveText('not yet');
  await card.getByTestId('source-history-toggle').click();
  await expect(card.getByTestId('history-row').first()).toHaveAttribute('data-ok', 'true');
  await page.screenshot({ path: testInfo.outputPath('sources-added.png') });

  // Found in Discover…
  await discover.goTo('discover');
  await discover.search({ query: 'Kirana Bazaar Indore' });
  await expect(discover.items.filter({ hasText: 'Kirana Bazaar opens 12 stores in Indore' }).first()).toBeVisible();

  // …and cited in an answer.
  await chat.goTo('chat');
  const answer = await chat.askAndWait('How many stores did Kirana Bazaar open in Indore?');
  await expect(answer.getByTestId('citation-source').filter({ hasText: 'Retail Wire' }).first()).toBeVisible();

  // The fixture starts failing; the analyst asks for a fetch now (pause, resume) and sees why.
  web.fail('/rss.xml', 500);
  await sources.goTo('sources');
  await card.getByTestId('source-pause').click();
  await expect(card).toHaveAttribute('data-paused', 'true');
  await card.getByTestId('source-resume').click();
  await expect(card).toHaveAttribute('data-health', 'degraded', { timeout: 20_000 });
  await expect(card.getByTestId('source-why')).toContainText('500');
  await card.getByTestId('source-history-toggle').click();
  await expect(card.getByTestId('history-row').first()).toHaveAttribute('data-ok', 'false');
  await expect(card.getByTestId('history-row').first()).toContainText('500');
  await page.screenshot({ path: testInfo.outputPath('sources-degraded.png'), fullPage: true });
});

test('the preview and the fetch history say which items a source dropped and why, and that a feed was read with errors (issue 44)', async ({ page, apps }, testInfo) => {
  test.setTimeout(300_000);
  const app = await apps.start({ serviceArgs: ['--allow-private-sources', '--no-sample'], startTimeoutMs: 240_000 });
  const sources = new SourcesPage(page);
  await sources.open(app);
  await sources.openView();
  await expect(sources.addForm).toBeVisible();

  // A feed of circulars: two items without links (kept), one with nothing in it (dropped).
  await sources.preview({ url: `${web.url}/no-links.xml`, name: 'Circulars' });
  await expect(page.getByTestId('preview-count')).toContainText('3 items found');
  await expect(page.getByTestId('preview-count')).toContainText('2 to be kept');
  await expect(sources.previewItems).toHaveCount(2);
  const dropped = page.getByTestId('add-source-preview-list').getByTestId('dropped-item');
  await expect(dropped).toHaveCount(1);
  await expect(dropped).toHaveText('(untitled item) — The item has no title, no text and no link.');
  await expect(page.getByTestId('add-source-preview-list').getByTestId('dropped-items')).toContainText('1 item of 3 not kept');
  await page.screenshot({ path: testInfo.outputPath('preview-dropped.png') });
  await sources.confirmAdd.click();
  const card = sources.card('Circulars');
  await expect(card.getByTestId('source-last-fetch')).not.toHaveText('not yet', { timeout: 20_000 });
  await card.getByTestId('source-history-toggle').click();
  const firstFetch = card.getByTestId('history-row').first();
  await expect(firstFetch).toHaveAttribute('data-ok', 'true');
  await expect(firstFetch.getByTestId('dropped-item')).toHaveText('(untitled item) — The item has no title, no text and no link.');

  // An ill-formed feed: read anyway, the preview and the history name the first error.
  await sources.preview({ url: `${web.url}/malformed.xml`, name: 'Broken desk' });
  await expect(page.getByTestId('add-source-preview-list').getByTestId('read-with-errors')).toContainText(/read with errors\s*The first: .*line 1/);
  await expect(sources.previewItems.filter({ hasText: 'Unclosed' })).toBeVisible();
  await sources.confirmAdd.click();
  const broken = sources.card('Broken desk');
  await expect(broken).toHaveAttribute('data-health', 'degraded', { timeout: 20_000 });
  await expect(broken.getByTestId('source-why')).toContainText('read with errors');
  await broken.getByTestId('source-history-toggle').click();
  await expect(broken.getByTestId('history-row').first().getByTestId('read-with-errors')).toContainText(/The first: .*line 1/);
  await page.screenshot({ path: testInfo.outputPath('history-read-with-errors.png'), fullPage: true });
});
