/**
 * A credential set in settings goes to the OS keychain: never into a file under the app's data
 * directory, never into the renderer (DOM, storage), never into the logs.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { probeKeychain } from '../../src/main/services/credential-store';
import { expect, test } from './fixtures';

const SECRET = 'ck_Q7mZr2VtX9pLk4Nw8Hs1Jd6Fb3Gc5Ye0';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

test('a credential saved in settings lives in the keychain only', async ({ page, app, chat }, testInfo) => {
  const probe = await probeKeychain(app.keychainService);
  if (process.env.CI === 'true') expect(probe.keychain, probe.detail).not.toBeNull();
  test.skip(!probe.keychain, `No OS keychain here (${probe.detail}); run through scripts/with-keychain.sh.`);

  await chat.open(app);
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('credential-input').fill(SECRET);
  await page.getByTestId('credential-present-as').selectOption('x-api-key');
  await page.getByTestId('credential-save').click();
  await expect(page.getByTestId('credential-status')).toHaveText(`An API key ending in …${SECRET.slice(-4)} is set.`);
  await expect(page.getByTestId('credential-backend')).toContainText('Stored in the OS keychain');
  await expect(page.getByTestId('credential-input')).toHaveValue('');
  await page.screenshot({ path: testInfo.outputPath('settings-credential.png') });

  // It is used: the app still answers with the credential attached.
  await page.getByTestId('nav-chat').click();
  await chat.ask('Nykaa beauty stores in Mumbai');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');

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

  await page.getByTestId('nav-settings').click();
  await page.getByTestId('credential-clear').click();
  await expect(page.getByTestId('credential-status')).toHaveText('No credential set: you ask anonymously.');
  expect(await probe.keychain!.getPassword(app.keychainService, 'retail-signal-credential')).toBeNull();
});
