/**
 * A retailer nobody taught the service (issue 43): the analyst adds a folder of their own
 * documents in the Sources view; one is about Vishal Mega Mart, which the built-in gazetteer does
 * not know. Asked about it by name, the app answers from that document and cites it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, SourcesPage, test } from './fixtures';

let folder: string;
test.beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'clarity-own-docs-'));
  await writeFile(
    join(folder, 'vishal-mega-mart.md'),
    '# Vishal Mega Mart opens 12 stores in Lucknow and Kanpur\n\nValue retailer Vishal Mega Mart / VMM opened 12 stores in Lucknow and Kanpur in October, taking its network to 680 stores. Revenue grew 21% to ₹2,850 crore.\n',
  );
});
test.afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

test('a folder source about a new retailer: asked about it by name, the answer cites its document', async ({ page, apps, chat }, testInfo) => {
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
  await page.screenshot({ path: testInfo.outputPath('learned-entity-answer.png') });
});
