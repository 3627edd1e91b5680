/**
 * A credential set in settings goes to the OS keychain: never into a file under the app's data
 * directory, never into the renderer (DOM, storage), never into the logs.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { probeKeychain } from '../../src/main/services/credentials/credential-store';
import { expect, test, tokenFor } from './fixtures';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

// This file's app replays the sample (--replay-sample) as the supervised service did before it
// became a fixed snapshot that reports no health: the refused-credential test reads health rows.
test.use({ serviceArgs: ['--replay-sample'] });

test('a credential saved in settings lives in the keychain only', async ({ page, fileApp: app, chat, settings, statusBar }, testInfo) => {
  const probe = await probeKeychain(app.keychainService);
  if (process.env.CI === 'true') expect(probe.keychain, probe.detail).not.toBeNull();
  test.skip(!probe.keychain, `No OS keychain here (${probe.detail}); run through scripts/with-keychain.sh.`);

  await chat.open(app);
  // A real API key, issued by the running service to a user of its identity provider.
  const jwt = await tokenFor(app, 'analyst@example.com');
  const issued = await page.request.post(`${await statusBar.serviceUrl()}/api/v1/keys`, { headers: { authorization: `Bearer ${jwt}` }, data: {} });
  expect(issued.status()).toBe(201);
  const SECRET = ((await issued.json()) as { key: string }).key;
  await settings.saveCredential(SECRET, { presentAs: 'x-api-key', expectSet: false });
  await expect(settings.credentialStatus).toHaveText(`An API key ending in …${SECRET.slice(-4)} is set.`);
  await expect(settings.credentialBackend).toContainText('Stored in the OS keychain');
  await expect(settings.credentialInput).toHaveValue('');
  await page.screenshot({ path: testInfo.outputPath('settings-credential.png') });

  // It is used: the service accepts it and counts the answer against the user's own bucket.
  await chat.goTo('chat');
  await chat.ask('Nykaa beauty stores in Mumbai');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await expect(statusBar.rateRemaining).toHaveText('29 requests left this minute');

  // In the real keychain…
  expect(await probe.keychain!.getPassword(app.keychainService, 'retail-signal-credential')).toBe(SECRET);
  // …nowhere in the renderer…
  const rendererText = await page.evaluate(() => [document.documentElement.outerHTML, JSON.stringify(localStorage), JSON.stringify(sessionStorage), document.cookie].join('\n'));
  expect(rendererText).not.toContain(SECRET);
  expect(rendererText).toContain(SECRET.slice(-4));
  // …no file under the data directory…
  for (const file of await filesUnder(app.dataDir)) expect(await readFile(file, 'utf8'), file).not.toContain(SECRET);
  // …and no log line.
  expect(app.logs()).not.toContain(SECRET);

  await settings.goTo('settings');
  await settings.credentialClear.click();
  // Cleared, the app is the embedded service's owner again (issue 47): nothing to type.
  await expect(settings.credentialStatus).toHaveText(/^Nothing to set: the local service knows this app as its owner/);
  expect(await probe.keychain!.getPassword(app.keychainService, 'retail-signal-credential')).toBeNull();
});

test('a credential the service refuses does not blank the app: the answer and health still come, and the user is told to renew it', async ({ page, fileApp, chat, settings, health, statusBar }, testInfo) => {
  // The file's app, after the test above (which clears its credential): asked in a conversation of its own.
  await chat.open(fileApp);
  await chat.startNewConversation();
  await settings.saveCredential('ck_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  await chat.goTo('chat');
  await chat.ask('Which fashion chains are opening stores in tier-2 cities?');
  // Ask is open to anonymous callers (issue #14): the request is repeated without the credential.
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await expect(statusBar.credentialRejected).toContainText('invalid or expired');
  await page.screenshot({ path: testInfo.outputPath('status-bar-after-401.png') });
  await health.goTo('health');
  await expect(health.rows.first()).toBeVisible();
  await settings.goTo('settings');
  await expect(settings.credentialRejectedNotice).toContainText('The API key is not valid');
  await expect(settings.credentialRejectedNotice).toContainText('renew the credential');
  await page.screenshot({ path: testInfo.outputPath('settings-after-401.png') });
  // Clearing (or replacing) the credential clears the warning.
  await settings.credentialClear.click();
  await expect(settings.credentialRejectedNotice).toHaveCount(0);
  await expect(statusBar.credentialRejected).toHaveCount(0);
});

test.describe(() => {
  test.use({ serviceArgs: ['--research-ms=1500'] });

  test('"Get a development token" asks the embedded service for one, keeps it in main, and research accepts it', async ({ page, app, chat, settings, research }) => {
    await chat.open(app);
    await settings.goTo('settings');
    await settings.devTokenEmail.fill('not-an-email');
    await settings.devTokenGet.click();
    await expect(page.getByRole('status').filter({ hasText: 'Enter an email address' })).toBeVisible();
    await settings.devTokenEmail.fill('analyst@example.com');
    await settings.devTokenGet.click();
    await expect(settings.credentialStatus).toContainText('A JWT ending in');
    // SECURITY: the token itself never reaches the renderer.
    expect(await page.content()).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./);
    const run = await research.start('Quick commerce in Bengaluru');
    // Research is for authenticated callers only: it completes with the development token.
    await expect(run.root).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  });
});
