/**
 * Research end to end through the browser host against the real local service: a v1 run held
 * by main while the app stays usable, a v2 run that survives a restart of the app's main
 * process, the report viewer with a working citation chip, failure and retry, and a run
 * started from a chat answer's suggestion, and a topic run again opening with what changed, beside
 * its previous run.
 */
import { ChatPage, expect, ResearchPage, test, tokenFor } from './fixtures';

test.describe(() => {
  // The sample replayed: its sources carry (simulated) health, so the report records a health when cited.
  test.use({ serviceArgs: ['--research-ms=4000', '--replay-sample'] });

  test('a v1 run shows elapsed time while the app stays usable, then opens as a cited report', async ({ page, app, chat, research, settings, citations }, testInfo) => {
    await chat.open(app);
    await settings.saveCredential(await tokenFor(app, 'researcher@example.com'));
    const run = await research.start('Quick commerce in Bengaluru');
    await expect(run.root).toHaveAttribute('data-state', 'running');
    const firstDuration = await run.durationValue();
    // The elapsed time moves on while the run is held (the run takes 4 s).
    await expect.poll(() => run.durationValue()).toBeGreaterThan(firstDuration);

    // The app stays usable meanwhile: ask a question in chat.
    await chat.goTo('chat');
    await chat.ask('Zudio store openings');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');

    await research.goTo('research');
    await expect(run.root).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
    // Written locally by the extractive composer: nothing was bought, and the app says so.
    await expect(research.costPerDay).toContainText('Computed locally');
    await run.openReport.click();
    const viewer = research.viewer;
    await expect(viewer.meta).toContainText('Quick commerce in Bengaluru');
    await expect(viewer.meta).toContainText('standard');
    await expect(viewer.citationCount).toHaveText(/\d+ citations/);
    await expect(viewer.cost).toHaveText('Computed locally');
    await expect(viewer.verified).toHaveText(/^\d+ of \d+ sentences supported$/);
    for (const section of ['Overview', 'Key developments', 'Players involved', 'Key figures', 'Risks', 'Outlook']) {
      await expect(viewer.toc).toContainText(section);
    }
    // The table of contents follows the scroll.
    await viewer.toc.getByText('Outlook').click();
    await expect(viewer.activeTocEntry).toContainText(/Outlook|Risks/);
    await viewer.toc.getByText('Overview').click();
    // A citation chip opens the same side panel as chat.
    await viewer.chips.first().click();
    await expect(citations.root).toBeVisible();
    await expect(citations.healthWhenCited).toHaveText(/when cited: (healthy|degraded|down)/);
    await page.screenshot({ path: testInfo.outputPath('research-report-viewer.png') });
  });
});

test('a queued (v2) run keeps polling across a restart of the app and says when the report is ready', async ({ context, apps, chat, research, settings }) => {
  const first = await apps.start({ serviceArgs: ['--research-ms=8000'] });
  await chat.open(first);
  await settings.saveCredential(await tokenFor(first, 'queue@example.com'));
  await research.start('Tanishq jewellery in Kerala', { mode: 'queue' });
  await expect(research.latestRun().root).toHaveAttribute('data-state', 'queued');
  await apps.stop(first, { keepData: true });

  const second = await apps.start({ dataDir: first.dataDir, keychainService: first.keychainService, serviceArgs: ['--research-ms=8000'] });
  const research2 = new ResearchPage(await context.newPage());
  await new ChatPage(research2.page).open(second);
  await research2.goTo('research');
  const run = research2.latestRun().root;
  await expect(run).toContainText('Tanishq jewellery in Kerala');
  await expect(run).toHaveAttribute('data-state', /queued|completed/);
  await expect(run).toHaveAttribute('data-state', 'completed', { timeout: 60_000 });
  await expect(research2.appNotice).toContainText('Report ready: Tanishq jewellery in Kerala');
  await research2.appNotice.getByText('Open').click();
  await expect(research2.viewer.root).toContainText('Tanishq');
});

test.describe(() => {
  test.use({ serviceArgs: ['--research-ms=500'] });

  test('a failed run says why and can be retried; a chat suggestion starts a run in one click', async ({ app, chat, research, settings }) => {
    await chat.open(app);
    // Issue 47: with no credential the app is the local service's owner and research runs; a
    // credential the analyst sets wins, so a refused one makes a failed run that says why.
    await settings.saveCredential('not-a-valid-token-1234');
    await research.goTo('research');
    const failed = await research.start('DMart grocery stores in Pune');
    await expect(failed.root).toHaveAttribute('data-state', 'failed');
    await expect(failed.error).toContainText('The service refused your credential as invalid or expired');
    await expect(failed.root.getByTestId('run-error-settings')).toBeVisible();

    await settings.goTo('settings');
    await settings.credentialClear.click();
    await expect(settings.credentialStatus).toContainText('Nothing to set');
    await research.goTo('research');
    await failed.retry.click();
    await expect(failed.root).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });

    await chat.goTo('chat');
    await chat.ask('How fast is quick commerce growing in Bengaluru?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
    await chat.latest().runPromotedResearch.click();
    await expect(research.runsList).toContainText('Quick commerce in Bengaluru');
    await expect(research.latestRun().root).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  });
});

test.describe(() => {
  test.use({ serviceArgs: ['--research-ms=300'] });

  test('a topic run again opens with what changed, and shows beside its previous run with the differences marked', async ({ app, chat, research, settings }, testInfo) => {
    await chat.open(app);
    await settings.saveCredential(await tokenFor(app, 'weekly@example.com'));
    const first = await research.start('Quick commerce in tier-2 cities');
    await expect(first.root).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
    const second = await research.start('Quick commerce in tier-2 cities');
    await expect(second.root).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
    await expect(research.runs).toHaveCount(2);

    await second.openReport.click();
    const viewer = research.viewer;
    // The changed report's first section is what changed since the first run, cited.
    await expect(viewer.sectionHeadings.first()).toHaveText(/^What changed since \d{1,2} \w{3} \d{4}$/);
    await expect(viewer.toc.locator('li').nth(1)).toContainText('What changed since');
    await expect(viewer.cost).toHaveText('Computed locally');

    await viewer.compareButton.click();
    const compare = research.compare;
    await expect(compare.older).toContainText('Earlier run');
    await expect(compare.newer).toContainText('Later run');
    await expect(compare.newer).toContainText('What changed since');
    await expect(compare.older).not.toContainText('What changed since');
    // The section only the later run has is marked as new (and says so to a screen reader).
    await expect(compare.added.first()).toBeVisible();
    await expect(compare.added.first()).toContainText('New in this run');
    await expect(compare.summary).toHaveText(/^\d+ new, \d+ gone since /);
    await research.page.screenshot({ path: testInfo.outputPath('research-compare.png') });
    await compare.close.click();
    await expect(viewer.sectionHeadings.first()).toContainText('What changed since');
  });
});
