/**
 * A retailer nobody taught the service (issue 43): the analyst adds a folder of their own
 * documents in the Sources view; one is about Vishal Mega Mart, which the built-in gazetteer does
 * not know. Asked about it by name, the app answers from that document and cites it, in plain
 * text, dated as the source list dates it (the document was last written at 23:30 UTC, the next
 * day in India); after a restart on the same data the same question gets the same answer.
 */
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatDate } from '../../src/shared/format';
import { ChatPage, expect, SourcesPage, test } from './fixtures';

let folder: string;
/** 23:30 UTC two days ago: the document's date (its file's time), the day after in India. */
const written = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000 - 1_800_000);
test.beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'clarity-own-docs-'));
  await writeFile(
    join(folder, 'vishal-mega-mart.md'),
    '# Vishal Mega Mart opens 12 stores in Lucknow and Kanpur\n\nValue retailer Vishal Mega Mart / VMM opened 12 stores in Lucknow and Kanpur in October, taking its network to 680 stores. Revenue grew 21% to ₹2,850 crore.\n',
  );
  await utimes(join(folder, 'vishal-mega-mart.md'), written, written);
});
test.afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

test('a folder source about a new retailer: asked about it by name, the answer cites its document, dated as listed, and a restart changes nothing', async ({ page, apps, chat, browser }, testInfo) => {
  test.setTimeout(480_000);
  // Without the sample the service starts faster, and nothing cited can come from it.
  const app = await apps.start({ serviceArgs: ['--no-sample'], startTimeoutMs: 240_000 });
  const sources = new SourcesPage(page);
  await sources.open(app);
  await sources.openView();
  await sources.preview({ url: pathToFileURL(folder).href, kind: 'folder', name: 'My documents' });
  await expect(sources.previewItems.filter({ hasText: 'Vishal Mega Mart opens 12 stores' })).toBeVisible();
  await sources.confirmAdd.click();
  const card = sources.card('My documents');
  await expect(card).toBeVisible();
  await expect(card.getByTestId('source-items')).not.toHaveText(/^0 in 24 h/, { timeout: 30_000 });

  await chat.goTo('chat');
  const answer = await chat.askAndWait('What did Vishal Mega Mart announce?');
  await expect(answer).not.toContainText('No signals about');
  await expect(answer).toContainText('Vishal Mega Mart');
  await expect(answer.getByTestId('citation-source').filter({ hasText: 'My documents' }).first()).toBeVisible();
  // Clean: the document's Markdown heading is a sentence, never "# …" in the answer.
  await expect(answer).not.toContainText('# Vishal');
  await expect(answer).toContainText('In short: Value retailer Vishal Mega Mart');
  // One signal, so no list of developments: the answer does not point at one.
  await expect(answer).not.toContainText('developments above');
  // The analyst's own document is not "synthetic sample data".
  await expect(answer).not.toContainText('synthetic');
  // The right date: the app's display zone (India by default) dates the document the day after
  // its UTC day, in the source list and in the answer's own text alike.
  const shown = formatDate(written.toISOString(), 'Asia/Kolkata');
  const entry = answer.getByTestId('citation-entry').filter({ has: page.getByTestId('citation-source').filter({ hasText: 'My documents' }) }).first();
  await expect(entry.locator('time')).toHaveText(shown);
  await expect(answer).toContainText(shown);
  await expect(answer).not.toContainText(formatDate(written.toISOString(), 'UTC'));
  const text = await answer.innerText();
  await page.screenshot({ path: testInfo.outputPath('learned-entity-answer.png') });

  // A restart on the same data: the learned retailer and its document are still there.
  await apps.stop(app, { keepData: true });
  const again = await apps.start({ dataDir: app.dataDir, serviceArgs: ['--no-sample'], startTimeoutMs: 240_000 });
  const context = await browser.newContext();
  try {
    const chatAgain = new ChatPage(await context.newPage());
    await chatAgain.open(again);
    const second = await chatAgain.askAndWait('What did Vishal Mega Mart announce?');
    await expect(second).toContainText(shown);
    expect(await second.innerText()).toBe(text);
  } finally {
    await context.close();
  }
});
