/**
 * Honest states (issue #16) through the browser host in Chromium: a service is "ready" only
 * once it has answered; an unreachable one says why, when it last answered, and retries; a
 * credential is checked when saved; the rate-limit wait counts down in the answer and Retry
 * waits for it; the old tab says when the host is gone and reconnects when it is back.
 */
import { createServer } from 'node:net';
import { startService, type RunningService } from '../../src/service/server';
import { ChatPage, expect, saveCredential, startApp, stopApp, test, tokenFor } from './fixtures';

/** A loopback port where nothing listens (yet). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// This file's app replays the sample (--replay-sample) as the supervised service did before it
// became a fixed snapshot that reports no health: the health-view test reads rows and a drill-down.
// The last three tests share one app (`fileApp`); those that switch to another service, spend the
// ask quota or restart the host have their own.
test.use({ serviceArgs: ['--replay-sample'] });

test('switching to a service where nothing listens shows connecting, then the reason and a retry that connects once it is up', async ({ page, app, chat }, testInfo) => {
  await chat.open(app);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('service-remote').check();
  await page.getByTestId('service-url').fill(url);
  await page.getByTestId('service-save').click();

  // Not "ready": the status bar is red with the reason and when the service last answered.
  const state = page.getByTestId('service-state');
  await expect(state).toHaveText(/^unreachable — Could not reach the service at http:\/\/127\.0\.0\.1:\d+/);
  await expect(state).toContainText('Last answer: never.');
  await expect(page.locator('.status-bar .dot')).toHaveClass(/dot-unreachable/);
  const settingsState = page.getByTestId('settings-service-state');
  await expect(settingsState).toHaveAttribute('data-state', 'unreachable');
  await expect(settingsState).toContainText(`Cannot reach ${url}`);
  await expect(page.getByTestId('service-test')).toHaveText('Retry');
  await page.getByTestId('settings-service-state').screenshot({ path: testInfo.outputPath('settings-unreachable.png') });

  // The health view says what is wrong instead of loading forever.
  await page.getByTestId('nav-health').click();
  await expect(page.getByTestId('health-error')).toContainText('No health snapshot yet: Could not reach the service');
  await expect(page.getByTestId('health-loading')).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('health-unreachable.png') });

  // The service comes up there; Retry connects and the status turns ready.
  let service: RunningService | null = null;
  try {
    service = await startService({ port, liveFeed: false });
    // The app also tries again on its own (every 5 s at first): whichever comes first connects.
    // Retry is clicked while it is still offered; once the state is ready it is gone, rightly.
    const retry = page.getByTestId('service-retry');
    await expect(async () => {
      if (await retry.isVisible()) await retry.click({ timeout: 2_000 }).catch(() => undefined);
      await expect(state).toHaveText(/^ready/, { timeout: 5_000 });
    }).toPass({ timeout: 60_000 });
    await expect(retry).toHaveCount(0);
    await expect(page.getByTestId('health-overview')).toBeVisible();
    await page.getByTestId('nav-settings').click();
    await expect(settingsState).toHaveAttribute('data-state', 'ready');
    await expect(settingsState).toContainText(`Connected to ${url}; it last answered at`);
  } finally {
    await service?.close();
  }
});

test('research on a remote service without a credential asks for sign-in at the action, never as a failed run', async ({ page, app, chat }) => {
  // Issue 47: the embedded service makes the app its owner; only another service asks for sign-in.
  await chat.open(app);
  const port = await freePort();
  const service = await startService({ port, liveFeed: false });
  try {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('service-remote').check();
    await page.getByTestId('service-url').fill(`http://127.0.0.1:${port}`);
    await page.getByTestId('service-save').click();
    await expect(page.getByTestId('service-state')).toHaveText(/^ready/);
    await page.getByTestId('nav-research').click();
    await page.getByTestId('research-topic').fill('Zudio store openings in Tier 2 cities');
    await expect(page.getByTestId('research-needs-credential')).toContainText(`Research on 127.0.0.1:${port} needs you to sign in`);
    await expect(page.getByTestId('research-start')).toBeDisabled();
    await expect(page.getByTestId('research-run')).toHaveCount(0);
    await page.getByTestId('research-sign-in').click();
    await expect(page.getByTestId('credential-input')).toBeVisible();
  } finally {
    await service.close();
  }
});

test.describe('the ask quota', () => {
  // The app asks as the embedded service's owner (issue 47): the owner's quota is spent through the
  // app, on a service started with 2 asks per 60 s.
  test.use({ serviceArgs: ['--replay-sample', '--ask-limit', '2'] });

test('on 429 the answer counts down and its Retry waits until the service allows it', async ({ app, chat }) => {
  await chat.open(app);
  for (const question of ['Zudio stores in Pune', 'Nykaa in Delhi']) {
    await chat.ask(question);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  }
  await chat.ask('How fast is quick commerce growing in Bengaluru?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'failed');
  const error = chat.lastAnswer().getByTestId('answer-error');
  // Said once, by the app, not also "Retry in 54 s." from the service.
  await expect(error.locator('> span')).not.toContainText('Retry in');
  await expect(error.locator('> span')).toContainText(/Rate limit reached: .* You can ask again in \d+ s\.$/);
  const countdown = chat.lastAnswer().getByTestId('answer-retry-countdown');
  const seconds = async (): Promise<number> => Number((await countdown.innerText()).match(/in (\d+) s/)?.[1] ?? 0);
  const first = await seconds();
  expect(first).toBeGreaterThan(10);
  const retry = chat.lastAnswer().getByTestId('retry');
  await expect(retry).toBeDisabled();
  await expect(retry).toHaveText(/^Retry in \d+ s$/);
  await expect.poll(seconds, { timeout: 5_000 }).toBeLessThan(first);
});
});

test('the old tab says when the host has gone and reconnects by itself when it is back', async ({ page }, testInfo) => {
  const port = await freePort();
  let app = await startApp({ port });
  const chat = new ChatPage(page);
  try {
    await chat.open(app);
    await stopApp(app, { keepData: true });
    await expect(page.getByTestId('host-lost')).toContainText('The app host stopped');
    await expect(page.getByTestId('service-state')).toBeHidden();
    await page.getByTestId('status-bar').screenshot({ path: testInfo.outputPath('host-lost.png') });

    // Same data directory and port: the host keeps its session secret, so this tab's cookie still works.
    app = await startApp({ port, dataDir: app.dataDir, keychainService: app.keychainService });
    await expect(page.getByTestId('host-lost')).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByTestId('service-state')).toHaveText(/^ready/, { timeout: 30_000 });
    // A reload, too, opens the app without the one-time link.
    await page.reload();
    await expect(page.getByTestId('service-state')).toHaveText(/^ready/);
  } finally {
    await stopApp(app);
  }
});

test('the health view explains its figures and says when a filter matches nothing', async ({ page, fileApp, chat }, testInfo) => {
  await chat.open(fileApp);
  await page.getByTestId('nav-health').click();
  await expect(page.getByTestId('health-overview')).toBeVisible();
  // Figures in Indian grouping with a true percentage, and each one explained.
  // Issue 47: no reference feed, so no made-up figure; the health words are the service's own rule.
  await expect(page.getByTestId('stat-miss-rate')).toContainText('not measured — no reference feed');
  await page.getByTestId('health-explain').locator('summary').click();
  await expect(page.getByTestId('miss-rate-explained')).toContainText('Nothing is measured until a source is added as a reference feed');
  await expect(page.getByTestId('health-rule-explained')).toContainText('Degraded: anything else');
  await expect(page.getByTestId('health-explain')).toContainText('at least since the app first looked');

  await page.getByTestId('health-search').fill('no source is called this');
  await expect(page.getByTestId('health-no-match')).toContainText('No source matches “no source is called this”');
  await expect(page.getByTestId('health-row')).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('health-no-match.png') });
  await page.getByTestId('health-clear-filters').click();
  await expect(page.getByTestId('health-row').first()).toBeVisible();

  // A drill-down's first health entry is the app's first look, and says so.
  await page.getByTestId('health-row').first().click();
  await expect(page.getByTestId('health-timeline')).toContainText('since at least');
});

test('research on the local service needs no credential: the app is its owner', async ({ page, fileApp, chat }) => {
  await chat.open(fileApp);
  await page.getByTestId('nav-research').click();
  // Issue 47: nothing to set on the embedded service; sign-in is asked only by a remote one.
  await expect(page.getByTestId('caller')).toHaveText('You (owner of the local service)');
  await expect(page.getByTestId('research-needs-credential')).toHaveCount(0);
  // The preset is a choice of the known presets, and the local v1 wait is honest.
  await expect(page.getByTestId('research-preset').locator('option')).toHaveText(['Standard report']);
  await expect(page.getByTestId('research-mode').locator('option').first()).toHaveText('Wait for the report (a few seconds on this computer)');
  // No API version in the analyst's words (issue 47).
  await expect(page.getByTestId('research-mode')).not.toContainText(/\bv[12]\b/);
});

test('a credential is checked when saved, and Test credential says whether the service accepts it', async ({ page, fileApp, chat }, testInfo) => {
  // After the two tests above on the shared app: a credential saved makes the app someone other than its owner.
  await chat.open(fileApp);
  await saveCredential(page, 'not-a-real-token-at-all');
  const check = page.getByTestId('credential-check');
  await expect(check).toHaveAttribute('data-verdict', 'refused');
  await expect(check).toContainText('The service refused this credential as invalid or expired');
  await page.locator('section.settings').screenshot({ path: testInfo.outputPath('credential-refused.png') });

  await saveCredential(page, await tokenFor(fileApp, 'check@example.com'));
  await expect(check).toHaveAttribute('data-verdict', 'accepted');
  await page.getByTestId('credential-test').click();
  await expect(check).toContainText('The service accepts this credential');
});
