/**
 * The "layout and flow" points of issue 16, each as a user would check it: a follow-up asked
 * while scrolled up comes into view; the chip preview sits by its chip with a readable date;
 * Esc closes the citation panel, the toolbar menu and the conversation drawer and gives the
 * focus back; the panel's "now" health is asked again while it stays open; the report-ready
 * notice leaves the report's metadata visible; a stale notice goes away; the library shows no
 * debug timing; the report's contents marker and citation list read right.
 */
import type { Locator } from '@playwright/test';
import { expect, oneAppForThisFile, test } from './fixtures';
import { FAST_RESEARCH } from './views';

// The health view's rows come from the replayed sample (it reports no health otherwise).
const app = oneAppForThisFile({ serviceArgs: [...FAST_RESEARCH, '--replay-sample'] });

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  expect(found).not.toBeNull();
  return found!;
}

test('a follow-up asked while scrolled up comes into view, and so does its answer', async ({ page, chat }) => {
  await chat.open(app());
  await chat.ask('How fast is quick commerce growing in Bengaluru?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  const messages = page.getByTestId('messages');
  await messages.evaluate((element) => (element.scrollTop = 0));
  await expect(page.getByTestId('question').first()).toBeInViewport();

  await chat.ask('And in Pune?');
  // The new question shows at once, with the answer's state beside it, even though the reader was at the top.
  await expect(page.getByTestId('question').last()).toHaveText('And in Pune?');
  await expect(page.getByTestId('question').last()).toBeInViewport();
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  // It stays there to be read from its start (no following to the end): the question, the answer under it.
  await expect(page.getByTestId('question').last()).toBeInViewport();
  await expect(chat.lastAnswer().getByTestId('answer-body')).toBeInViewport();
});

test('a question asked at the bottom of the list is followed to the end of its answer, as before', async ({ page, chat }) => {
  await chat.open(app());
  const messages = page.getByTestId('messages');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await messages.evaluate((element) => (element.scrollTop = element.scrollHeight));
  await chat.ask('And in Hyderabad?');
  await expect(page.getByTestId('question').last()).toHaveText('And in Hyderabad?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await expect.poll(() => messages.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight)).toBeLessThan(80);
});

test('the chip preview sits by its chip, is readable and gives a human date', async ({ page, chat }) => {
  await chat.open(app());
  const answer = chat.latest();
  const chip = answer.allChips.first();
  const preview = await answer.previewChip(chip);
  await expect(preview).toBeVisible();
  const chipBox = await box(chip);
  const previewBox = await box(preview);
  expect(previewBox.width, 'wide enough for a line of text').toBeGreaterThanOrEqual(300);
  // Starts at the chip, or moves left just enough to stay in the window: the chip is always above or below it.
  expect(chipBox.x, 'the chip is within the preview horizontally').toBeGreaterThanOrEqual(previewBox.x - 1);
  expect(chipBox.x + chipBox.width).toBeLessThanOrEqual(previewBox.x + previewBox.width + 1);
  expect(previewBox.x + previewBox.width, 'inside the window').toBeLessThanOrEqual(page.viewportSize()!.width);
  const gap = previewBox.y >= chipBox.y ? previewBox.y - (chipBox.y + chipBox.height) : chipBox.y - (previewBox.y + previewBox.height);
  expect(gap, 'right under (or over) the chip').toBeLessThan(20);
  await expect(preview).toContainText(/· \d{1,2} [A-Z][a-z]{2} \d{4}/);
  await expect(preview).not.toContainText(/\d{4}-\d{2}-\d{2}/);
});

test('Esc closes the citation panel and gives the focus back to the chip; the keyboard alone opens it', async ({ page, chat }) => {
  await chat.open(app());
  const chip = chat.lastAnswer().getByTestId('citation-chip').first();
  const panel = page.getByTestId('citation-panel');
  await chip.focus();
  await page.keyboard.press('Enter');
  await expect(panel).toBeVisible();
  await page.getByTestId('close-citation-panel').focus();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(chip).toBeFocused();

  await chip.click();
  await expect(panel).toBeVisible();
  await page.getByTestId('close-citation-panel').click();
  await expect(panel).toBeHidden();
  await expect(chip).toBeFocused();
});

test('at 760 px, Esc closes the toolbar menu and the conversation drawer, focus back on their buttons', async ({ page, chat }) => {
  await page.setViewportSize({ width: 760, height: 700 });
  await chat.open(app());
  const more = page.getByTestId('toolbar-more');
  await expect(more).toBeVisible();
  await expect(page.getByTestId('save-conversation')).toBeHidden();
  await more.click();
  await expect(more).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('save-conversation')).toBeVisible();
  await page.getByTestId('save-conversation').focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('save-conversation')).toBeHidden();
  await expect(more).toBeFocused();
  // A press outside closes it too.
  await more.click();
  await expect(page.getByTestId('share')).toBeVisible();
  await page.getByTestId('conversation-title').click();
  await expect(page.getByTestId('share')).toBeHidden();

  const toggle = page.getByTestId('conversations-toggle');
  await expect(page.getByTestId('conversation-list')).toBeHidden();
  await toggle.click();
  await expect(page.getByTestId('conversation-list')).toBeVisible();
  await page.getByTestId('new-conversation').focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('conversation-list')).toBeHidden();
  await expect(toggle).toBeFocused();
  // Opening a conversation from the drawer closes it.
  await toggle.click();
  await page.getByTestId('conversation-item').first().locator('.conversation-title').click();
  await expect(page.getByTestId('conversation-list')).toBeHidden();
});

test('the panel asks for the source health "now" again while it stays open', async ({ page, chat }) => {
  await page.clock.install();
  await chat.open(app());
  await chat.lastAnswer().getByTestId('citation-chip').first().click();
  const now = page.getByTestId('citation-panel').getByTestId('health-now');
  await expect(now).toHaveAttribute('data-checked-at', /\d+/);
  const first = Number(await now.getAttribute('data-checked-at'));
  await page.clock.runFor(31_000);
  await expect.poll(async () => Number(await now.getAttribute('data-checked-at'))).toBeGreaterThan(first);
  await expect(now).toHaveText(/^now: (healthy|degraded|down)/);
});

test('a stale notice about a rename goes away with Esc and with the next action', async ({ page, chat }) => {
  await chat.open(app());
  const item = page.getByTestId('conversation-item').first();
  await item.hover();
  await item.getByTestId('rename-conversation').click();
  await page.getByTestId('rename-input').fill('   ');
  await page.getByTestId('rename-input').press('Enter');
  const notice = page.getByTestId('chat-notice');
  await expect(notice).toContainText('A title cannot be empty');
  await page.getByTestId('rename-input').press('Escape');
  await expect(notice).toBeHidden();
  await expect(page.getByTestId('rename-input')).toBeHidden();

  await item.hover();
  await item.getByTestId('rename-conversation').click();
  await page.getByTestId('rename-input').fill('');
  await page.getByTestId('rename-input').press('Enter');
  await expect(notice).toBeVisible();
  await page.getByTestId('rename-input').fill('Quick commerce, Bengaluru and Pune');
  await page.getByTestId('rename-input').press('Enter');
  await expect(notice).toBeHidden();
  await expect(page.getByTestId('conversation-title')).toHaveText('Quick commerce, Bengaluru and Pune');
});

test('report: the ready notice leaves the metadata visible; the contents marker and the source list read right; the library shows no timing', async ({ page, chat }) => {
  await chat.open(app());
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('dev-token-email').fill('analyst@example.com');
  await page.getByTestId('dev-token-get').click();
  await expect(page.getByTestId('credential-status')).toContainText('is set');
  await page.getByTestId('nav-research').click();
  await page.getByTestId('research-topic').fill('Jewellery retail in Kerala');
  await page.getByTestId('research-start').click();
  const run = page.getByTestId('research-run').first();
  await expect(run).toHaveAttribute('data-state', 'completed');
  const notice = page.getByTestId('app-notice');
  await expect(notice).toContainText('Report ready');
  await run.getByTestId('open-report').click();
  const meta = page.getByTestId('report-meta');
  await expect(meta).toBeVisible();
  await expect(notice).toBeVisible();
  const [noticeBox, metaBox] = [await box(notice), await box(meta)];
  expect(noticeBox.y + noticeBox.height, 'the notice ends above the metadata').toBeLessThanOrEqual(metaBox.y);
  // The save button in the metadata is not under anything.
  await page.getByTestId('save-report').click({ trial: true });

  const active = page.locator('.toc li.active button');
  await expect(active).toBeVisible();
  expect(await active.evaluate((element) => getComputedStyle(element).borderTopLeftRadius)).toBe('0px');

  await page.getByTestId('report-body').getByTestId('citation-chip').first().click();
  await expect(page.getByTestId('citation-panel').locator('h4')).toHaveText('Sources cited in this report');

  await page.getByTestId('save-report').click();
  await expect(page.getByTestId('report-saved')).toHaveText('Saved to the library.');
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('library-count')).toHaveText(/^\d+ items?$/);
});

test('the keyboard alone renames a conversation and opens and closes a source drill-down', async ({ page, chat }) => {
  await chat.open(app());
  const item = page.getByTestId('conversation-item').first();
  await item.locator('.conversation-title').focus();
  // The row's tools in order: pin, rename, delete.
  await page.keyboard.press('Tab');
  await expect(item.getByTestId('pin-conversation')).toBeFocused();
  await expect(item.getByTestId('pin-conversation')).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(item.getByTestId('rename-conversation')).toBeFocused();
  await expect(item.getByTestId('rename-conversation')).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('rename-input')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('rename-input')).toBeHidden();

  await page.getByTestId('nav-health').focus();
  await page.keyboard.press('Enter');
  const rowButton = page.getByTestId('health-row').first().getByRole('button');
  await rowButton.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('source-drilldown')).toBeVisible();
  await expect(rowButton).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('source-drilldown')).toBeHidden();
  await expect(page.getByTestId('health-row').first().getByRole('button')).toBeFocused();
  // The table scrolls from the keyboard too: its scroller takes the focus.
  await page.getByTestId('health-scroll').focus();
  await page.keyboard.press('PageDown');
  await expect.poll(() => page.getByTestId('health-scroll').evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
});
