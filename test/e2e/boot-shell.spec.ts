/**
 * The start-up shell (index.html, app/boot-shell.ts): before the app's code has loaded, its
 * question box takes typing; when the app takes over, nothing typed is lost, the caret stays
 * where it was, and an Enter pressed meanwhile asks the question once the service can answer.
 * The app's main script is held back here, so the typing surely lands in the shell's box.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';

const QUESTION = 'How fast is quick commerce growing in Bengaluru?';

/** Holds the app's main script until `release` is called (the shell stays up meanwhile). */
async function holdAppScript(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

async function openWithShell(page: Page, app: { launchUrl: string }): Promise<void> {
  await page.goto(app.launchUrl, { waitUntil: 'commit' });
  await expect(page.locator('#boot-composer')).toBeVisible();
  await expect(page.locator('#boot-composer')).toBeFocused();
}

test('typing before the app has loaded is carried into its composer, caret and all', async ({ page, app }) => {
  const release = await holdAppScript(page);
  await openWithShell(page, app);
  // Typed into the shell's box (autofocused), then the caret moved back before "Bengaluru".
  await page.keyboard.type('How fast is quick commerce growing in?');
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('service-state')).toHaveCount(0);

  release();
  await expect(page.getByTestId('service-state')).toHaveText(/^ready/);
  await expect(page.locator('#boot-composer')).toHaveCount(0);
  const composer = page.getByTestId('composer-input');
  await expect(composer).toHaveValue('How fast is quick commerce growing in?');
  await expect(composer).toBeFocused();
  // The next keys go where the caret was left.
  await page.keyboard.type(' Bengaluru');
  await expect(composer).toHaveValue(QUESTION);
  // Nothing was asked: the question waits for the analyst.
  await expect(page.getByTestId('question')).toHaveCount(0);
});

test('Enter pressed before the app has loaded asks the question once the service is ready', async ({ page, app }) => {
  const release = await holdAppScript(page);
  await openWithShell(page, app);
  await page.keyboard.type(QUESTION);
  await page.keyboard.press('Enter');
  // Kept as a wish to ask, not a new line.
  await expect(page.locator('#boot-composer')).toHaveValue(QUESTION);

  release();
  await expect(page.getByTestId('question')).toHaveText([QUESTION]);
  await expect(page.getByTestId('answer').last()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('composer-input')).toHaveValue('');
  await expect(page.getByTestId('question')).toHaveCount(1);
});
