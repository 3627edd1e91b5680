/**
 * A question asked while a conversation is still being created (Alt+N, then Enter at once): it
 * goes into the new conversation the analyst sees, and the composer is free once it is answered.
 * Before the fix the question went into the conversation being left, the new empty one replaced
 * it on screen as the answer streamed, and Stop stayed up for good (found by the soak).
 */
import { expect, test } from './fixtures';

const FIRST = 'How fast is quick commerce growing in Bengaluru?';
const SECOND = 'Tanishq jewellery in Kerala';
const THIRD = 'Zudio store openings in Pune';

test('a question asked as a new conversation opens goes into it, and the next question can be asked', async ({ page, app, chat }) => {
  await chat.open(app);
  await chat.askAndWait(FIRST);
  await chat.composer.fill(SECOND);
  // Both keys in one task of the page, so the question is sent while main is still creating the
  // conversation (Playwright's own presses could land after it, and the test would prove nothing).
  await page.evaluate(() => {
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'n', altKey: true, bubbles: true }));
    document.querySelector('[data-testid="composer-input"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  });
  await chat.expectLastAnswer('done');
  await expect(page.getByTestId('question')).toHaveText([SECOND]);
  const items = page.getByTestId('conversation-item');
  await expect(items).toHaveCount(2);
  await expect(items.filter({ hasText: 'quick commerce' })).toContainText('1 question');
  await expect(page.locator('[data-testid="conversation-item"].active')).toContainText('1 question');

  // The composer is free: the next question is asked and answered in the same conversation.
  await chat.askAndWait(THIRD);
  await expect(page.getByTestId('question')).toHaveText([SECOND, THIRD]);
  await expect(page.locator('[data-testid="conversation-item"].active')).toContainText('2 questions');
});
