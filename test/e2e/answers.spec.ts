/**
 * The questions quoted in issue #13, asked through the app as one conversation: the answer
 * shown leads with the right entity and the true figure (from the corpus's ground truth, same
 * seed and anchor as the app's embedded service), follow-ups keep the topic, a new topic
 * starts fresh, and every answer carries citation chips.
 */
import { generateCorpus } from '../../src/service/corpus/generator';
import { startOfUtcDay } from '../../src/service/signal-store';
import { test, expect } from './fixtures';

test('the issue’s questions are answered with the right entity, the true figures and citations', async ({ app, chat }) => {
  test.setTimeout(120_000);
  await chat.open(app);
  // The embedded service generates the default corpus anchored at the start of today (UTC).
  const { truth } = generateCorpus({ anchor: startOfUtcDay(Date.now()) });
  const year = new Date(truth.anchor).getUTCFullYear();

  const askAndRead = async (question: string): Promise<string> => {
    const before = await chat.answers.count();
    await chat.ask(question);
    await expect(chat.answers).toHaveCount(before + 1);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    await expect(chat.latest().allChips.first()).toBeVisible();
    return chat.latest().text();
  };

  const dmart = await askAndRead('How many stores has D-Mart (Avenue Supermarts) opened this year, and where?');
  const opened = truth.stores.DMart!.events.filter((event) => event.change > 0 && new Date(event.at).getUTCFullYear() === year);
  expect(dmart).toContain(`DMart opened ${opened.reduce((sum, event) => sum + event.change, 0)} stores in ${year} so far`);
  for (const city of new Set(opened.map((event) => event.city))) expect(dmart).toContain(city);
  expect(dmart).not.toContain('V-Mart');

  const zepto = await askAndRead('How many dark stores does Zepto operate now?');
  const total = truth.stores.Zepto!.events.at(-1)!.total;
  expect(zepto).toContain(`Zepto operates ${total.toLocaleString('en-IN')} dark stores`);
  const conflict = truth.conflicts.find((item) => item.entity === 'Zepto' && item.kind === 'store_count');
  if (conflict) {
    expect(zepto).toContain('Sources disagree');
    expect(zepto).toContain(`${conflict.reported_value.toLocaleString('en-IN')} dark stores`);
  }

  const gaining = await askAndRead('Which players are gaining share there?');
  expect(gaining).toContain('Following on from your previous question');
  expect(gaining).toMatch(/Quick commerce.*share of gross order value/);
  for (const player of ['Blinkit', 'Zepto', 'Swiggy Instamart']) expect(gaining).toContain(player);

  const festive = await askAndRead('What does festive-season demand look like for Diwali 2026 across categories?');
  expect(festive).not.toContain('Following on');
  const diwali = truth.festive.find((item) => item.year === 2026);
  if (diwali) {
    for (const [segment, value] of Object.entries(diwali.growth_yoy_pct)) expect(festive).toContain(`${segment} +${value.toFixed(1)}%`);
  } else {
    expect(festive).toContain('No festive-season figures for Diwali 2026 yet');
  }
  expect(festive).not.toContain('Zepto operates');
});
