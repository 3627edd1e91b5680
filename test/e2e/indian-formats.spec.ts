/**
 * Indian formats through the browser host (issue #16): costs as the user chooses (USD as sent,
 * or rupees at their rate), dates as "18 Nov 2026", times with the zone, days typed day first.
 */
import { expect, saveCredential, test, tokenFor } from './fixtures';

test('costs follow the display setting, and dates and times read the Indian way', async ({ page, fileApp, chat }, testInfo) => {
  await chat.open(fileApp);
  await saveCredential(page, await tokenFor(fileApp, 'formats@example.com'));
  await page.getByTestId('nav-research').click();
  await page.getByTestId('research-topic').fill('Zepto in Bengaluru');
  await page.getByTestId('research-start').click();
  const run = page.getByTestId('research-run').first();
  await expect(run).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  // Issue 46: the local service's extractive run bought nothing, and says so instead of a made-up cost.
  await expect(run.getByTestId('run-cost')).toHaveText('Computed locally');
  await expect(run.locator('time')).toHaveText(/^\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d{2}:\d{2} IST$/);

  await page.getByTestId('nav-settings').click();
  await page.getByTestId('display-currency').selectOption('inr');
  await page.getByTestId('display-rate').fill('84.5');
  await page.getByTestId('display-save').click();
  await expect(page.getByTestId('display-message')).toContainText('A cost of US$0.012 now reads ₹1.01 (US$0.012)');
  await page.getByTestId('display-settings').screenshot({ path: testInfo.outputPath('display-settings.png') });

  // A local run stays "computed locally" in any currency.
  await page.getByTestId('nav-research').click();
  await expect(run.getByTestId('run-cost')).toHaveText('Computed locally');
  await page.screenshot({ path: testInfo.outputPath('research-costs-in-rupees.png') });

  // The setting is kept: a reload shows rupees still.
  await page.reload();
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('display-currency')).toHaveValue('inr');
});

test('the library takes days typed day first instead of the US date picker', async ({ page, fileApp, chat }) => {
  // The file's app, after the test above (rupees shown, a research run, no answer saved): the library starts empty.
  await chat.open(fileApp);
  await chat.ask('How is DMart doing in Pune?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await chat.lastAnswer().getByTestId('save-answer').click();
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  const from = page.getByTestId('library-from');
  await from.fill('01/01/2099');
  await from.press('Enter');
  await expect(from).toHaveValue('1 Jan 2099');
  await expect(page.getByTestId('library-item')).toHaveCount(0);
  await from.fill('31/02/2026');
  await from.press('Enter');
  await expect(from).toHaveAttribute('aria-invalid', 'true');
  await from.fill('');
  await from.press('Enter');
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  // Saved items carry a date like "23 Nov 2026".
  await expect(page.getByTestId('library-item').first()).toContainText(/\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}/);
});
