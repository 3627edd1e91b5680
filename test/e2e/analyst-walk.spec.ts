/**
 * A new analyst's day on a fresh data folder (the analyst walk): three questions (one about a
 * retailer only a feed added in Sources brings), a research report run, scheduled and run again by
 * its schedule, saved, exported and read offline. What it checks is what the walk's screenshots
 * showed wrong: "Anonymous" said before the owner is known; two identical "Report ready" notices
 * for one topic, over the page; the preset's label cut;
 * the first screen's two actions touching.
 */
import { readFile } from 'node:fs/promises';
import { startFixtureWeb, type FixtureWeb } from '../support/fixture-web';
import { Answer, expect, SourcesPage, signalLocalService, test } from './fixtures';

let web: FixtureWeb;
test.beforeAll(async () => {
  web = await startFixtureWeb();
});
test.afterAll(async () => {
  await web?.close();
});

test('ask, add a feed, research, schedule, save, export and read offline, with one notice per report', async ({ page, apps, chat, research, library }, testInfo) => {
  test.setTimeout(600_000);
  const app = await apps.start({ startTimeoutMs: 240_000, serviceArgs: ['--research-ms=1500'] });
  // Every text the caller's place in the status bar shows, from the first paint.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { callerSeen: string[] }).callerSeen = seen;
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid="caller"]')?.textContent ?? null;
      if (text !== null && seen.at(-1) !== text) seen.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await chat.open(app);
  await expect(page.getByTestId('caller')).toHaveText('You (owner of the local service)');
  expect(await page.evaluate(() => (window as unknown as { callerSeen: string[] }).callerSeen)).not.toContain('Anonymous');

  for (const question of ['Which grocery chains opened the most stores in Maharashtra this quarter?', 'How are quick commerce prices moving compared with supermarkets?']) {
    const answer = new Answer(await chat.askAndWait(question, { timeout: 90_000 }));
    await expect(answer.chips.first()).toBeVisible();
  }

  // A retailer the sample does not know, brought by a feed the analyst adds (consenting to its host).
  const sources = new SourcesPage(page);
  await sources.openView();
  const actions = [await sources.firstAdd.boundingBox(), await sources.firstPack.boundingBox()];
  expect(actions[1]!.x - (actions[0]!.x + actions[0]!.width)).toBeGreaterThanOrEqual(6);
  await sources.url.fill(`${web.url}/open-world.xml`);
  await sources.previewButton.click();
  await sources.privateHostYes.click();
  await expect(sources.previewItems.first()).toBeVisible({ timeout: 180_000 });
  // Named by the feed's own title (not its host), the kind said in words (not "(rss)").
  const previewCount = page.getByTestId('preview-count');
  await expect(previewCount).toContainText('in the RSS feed at');
  await expect(previewCount).toContainText('to be added as Open world desk');
  await expect(previewCount).not.toContainText('(rss)');
  await sources.name.fill('Retail desk');
  await sources.confirmAdd.click();
  await expect(sources.card('Retail desk')).toBeVisible();
  await chat.goTo('chat');
  const vmm = new Answer(await chat.askAndWait('What did Vishal Mega Mart announce?', { timeout: 90_000 }));
  await expect(vmm.entrySources.first()).toContainText('Retail desk');

  // Research: the preset's label is whole; the run's notice sits above the page, not over its heading.
  await research.goTo('research');
  const preset = page.getByTestId('research-preset');
  expect(await preset.evaluate((select: HTMLSelectElement) => select.scrollWidth <= select.clientWidth + 1)).toBe(true);
  const topic = 'Vishal Mega Mart expansion';
  const run = await research.start(topic);
  await expect(run.root).toHaveAttribute('data-state', 'completed', { timeout: 120_000 });
  const notice = page.getByTestId('app-notice');
  await expect(notice).toHaveText(/Report ready: Vishal Mega Mart expansion/);
  const heading = page.getByRole('heading', { name: 'Research', exact: true });
  const [noticeBox, headingBox] = [await notice.boundingBox(), await heading.boundingBox()];
  expect(noticeBox!.y + noticeBox!.height).toBeLessThanOrEqual(headingBox!.y);

  // Scheduled and run by its schedule: the same topic's second report replaces the notice, not adds one.
  await run.scheduleThis.click();
  await research.scheduleForm.every('daily').check();
  await research.scheduleForm.create.click();
  await research.schedule(topic).runNow.click();
  await expect(research.schedule(topic).lastRun).toHaveAttribute('data-state', 'completed', { timeout: 120_000 });
  await expect(notice).toHaveCount(1);
  await page.screenshot({ path: testInfo.outputPath('one-notice.png') });

  // Open, save, export.
  await research.runs.filter({ hasText: 'run while you waited' }).getByTestId('open-report').click();
  const viewer = research.viewer;
  // The embedded service is "this computer", not its loopback address and passing port.
  await expect(viewer.root.getByTestId('report-service')).toHaveText('Run on this computer');
  // Key figures: the Signal column names the retailer the figure is about, not a city.
  const firstFigure = viewer.root.locator('table tbody tr').first().locator('td').first();
  await expect(firstFigure).toContainText('Vishal Mega Mart');
  await expect(firstFigure).not.toContainText('Lucknow');
  await viewer.saveButton.click();
  await expect(viewer.saved).toHaveText('Saved to the library.');
  const download = page.waitForEvent('download');
  await viewer.root.getByTestId('export-format').selectOption('markdown');
  const file = await download;
  expect(file.suggestedFilename()).toBe('vishal-mega-mart-expansion.md');
  const markdown = await readFile((await file.path())!, 'utf8');
  expect(markdown).toMatch(/^# Vishal Mega Mart expansion/);
  expect(markdown).toMatch(/^_Research report · .+ · exported from Clarity Desktop_$/m);
  expect(markdown).toMatch(/\[\^1\]:.*Retail desk/);
  await page.screenshot({ path: testInfo.outputPath('report.png') });

  // Offline: the service stops answering; the saved report reads from the library with its citations.
  await signalLocalService(app, 'SIGSTOP');
  try {
    await page.reload();
    await library.goTo('library');
    const reader = await library.openItem(library.item(topic));
    await expect(reader.body).toContainText('Vishal Mega Mart');
    await expect(reader.chips.first()).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('offline.png') });
  } finally {
    await signalLocalService(app, 'SIGCONT');
  }
});
