/**
 * Accessibility (issue 16): axe-core checks every view, in its fullest state (citation panel
 * or drill-down open), in the light and the dark theme, and finds nothing critical or serious.
 * The theme is chosen in Settings as a user would; the choice survives a reload.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, oneAppForThisFile, test } from './fixtures';
import { FAST_RESEARCH, openView, prepareData, VIEWS } from './views';

/** Critical and serious findings, one line each with where they are. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'critical' || violation.impact === 'serious')
    .flatMap((violation) => violation.nodes.slice(0, 5).map((node) => `${violation.id} (${violation.impact}): ${node.target.join(' ')} — ${node.failureSummary?.split('\n')[1]?.trim() ?? ''}`));
}

// The health view's rows and drill-down come from the replayed sample (it reports no health otherwise).
const app = oneAppForThisFile({ serviceArgs: [...FAST_RESEARCH, '--replay-sample'] });

for (const theme of ['light', 'dark'] as const) {
  test(`axe finds nothing critical or serious on any view in the ${theme} theme`, async ({ page, chat }, testInfo) => {
    test.setTimeout(300_000);
    await page.setViewportSize({ width: 1280, height: 860 });
    await chat.open(app());
    if (theme === 'light') await prepareData(page, chat);
    await page.getByTestId('nav-settings').click();
    await page.getByTestId(`theme-${theme}`).check();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    // Kept by main with the settings: a reload comes back in the same theme.
    await page.reload();
    await expect(page.getByTestId('service-state')).toHaveText(/^ready/);
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(background, 'the page background follows the theme').toBe(theme === 'dark' ? 'rgb(16, 21, 28)' : 'rgb(246, 247, 249)');

    const found: string[] = [];
    for (const view of VIEWS) {
      await openView(page, view);
      await page.screenshot({ path: testInfo.outputPath(`${theme}-${view}.png`) });
      found.push(...(await seriousViolations(page)).map((line) => `${view}: ${line}`));
    }
    expect(found).toEqual([]);
  });
}

test('the theme follows the system until one is chosen', async ({ browser }) => {
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  try {
    await page.context().addCookies([{ ...app().session!, url: app().origin }]);
    await page.goto(app().origin);
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('theme-system').check();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'system');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(16, 21, 28)');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(246, 247, 249)');
  } finally {
    await context.close();
  }
});
