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
