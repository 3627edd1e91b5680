/**
 * Conversation tools (issue #16) through the browser host: full titles, search across titles
 * and answers, pin, edit and resend a question, regenerate an answer.
 */
import { expect, test } from './fixtures';

const LONG = 'How many dark stores does Zepto operate in Mumbai and Bengaluru, and which retailer is expanding fastest there?';
const SHORT = 'How is DMart doing in Pune?';

test('titles are kept whole, conversations are searched by title and answer, and a pinned one stays on top', async ({ page, fileApp, chat }, testInfo) => {
  // The first test on the file's shared app: no conversation yet.
  await chat.open(fileApp);
  await expect(page.getByTestId('conversations-empty')).toBeVisible();
  await chat.ask(LONG);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  const answerText = await chat.lastAnswer().getByTestId('answer-body').innerText();
  await page.getByTestId('new-conversation').click();
  await chat.ask(SHORT);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');

  const items = page.getByTestId('conversation-item');
  await expect(items).toHaveCount(2);
  // Stored whole (the list only truncates on screen): the full question is the title.
  await expect(items.filter({ hasText: 'Zepto' }).locator('.conversation-title')).toHaveAttribute('title', LONG);

  // Search finds words of an answer, not only of titles.
  const answerWord = /dark stores/i.test(answerText) ? 'dark stores' : answerText.split(/\s+/).find((w) => w.length > 6)!;
  await page.getByTestId('conversation-search').fill(answerWord);
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText('Zepto');
  await page.getByTestId('conversation-search').fill('DMart Pune');
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText('DMart');
  await page.getByTestId('conversation-search').fill('zzqx nothing like this');
  await expect(items).toHaveCount(0);
  await expect(page.getByTestId('conversation-search-empty')).toContainText('No conversation mentions');
  await page.getByTestId('conversation-search').fill('');
  await expect(items).toHaveCount(2);

  // The older conversation is second; pinned, it goes first and stays there after a reload.
  await expect(items.first()).toContainText('DMart');
  // Row actions show on hover, as a mouse user finds them.
  await items.filter({ hasText: 'Zepto' }).hover();
  await items.filter({ hasText: 'Zepto' }).getByTestId('pin-conversation').click();
  await expect(items.first()).toHaveAttribute('data-pinned', 'true');
  await expect(items.first()).toContainText('Zepto');
  await page.reload();
  await expect(page.getByTestId('conversation-item').first()).toContainText('Pinned');
  await expect(page.getByTestId('conversation-item').first()).toContainText('Zepto');
  await page.screenshot({ path: testInfo.outputPath('conversation-list.png') });
});

test('a question can be edited and asked again, and an answer regenerated', async ({ page, fileApp, chat }) => {
  await chat.open(fileApp);
  await chat.startNewConversation();
  await chat.ask(SHORT);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');

  await chat.lastAnswer().getByTestId('regenerate').click();
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('answer')).toHaveCount(1);
  expect((await chat.lastAnswer().getByTestId('answer-body').innerText()).length).toBeGreaterThan(40);

  await page.getByTestId('edit-question').first().click();
  const composer = page.getByTestId('composer-input');
  await expect(composer).toHaveValue(SHORT);
  await expect(composer).toBeFocused();
  await composer.fill('How is DMart doing in Mumbai?');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('answer')).toHaveCount(2);
  await expect(page.getByTestId('question').last()).toHaveText('How is DMart doing in Mumbai?');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
});
