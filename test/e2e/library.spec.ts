/**
 * The offline library end to end: save a report and an answer, stop the local service, reload
 * the app, find the report by searching for a cited source's name, and read it with its
 * citations from the snapshot. Export downloads and rename/tag/delete with undo too.
 */
import { expect, signalLocalService, test, tokenFor } from './fixtures';

test.use({ serviceArgs: ['--research-ms=500'] });

test('a saved report opens offline, found by a cited source, with its citations', async ({ page, app, chat, research, library, settings, citations }, testInfo) => {
  try {
    await chat.open(app);
    await settings.saveCredential(await tokenFor(app, 'library@example.com'));
    const run = await research.start('Tanishq jewellery in Kerala');
    await expect(run.root).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
    await run.openReport.click();
    const viewer = research.viewer;
    await viewer.saveButton.click();
    await expect(viewer.saved).toHaveText('Saved to the library.');
    // A cited source's name, read from the report's own sources.
    await viewer.chips.first().click();
    const sourceName = (await citations.source.innerText()).trim();
    const citationCount = await viewer.citationCountValue();

    // Also save a chat answer and export it (the browser host downloads the file).
    await chat.goTo('chat');
    await chat.ask('Zudio store openings');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
    const answer = chat.latest();
    await answer.saveButton.click();
    const download = page.waitForEvent('download');
    await answer.exportFormat.selectOption('pdf');
    expect((await download).suggestedFilename()).toBe('zudio-store-openings.pdf');

    // The service stops answering; the app reloads.
    await signalLocalService(app, 'SIGSTOP');
    await page.reload();
    await library.goTo('library');
    await library.search.fill(sourceName);
    const result = library.item('Tanishq jewellery in Kerala');
    await expect(result).toHaveCount(1);
    const reader = await library.openItem(result);
    await expect(reader.body).toContainText('Overview');
    const chips = reader.chips;
    expect(await chips.count()).toBeGreaterThanOrEqual(citationCount);
    await chips.first().click();
    const panel = citations;
    await expect(panel.title).not.toBeEmpty();
    await expect(panel.source).not.toBeEmpty();
    // Read offline from the saved report: the sample's source was recorded as not measured when cited.
    await expect(panel.healthWhenCited).toHaveText('when cited: not measured (sample)');
    await expect(panel.root).toContainText('Current health unavailable');
    expect(await panel.allCitations.count()).toBe(citationCount);
    await page.screenshot({ path: testInfo.outputPath('library-offline-report.png') });

    // Filters: by kind and by entity.
    await library.search.fill('');
    await library.filterKind.selectOption('answer');
    await expect(library.items).toHaveCount(1);
    await library.filterKind.selectOption('');
    await library.filterEntity.selectOption('Kerala');
    await expect(library.items).toHaveCount(1);
    await library.filterEntity.selectOption('');

    // Rename and tag; delete with undo.
    await reader.rename('Kerala jewellery — board pack', 'board, jewellery');
    await expect(library.item('Kerala jewellery — board pack')).toHaveCount(1);
    await library.filterTag.selectOption('board');
    await expect(library.items).toHaveCount(1);
    await library.filterTag.selectOption('');
    await reader.deleteButton.click();
    await expect(library.items).toHaveCount(1);
    await library.undoDelete.click();
    await expect(library.items).toHaveCount(2);
  } finally {
    // A frozen service would not stop: wake it before the fixture stops the app.
    await signalLocalService(app, 'SIGCONT').catch(() => undefined);
  }
});
