/**
 * The analyst's chat end to end, through the browser host against the real local service:
 * conversations, citations side panel, confidence, sharing, copy, status bar and errors.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChatPage, expect, killLocalService, localServicePids, serviceUrlOf, startApp, stopApp, test } from './fixtures';

const QC = 'How fast is quick commerce growing in Bengaluru?';

test('conversations persist across a restart; rename, delete with undo, follow-ups and keys work', async ({ page, browser }) => {
  const first = await startApp();
  const chat = new ChatPage(page);
  try {
    await chat.open(first);
    await chat.ask(QC);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
    // A follow-up continues the same session and borrows the earlier question's subject.
    await chat.ask('And what about Pune?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
    await expect(chat.lastAnswer().getByTestId('answer-body')).toContainText('Pune');
    await expect(page.getByTestId('conversation-title')).toHaveText(QC);

    // Alt+N starts a new conversation; "/" focuses the question box.
    await page.locator('body').click();
    await page.keyboard.press('Alt+N');
    await expect(page.getByTestId('conversation-item')).toHaveCount(2);
    await page.locator('.chat-toolbar').click();
    await page.keyboard.press('/');
    await expect(page.getByTestId('composer-input')).toBeFocused();
    await chat.ask('Tanishq jewellery stores in Kerala');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');

    // Rename the first conversation.
    const qcItem = page.getByTestId('conversation-item').filter({ hasText: QC });
    await qcItem.hover();
    await qcItem.getByTestId('rename-conversation').click();
    await page.getByTestId('rename-input').fill('QC Bengaluru vs Pune');
    await page.getByTestId('rename-input').press('Enter');
    await expect(page.getByTestId('conversation-item').filter({ hasText: 'QC Bengaluru vs Pune' })).toHaveCount(1);

    // Delete the jewellery one, undo, delete again.
    const jewellery = page.getByTestId('conversation-item').filter({ hasText: 'Tanishq' });
    await jewellery.hover();
    await jewellery.getByTestId('delete-conversation').click();
    await expect(page.getByTestId('conversation-item')).toHaveCount(1);
    await page.getByTestId('undo-delete').click();
    await expect(page.getByTestId('conversation-item')).toHaveCount(2);
    await page.getByTestId('conversation-item').filter({ hasText: 'Tanishq' }).hover();
    await page.getByTestId('conversation-item').filter({ hasText: 'Tanishq' }).getByTestId('delete-conversation').click();
    await expect(page.getByTestId('conversation-item')).toHaveCount(1);

    // On disk: one session for both turns of the renamed conversation.
    const files = (await readdir(join(first.dataDir, 'conversations'))).filter((f) => f.endsWith('.json'));
    const stored = await Promise.all(files.map(async (f) => JSON.parse(await readFile(join(first.dataDir, 'conversations', f), 'utf8')).conversation));
    const renamed = stored.find((c) => c.title === 'QC Bengaluru vs Pune');
    expect(renamed.turns).toHaveLength(2);
    expect(renamed.sessionId).toMatch(/^ses_/);
    expect(renamed.turns[1].answer.citations[0].detail.healthWhenCited).toMatch(/healthy|degraded|down/);
  } finally {
    await stopApp(first, { keepData: true });
  }

  // A restart of the whole app reopens the conversation with its answers and citations.
  const second = await startApp({ dataDir: first.dataDir });
  const context = await browser.newContext();
  const again = new ChatPage(await context.newPage());
  try {
    await again.open(second);
    await expect(again.page.getByTestId('conversation-item')).toHaveCount(1);
    await expect(again.page.getByTestId('conversation-title')).toHaveText('QC Bengaluru vs Pune');
    await expect(again.page.getByTestId('answer')).toHaveCount(2);
    await expect(again.page.getByTestId('citation-chip').first()).toBeVisible();
  } finally {
    await context.close();
    await stopApp(second);
  }
});

test('citations open a side panel with the signal, its health when cited and now; confidence keeps a trace', async ({ page, app, chat }, testInfo) => {
  await chat.open(app);
  await chat.ask(QC);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await expect(chat.lastAnswer().getByTestId('confidence-trace').locator('.trace-bar')).not.toHaveCount(0);
  expect(await chat.lastAnswer().getByTestId('confidence-trace').locator('.trace-bar').count()).toBeGreaterThanOrEqual(2);
  await expect(chat.lastAnswer().getByTestId('research-promotion')).toContainText('research report');

  const chip = chat.lastAnswer().getByTestId('citation-chip').nth(1);
  await chip.hover();
  await expect(page.getByTestId('chip-preview')).toBeVisible();
  await chip.click();
  const panel = page.getByTestId('citation-panel');
  await expect(panel).toBeVisible();
  const id = await chip.getAttribute('data-cite');
  const entry = chat.lastAnswer().locator(`[data-testid="citation-entry"][data-cite="${id}"]`);
  await expect(panel.getByTestId('panel-title')).toHaveText((await entry.locator('.citation-title').innerText()).trim());
  await expect(panel.getByTestId('panel-source')).not.toBeEmpty();
  await expect(panel.getByTestId('panel-snippet')).not.toBeEmpty();
  await expect(panel.getByTestId('panel-entities')).toContainText('Bengaluru');
  await expect(panel.getByTestId('panel-metrics')).toBeVisible();
  await expect(panel.getByTestId('health-when cited')).toHaveText(/when cited: (healthy|degraded|down)/);
  await expect(panel.getByTestId('health-now')).toHaveText(/now: (healthy|degraded|down)/);
  await expect(panel.getByTestId('panel-open-signal')).toHaveAttribute('href', new RegExp(`^${await serviceUrlOf(page)}/signal/`));
  expect(await panel.getByTestId('panel-all-citations').locator('li').count()).toBe(await chat.lastAnswer().getByTestId('citation-entry').count());
  await page.screenshot({ path: testInfo.outputPath('chat-side-panel.png') });

  // The signal page the panel links to is real.
  const href = (await panel.getByTestId('panel-open-signal').getAttribute('href'))!;
  expect((await page.request.get(href)).status()).toBe(200);
});

test('a dropped stream keeps its partial text, is marked incomplete, and retry completes it', async ({ page }, testInfo) => {
  const app = await startApp({ serviceArgs: ['--enable-faults'] });
  const chat = new ChatPage(page);
  try {
    await chat.open(app);
    await chat.ask(`${QC} [fault:drop-once=4000]`);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'incomplete');
    const partial = await chat.lastAnswer().getByTestId('answer-body').innerText();
    expect(partial.length).toBeGreaterThan(100);
    await expect(chat.lastAnswer().getByTestId('answer-error')).toContainText('stopped before it finished');
    await page.screenshot({ path: testInfo.outputPath('chat-incomplete.png') });
    await chat.lastAnswer().getByTestId('retry').click();
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
    expect((await chat.lastAnswer().getByTestId('answer-body').innerText()).length).toBeGreaterThan(partial.length);
    await expect(page.getByTestId('answer')).toHaveCount(1);
  } finally {
    await stopApp(app);
  }
});

test('on 429 the status bar counts down from Retry-After and sending waits; nothing typed is lost', async ({ page, app, chat }, testInfo) => {
  await chat.open(app);
  // Spend this IP's ask quota directly against the service.
  const serviceUrl = await serviceUrlOf(page);
  for (let i = 0; i < 30; i += 1) {
    await page.request.post(`${serviceUrl}/api/v1/ask`, { data: { messages: [{ role: 'user', content: 'Zudio' }] } });
  }
  await chat.ask(QC);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'failed');
  await expect(page.getByTestId('rate-countdown')).toHaveText(/Rate limited: ask again in \d+ s/);
  const first = Number((await page.getByTestId('rate-countdown').innerText()).match(/(\d+) s/)![1]);
  expect(first).toBeGreaterThan(30);
  expect(first).toBeLessThanOrEqual(60);
  await page.getByTestId('composer-input').fill('Nykaa beauty in Mumbai');
  await expect(page.getByTestId('send')).toBeDisabled();
  await expect(page.getByTestId('send')).toHaveText(/Wait \d+ s/);
  await page.waitForTimeout(2_100);
  const later = Number((await page.getByTestId('rate-countdown').innerText()).match(/(\d+) s/)![1]);
  expect(later).toBeLessThan(first);
  await expect(page.getByTestId('composer-input')).toHaveValue('Nykaa beauty in Mumbai');
  await page.screenshot({ path: testInfo.outputPath('chat-429-countdown.png') });
});

test('share a session publicly and copy an answer as markdown and as text', async ({ page, app, chat, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await chat.open(app);
  await chat.ask(QC);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');

  await page.getByTestId('share').click();
  await expect(page.getByTestId('public-url')).toContainText('/ask/');
  const url = (await page.getByTestId('public-url').innerText()).replace(/^Public: /, '');
  const publicPage = await page.request.get(url);
  expect(publicPage.status()).toBe(200);
  expect(await publicPage.text()).toContain('quick commerce growing in Bengaluru');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);

  const chips = await chat.lastAnswer().getByTestId('citation-entry').count();
  await chat.lastAnswer().getByTestId('copy-markdown').click();
  const markdown = await page.evaluate(() => navigator.clipboard.readText());
  expect(markdown).toContain('[^1]');
  expect(markdown).toContain('## Sources');
  expect(markdown.match(/^\[\^\d+\]: /gm)).toHaveLength(chips);
  expect(markdown).not.toMatch(/\[sig_[0-9a-f]{16}\]/);

  await chat.lastAnswer().getByTestId('copy-text').click();
  const text = await page.evaluate(() => navigator.clipboard.readText());
  expect(text).toContain('Sources\n[1] ');
  expect(text).not.toContain('##');

  await page.getByTestId('unshare').click();
  // Unsharing is a round trip to the service: wait for it to take effect.
  await expect.poll(async () => (await page.request.get(url)).status()).toBe(404);
});

test('an unreachable service is reported plainly and the question is kept', async ({ page, app, chat }) => {
  await chat.open(app);
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('service-remote').check();
  await page.getByTestId('service-url').fill('http://127.0.0.1:9');
  await page.getByTestId('service-save').click();
  await expect(page.getByTestId('service-label')).toHaveText('Remote: http://127.0.0.1:9');
  await page.getByTestId('nav-chat').click();
  await chat.ask(QC);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'failed');
  await expect(chat.lastAnswer().getByTestId('answer-error')).toContainText('Could not reach the service at http://127.0.0.1:9');
  await expect(page.getByTestId('question').last()).toHaveText(QC);
  await expect(chat.lastAnswer().getByTestId('retry')).toBeEnabled();
});

test('when the embedded service crashes the app says so, restarts it, and answers again', async ({ page, app, chat }) => {
  await chat.open(app);
  const before = await localServicePids(app);
  expect(before.length).toBeGreaterThan(0);
  await killLocalService(app);
  await expect(page.getByTestId('service-state')).toContainText('Restarting it');
  await expect(page.getByTestId('service-state')).toHaveText(/^ready/);
  // A new process serves now (its port may or may not be the old one: the OS picks it).
  const after = await localServicePids(app);
  expect(after.length).toBeGreaterThan(0);
  expect(after.filter((pid) => before.includes(pid))).toEqual([]);
  await chat.ask(QC);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
});
