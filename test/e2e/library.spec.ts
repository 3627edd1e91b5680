/**
 * The offline library end to end: save a report and an answer, stop the local service, reload
 * the app, find the report by searching for a cited source's name, and read it with its
 * citations from the snapshot. Export downloads and rename/tag/delete with undo too.
 */
import { ChatPage, expect, saveCredential, signalLocalService, startApp, stopApp, test, tokenFor } from './fixtures';

test('a saved report opens offline, found by a cited source, with its citations', async ({ page }, testInfo) => {
  const app = await startApp({ serviceArgs: ['--research-ms=500'] });
  const chat = new ChatPage(page);
  try {
    await chat.open(app);
    await saveCredential(page, await tokenFor(app, 'library@example.com'));
    await page.getByTestId('nav-research').click();
    await page.getByTestId('research-topic').fill('Tanishq jewellery in Kerala');
    await page.getByTestId('research-start').click();
    await expect(page.getByTestId('research-run').first()).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
    await page.getByTestId('open-report').first().click();
    await page.getByTestId('save-report').click();
    await expect(page.getByTestId('report-saved')).toHaveText('Saved to the library.');
    // A cited source's name, read from the report's own sources.
    await page.getByTestId('citation-chip').first().click();
    const sourceName = (await page.getByTestId('panel-source').innerText()).trim();
    const citationCount = Number((await page.getByTestId('report-citation-count').innerText()).match(/\d+/)![0]);

    // Also save a chat answer and export it (the browser host downloads the file).
    await page.getByTestId('nav-chat').click();
    await chat.ask('Zudio store openings');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
    await chat.lastAnswer().getByTestId('save-answer').click();
    const download = page.waitForEvent('download');
    await chat.lastAnswer().getByTestId('export-format').selectOption('pdf');
    expect((await download).suggestedFilename()).toBe('zudio-store-openings.pdf');

    // The service stops answering; the app reloads.
    await signalLocalService(app, 'SIGSTOP');
    await page.reload();
    await page.getByTestId('nav-library').click();
    await page.getByTestId('library-search').fill(sourceName);
    const result = page.getByTestId('library-item').filter({ hasText: 'Tanishq jewellery in Kerala' });
    await expect(result).toHaveCount(1);
    await result.getByRole('button').click();
    const reader = page.getByTestId('library-reader');
    await expect(reader.getByTestId('library-body')).toContainText('Overview');
    const chips = reader.getByTestId('citation-chip');
    expect(await chips.count()).toBeGreaterThanOrEqual(citationCount);
    await chips.first().click();
    const panel = page.getByTestId('citation-panel');
    await expect(panel.getByTestId('panel-title')).not.toBeEmpty();
    await expect(panel.getByTestId('panel-source')).not.toBeEmpty();
    await expect(panel.getByTestId('health-when cited')).toHaveText(/when cited: (healthy|degraded|down)/);
    await expect(panel).toContainText('Current health unavailable');
    expect(await panel.getByTestId('panel-all-citations').locator('li').count()).toBe(citationCount);
    await page.screenshot({ path: testInfo.outputPath('library-offline-report.png') });

    // Filters: by kind and by entity.
    await page.getByTestId('library-search').fill('');
    await page.getByTestId('library-filter-kind').selectOption('answer');
    await expect(page.getByTestId('library-item')).toHaveCount(1);
    await page.getByTestId('library-filter-kind').selectOption('');
    await page.getByTestId('library-filter-entity').selectOption('Kerala');
    await expect(page.getByTestId('library-item')).toHaveCount(1);
    await page.getByTestId('library-filter-entity').selectOption('');

    // Rename and tag; delete with undo.
    await reader.getByTestId('library-title').fill('Kerala jewellery — board pack');
    await reader.getByTestId('library-tags').fill('board, jewellery');
    await reader.getByTestId('library-save-meta').click();
    await expect(page.getByTestId('library-item').filter({ hasText: 'Kerala jewellery — board pack' })).toHaveCount(1);
    await page.getByTestId('library-filter-tag').selectOption('board');
    await expect(page.getByTestId('library-item')).toHaveCount(1);
    await page.getByTestId('library-filter-tag').selectOption('');
    await reader.getByTestId('library-delete').click();
    await expect(page.getByTestId('library-item')).toHaveCount(1);
    await page.getByTestId('library-undo-delete').click();
    await expect(page.getByTestId('library-item')).toHaveCount(2);
  } finally {
    await signalLocalService(app, 'SIGCONT').catch(() => undefined);
    await stopApp(app);
  }
});
