/**
 * Every view of the app in a state worth looking at (an answer with its citation panel open, a
 * report open, a source's drill-down…), for the layout and accessibility specs. The data is
 * made once per app through the UI, as a user would, against the real local service.
 */
import type { Page } from '@playwright/test';
import { expect, type ChatPage } from './fixtures';
import { VIEW_REGISTRY, type View } from '../../src/renderer/src/app/view-registry';

/** Every view, from the renderer's registry (the one list of them). */
export const VIEWS: readonly View[] = VIEW_REGISTRY.map((view) => view.id);

/** Start the app with this so a research run finishes in well under a second. */
export const FAST_RESEARCH = ['--research-ms=300'];

/**
 * A development token, an answer saved to the library, a finished research report and a
 * follow: what the views need to show their full selves.
 */
export async function prepareData(page: Page, chat: ChatPage): Promise<void> {
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('dev-token-email').fill('analyst@example.com');
  await page.getByTestId('dev-token-get').click();
  await expect(page.getByTestId('credential-status')).toContainText('is set');

  await page.getByTestId('nav-chat').click();
  await chat.ask('How fast is quick commerce growing in Bengaluru?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await chat.lastAnswer().getByTestId('save-answer').click();
  await expect(chat.lastAnswer().getByRole('status')).toHaveText('Saved to the library');

  await page.getByTestId('nav-research').click();
  await page.getByTestId('research-topic').fill('Quick commerce in Bengaluru');
  await page.getByTestId('research-start').click();
  await expect(page.getByTestId('research-run').first()).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });

  await page.getByTestId('nav-discover').click();
  await page.getByTestId('discover-query').fill('grocery prices');
  await page.getByTestId('discover-segment').selectOption('grocery');
  await page.getByTestId('discover-search').click();
  await expect(page.getByTestId('discover-results')).toHaveAttribute('data-shown-for', 'grocery prices grocery');
  await page.getByTestId('discover-item').first().click();
  await page.getByTestId('follow-segment').click();
  await expect(page.getByTestId('follow-message')).toHaveText('Following grocery.');
}

/** Opens one view in its fullest state: with the citation panel (or drill-down) open where there is one. */
export async function openView(page: Page, view: View): Promise<void> {
  const panel = page.getByTestId('citation-panel');
  switch (view) {
    case 'chat': {
      await page.getByTestId('nav-chat').click();
      const answer = page.getByTestId('answer').last();
      await expect(answer).toHaveAttribute('data-status', 'done');
      await answer.getByTestId('citation-chip').first().click();
      await expect(panel).toBeVisible();
      await expect(panel.getByTestId('health-now')).not.toHaveText(/checking/);
      break;
    }
    case 'research': {
      await page.getByTestId('nav-research').click();
      await expect(page.getByTestId('report-viewer').or(page.getByTestId('research-runs'))).toBeVisible();
      if (!(await page.getByTestId('report-viewer').isVisible())) await page.getByTestId('research-run').first().getByTestId('open-report').click();
      await page.getByTestId('report-viewer').getByTestId('citation-chip').first().click();
      await expect(panel).toBeVisible();
      break;
    }
    case 'health':
      await page.getByTestId('nav-health').click();
      await page.getByTestId('health-row').first().click();
      await expect(page.getByTestId('source-drilldown')).toBeVisible();
      await expect(page.getByTestId('source-citing')).not.toContainText('Looking');
      break;
    case 'library':
      await page.getByTestId('nav-library').click();
      await page.getByTestId('library-item').first().locator('button').click();
      await page.getByTestId('library-body').getByTestId('citation-chip').first().click();
      await expect(panel).toBeVisible();
      break;
    case 'discover':
      await page.getByTestId('nav-discover').click();
      await page.getByTestId('discover-item').first().click();
      await expect(panel).toBeVisible();
      break;
    case 'watchlist':
      await page.getByTestId('nav-watchlist').click();
      await expect(page.getByTestId('watchlist-follows')).toContainText('segment: grocery');
      break;
    case 'settings':
      await page.getByTestId('nav-settings').click();
      await expect(page.getByTestId('credential-status')).toContainText('is set');
      break;
  }
}
