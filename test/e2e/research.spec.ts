/**
 * Research end to end through the browser host against the real local service: a v1 run held
 * by main while the app stays usable, a v2 run that survives a restart of the app's main
 * process, the report viewer with a working citation chip, failure and retry, and a run
 * started from a chat answer's suggestion.
 */
import { ChatPage, expect, saveCredential, startApp, stopApp, test, tokenFor } from './fixtures';

test('a v1 run shows elapsed time while the app stays usable, then opens as a cited report', async ({ page }, testInfo) => {
  const app = await startApp({ serviceArgs: ['--research-ms=4000'] });
  const chat = new ChatPage(page);
  try {
    await chat.open(app);
    await saveCredential(page, await tokenFor(app, 'researcher@example.com'));
    await page.getByTestId('nav-research').click();
    await page.getByTestId('research-topic').fill('Quick commerce in Bengaluru');
    await page.getByTestId('research-start').click();
    const run = page.getByTestId('research-run').first();
    await expect(run).toHaveAttribute('data-state', 'running');
    const firstDuration = Number((await run.getByTestId('run-duration').innerText()).replace(/\D/g, ''));
    await page.waitForTimeout(1_200);
    expect(Number((await run.getByTestId('run-duration').innerText()).replace(/\D/g, ''))).toBeGreaterThan(firstDuration);

    // The app stays usable meanwhile: ask a question in chat.
    await page.getByTestId('nav-chat').click();
    await chat.ask('Zudio store openings');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');

    await page.getByTestId('nav-research').click();
    await expect(run).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
    await expect(page.getByTestId('cost-per-day')).toContainText('$');
    await run.getByTestId('open-report').click();
    const viewer = page.getByTestId('report-viewer');
    await expect(viewer.getByTestId('report-meta')).toContainText('Quick commerce in Bengaluru');
    await expect(viewer.getByTestId('report-meta')).toContainText('standard');
    await expect(viewer.getByTestId('report-citation-count')).toHaveText(/\d+ citations/);
    await expect(viewer.getByTestId('report-cost')).toHaveText(/^US\$\d+(\.\d{1,6})?$/);
    for (const section of ['Overview', 'Key developments', 'Players involved', 'Key figures', 'Risks', 'Outlook']) {
      await expect(viewer.getByTestId('report-toc')).toContainText(section);
    }
    // The table of contents follows the scroll.
    await viewer.getByTestId('report-toc').getByText('Outlook').click();
    await expect(viewer.locator('.toc li.active')).toContainText(/Outlook|Risks/);
    await viewer.getByTestId('report-toc').getByText('Overview').click();
    // A citation chip opens the same side panel as chat.
    await viewer.getByTestId('citation-chip').first().click();
    await expect(page.getByTestId('citation-panel')).toBeVisible();
    await expect(page.getByTestId('citation-panel').getByTestId('health-when cited')).toHaveText(/when cited: (healthy|degraded|down)/);
    await page.screenshot({ path: testInfo.outputPath('research-report-viewer.png') });
  } finally {
    await stopApp(app);
  }
});

test('a queued (v2) run keeps polling across a restart of the app and says when the report is ready', async ({ browser }) => {
  const first = await startApp({ serviceArgs: ['--research-ms=8000'] });
  const context = await browser.newContext();
  const page = await context.newPage();
  const chat = new ChatPage(page);
  let second: Awaited<ReturnType<typeof startApp>> | null = null;
  try {
    await chat.open(first);
    await saveCredential(page, await tokenFor(first, 'queue@example.com'));
    await page.getByTestId('nav-research').click();
    await page.getByTestId('research-topic').fill('Tanishq jewellery in Kerala');
    await page.getByTestId('research-mode').selectOption('queue');
    await page.getByTestId('research-start').click();
    await expect(page.getByTestId('research-run').first()).toHaveAttribute('data-state', 'queued');
    await stopApp(first, { keepData: true });

    second = await startApp({ dataDir: first.dataDir, keychainService: first.keychainService, serviceArgs: ['--research-ms=8000'] });
    const page2 = await context.newPage();
    await new ChatPage(page2).open(second);
    await page2.getByTestId('nav-research').click();
    const run = page2.getByTestId('research-run').first();
    await expect(run).toContainText('Tanishq jewellery in Kerala');
    await expect(run).toHaveAttribute('data-state', /queued|completed/);
    await expect(run).toHaveAttribute('data-state', 'completed', { timeout: 60_000 });
    await expect(page2.getByTestId('app-notice')).toContainText('Report ready: Tanishq jewellery in Kerala');
    await page2.getByTestId('app-notice').getByText('Open').click();
    await expect(page2.getByTestId('report-viewer')).toContainText('Tanishq');
  } finally {
    await context.close();
    if (second) await stopApp(second);
    else await stopApp(first);
  }
});

test('a failed run says why and can be retried; a chat suggestion starts a run in one click', async ({ page }) => {
  const app = await startApp({ serviceArgs: ['--research-ms=500'] });
  const chat = new ChatPage(page);
  try {
    await chat.open(app);
    await page.getByTestId('nav-research').click();
    await page.getByTestId('research-topic').fill('DMart grocery stores in Pune');
    await page.getByTestId('research-start').click();
    const failed = page.getByTestId('research-run').first();
    await expect(failed).toHaveAttribute('data-state', 'failed');
    await expect(failed.getByTestId('run-error')).toContainText('Research needs you to be signed in to the service');
    await expect(failed.getByTestId('run-error-settings')).toBeVisible();

    await saveCredential(page, await tokenFor(app, 'retry@example.com'));
    await page.getByTestId('nav-research').click();
    await failed.getByTestId('retry-run').click();
    await expect(failed).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });

    await page.getByTestId('nav-chat').click();
    await chat.ask('How fast is quick commerce growing in Bengaluru?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
    await chat.lastAnswer().getByTestId('run-promoted-research').click();
    await expect(page.getByTestId('research-runs')).toContainText('Quick commerce in Bengaluru');
    await expect(page.getByTestId('research-run').first()).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  } finally {
    await stopApp(app);
  }
});
