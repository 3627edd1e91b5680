/**
 * Issue 30: a conversation continues after a restart (the embedded service starts afresh and
 * knows no session): the app replays the earlier question and answer, so a follow-up that says
 * "they" is understood. What the app sends is checked in test/integration/conversation-replay.test.ts.
 */
import { ChatPage, expect, test } from './fixtures';

test('after a restart, a follow-up continues the conversation from the replayed turns', async ({ apps, browser, chat }) => {
  const first = await apps.start();
  await chat.open(first);
  await chat.askAndWait('How many stores did Zudio open in Pune?');
  await expect(chat.lastAnswer()).toContainText('Zudio');
  await apps.stop(first, { keepData: true });

  const second = await apps.start({ dataDir: first.dataDir });
  const context = await browser.newContext();
  try {
    const again = new ChatPage(await context.newPage());
    await again.open(second);
    await expect(again.answers).toHaveCount(1);
    const answer = await again.askAndWait('How many did they open in Bengaluru?');
    await expect(answer).toContainText('Zudio');
    await expect(answer).toContainText('Bengaluru');
  } finally {
    await context.close();
  }
});
