/**
 * A data directory the analyst may not write to (a locked-down profile, a read-only mount): the
 * app still starts, keeps everything readable, answers, and says what it cannot do. The host runs
 * as the unprivileged `nobody` user, because root ignores file permissions.
 */
import { execFileSync } from 'node:child_process';
import { chmod, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from './fixtures';

const QUESTION = 'How fast is quick commerce growing in Bengaluru?';

test('a read-only data directory: the app starts, shows what it has, answers, and says what it cannot write', async ({ page, apps, chat }) => {
  test.skip(process.getuid?.() !== 0, 'Needs root to run the host as another user (root itself ignores file permissions).');
  // First a normal run that leaves a conversation behind.
  const first = await apps.start();
  await chat.open(first);
  await chat.ask(QUESTION);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await apps.stop(first, { keepData: true });

  // Then the same folder, readable but not writable for the user running the app.
  execFileSync('chmod', ['-R', 'a+rX', first.dataDir]);
  await chmod(first.dataDir, 0o755);
  const before = (await readdir(first.dataDir)).sort();
  const readOnly = await apps.start({ dataDir: first.dataDir, runAsUser: 'nobody' });
  await chat.open(readOnly);

  // What was there is readable.
  await expect(chat.conversations.filter({ hasText: QUESTION })).toHaveCount(1);
  // The analyst is told why there are no log files, and that the local service's data is temporary.
  const notices = page.getByTestId('data-notice');
  await expect(notices.filter({ hasText: `Clarity cannot write its log files in ${join(first.dataDir, 'logs')}` })).toHaveCount(1);
  await expect(notices.filter({ hasText: 'it uses' }).filter({ hasText: 'for this run' })).toHaveCount(1);

  // A follow-up is answered by the embedded service, though it cannot be saved.
  await chat.conversations.filter({ hasText: QUESTION }).click();
  await chat.ask('And what about Pune?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await expect(chat.latest().body).toContainText('Pune');
  // Saving fails, and the app says so plainly.
  await expect(notices.filter({ hasText: `Clarity cannot write to its data folder ${first.dataDir}` })).toHaveCount(1);
  // Nothing was written into the folder.
  expect((await readdir(first.dataDir)).sort()).toEqual(before);
});
