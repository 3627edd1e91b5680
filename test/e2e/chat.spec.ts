import { Answer, test, expect } from './fixtures';

const QUESTION = 'How fast is quick commerce growing in Bengaluru?';

// These tests watch an answer while it streams (its growth, a Stop in the middle). At the default
// 12 ms a chunk a whole answer took about 1.5 s, which a busy machine (both cores loaded) could
// deliver between two of the test's looks; at 40 ms it streams for about 5 s.
test.use({ paceMs: 40 });

test('a question streams in as a cited answer whose chips match the sources list', async ({ page, fileApp, chat, statusBar }, testInfo) => {
  await chat.open(fileApp);
  await expect(statusBar.serviceLabel).toContainText('Local demo service — synthetic sample data');
  await chat.ask(QUESTION);

  // The answer grows over several separate updates while it streams: sample its length on
  // every poll until it is done.
  const answer = chat.latest();
  const body = answer.body;
  const lengths: number[] = [];
  await expect
    .poll(
      async () => {
        lengths.push((await body.innerText()).length);
        return chat.lastAnswer().getAttribute('data-status');
      },
      { intervals: [50], timeout: 30_000 },
    )
    .toBe('done');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  const growing = lengths.filter((length, i) => i > 0 && length > lengths[i - 1]!);
  expect(growing.length, `answer lengths over time: ${lengths.join(',')}`).toBeGreaterThanOrEqual(3);
  expect(Number(await chat.lastAnswer().getAttribute('data-updates'))).toBeGreaterThanOrEqual(3);

  await expect(body).toContainText('Quick commerce');
  await expect(body.locator('table')).toHaveCount(1);
  await expect(answer.confidence).toContainText(/Confidence: (low|medium|high) \(\d+%\)/);

  // Every chip matches an entry of the citation list with the same number and signal.
  const chips = answer.chips;
  const chipCount = await chips.count();
  expect(chipCount).toBeGreaterThan(0);
  const entries = answer.entries;
  const entryNumbers = new Map<string, string>();
  for (let i = 0; i < (await entries.count()); i += 1) {
    const entry = entries.nth(i);
    entryNumbers.set((await entry.getAttribute('data-cite'))!, (await entry.getAttribute('data-number'))!);
    await expect(entry.getByTestId('citation-source')).not.toBeEmpty();
  }
  for (let i = 0; i < chipCount; i += 1) {
    const chip = chips.nth(i);
    const id = (await chip.getAttribute('data-cite'))!;
    expect(id).toMatch(/^sig_[0-9a-f]{16}$/);
    expect(entryNumbers.get(id), `chip ${id} has a list entry`).toBe((await chip.innerText()).trim());
  }

  // The chips resolve to real signals of the corpus: ask the running service for each one.
  const serviceUrl = await statusBar.serviceUrl();
  for (const id of entryNumbers.keys()) {
    const response = await page.request.get(`${serviceUrl}/api/v1/signals/${id}`);
    expect(response.status(), id).toBe(200);
    expect((await response.json()).signal.id).toBe(id);
  }

  // Clicking a chip selects its entry and shows the snippet.
  await chips.first().click();
  await expect(chat.lastAnswer().locator('.citation.selected')).toHaveCount(1);
  await page.screenshot({ path: testInfo.outputPath('chat-cited-answer.png'), fullPage: false });
});

test('a running answer can be cancelled and keeps its partial text; the question can be asked again', async ({ page, fileApp, chat }) => {
  await chat.open(fileApp);
  // The file's app is shared: this test asks in a conversation of its own.
  await chat.startNewConversation();
  await chat.ask(QUESTION);
  const cancelled = chat.latest();
  await expect.poll(async () => (await cancelled.text()).length).toBeGreaterThan(40);
  await expect(chat.cancelButton).toBeVisible(); // a Stop button while streaming…
  await page.keyboard.press('Escape'); // …and Esc stops it too
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'cancelled');
  const partial = await cancelled.text();
  expect(partial.length).toBeGreaterThan(40);
  await expect(chat.sendButton).toBeVisible();
  // Asked again, the question streams a whole new answer; by the time it is done, anything
  // still arriving for the cancelled one would have shown: its text has not changed.
  const first = chat.answers.first();
  await chat.ask(QUESTION);
  await expect(chat.answers).toHaveCount(2);
  await chat.expectLastAnswer('done');
  await expect(first).toHaveAttribute('data-status', 'cancelled');
  expect(await new Answer(first).text()).toBe(partial);
});
