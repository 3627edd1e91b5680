/**
 * A conversation longer than the list keeps rendered (the virtualised list renders the rows in
 * view and a few around them; issue 50, round 5 renders it only when what it shows changes):
 * read from its end to its start and back, every turn is there, in the order asked, none
 * overlapping the next and no gap between them, and the end comes back into view.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';

test.use({ paceMs: 1 });

const QUESTIONS = [
  'How fast is quick commerce growing in Bengaluru?',
  'Zudio store openings in Pune',
  'Tanishq jewellery in Kerala',
  'Apollo Pharmacy hiring in Hyderabad',
  'Nykaa prices in Mumbai',
  'DMart growth in Chennai',
  'Croma store openings in Delhi',
  'Blinkit market share in Kolkata',
  'Westside store openings in Jaipur',
  'Lenskart hiring in Indore',
];

/** The rows rendered now, in list order: index, question, and their place on the page. */
async function renderedRows(page: Page): Promise<Array<{ index: number; question: string; top: number; bottom: number }>> {
  return page.getByTestId('messages').evaluate((list) =>
    [...list.querySelectorAll<HTMLElement>('[data-index]')]
      .map((row) => {
        const box = row.getBoundingClientRect();
        return { index: Number(row.dataset.index), question: row.querySelector('[data-testid="question"]')?.textContent ?? '', top: box.top, bottom: box.bottom };
      })
      .sort((a, b) => a.index - b.index),
  );
}

/** What a reader sees at this scroll position is the conversation as asked: consecutive turns, each right under the one before. */
async function expectTurnsInOrder(page: Page): Promise<number[]> {
  const rows = await renderedRows(page);
  expect(rows.length).toBeGreaterThan(0);
  rows.forEach((row, i) => {
    expect(row.question).toBe(QUESTIONS[row.index]);
    if (i === 0) return;
    expect(row.index).toBe(rows[i - 1]!.index + 1);
    // Neither overlapping nor apart: a row starts where the one before it ends.
    expect(Math.abs(row.top - rows[i - 1]!.bottom)).toBeLessThanOrEqual(1);
  });
  return rows.map((row) => row.index);
}

test('a long conversation reads from end to start and back with every turn in order, none overlapping', async ({ page, app, chat }) => {
  test.setTimeout(240_000);
  await chat.open(app);
  for (const question of QUESTIONS) await chat.askAndWait(question, { timeout: 90_000 });
  const messages = page.getByTestId('messages');
  const fromBottom = (): Promise<number> => messages.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
  await expect.poll(fromBottom).toBeLessThan(80);
  // Fewer rows are rendered than asked: the list is windowed, so the scroll below mounts and unmounts rows.
  expect((await renderedRows(page)).length).toBeLessThan(QUESTIONS.length);

  // Up, a wheel turn at a time, to the first question; at every stop the rows read in order.
  await messages.hover();
  const seen = new Set<number>();
  for (let turn = 0; turn < 200 && (await messages.evaluate((element) => element.scrollTop)) > 0; turn += 1) {
    await page.mouse.wheel(0, -500);
    // Rows placed for the new position (the list renders on its own frame after the scroll).
    await expect.poll(async () => (await expectTurnsInOrder(page).then(() => true, () => false))).toBe(true);
    for (const index of await expectTurnsInOrder(page)) seen.add(index);
  }
  await expect(page.getByTestId('question').first()).toHaveText(QUESTIONS[0]!);
  await expect(page.getByTestId('question').first()).toBeInViewport();
  expect([...seen].sort((a, b) => a - b)).toEqual(QUESTIONS.map((_, i) => i));

  // And down again to the end: the last answer, whole, at the bottom.
  for (let turn = 0; turn < 200 && (await fromBottom()) > 1; turn += 1) {
    await page.mouse.wheel(0, 500);
    await expect.poll(async () => (await expectTurnsInOrder(page).then(() => true, () => false))).toBe(true);
  }
  await expect(page.getByTestId('question').last()).toHaveText(QUESTIONS.at(-1)!);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done');
  await expect(chat.lastAnswer().getByTestId('answer-body')).toBeInViewport();
});
