/**
 * A team library file is migrated to the current format only at the revision read (issue 29,
 * item 10): when a colleague's write lands between the app's read of an old-format file and its
 * migration, the migration writes nothing over it; the next scan reads the colleague's version
 * and migrates that. Real temp team folder, real files.
 */
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_FORMAT_VERSION } from '../../src/shared/library';
import { LibraryStore } from '../../src/main/services/library/library-store';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'clarity-migration-race-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const v1 = (title: string) => ({
  formatVersion: 1,
  id: 'lib_00000000000000aa',
  kind: 'answer',
  title,
  savedAt: '2026-10-01T10:00:00.000Z',
  markdown: `# ${title}\n\nZepto opened 12 dark stores [sig_00000000000000a1].`,
  citations: [{ id: 'sig_00000000000000a1', title: 'Zepto opens 12 dark stores', source: 'Zepto newsroom', date: '2026-09-30T00:00:00.000Z' }],
});

function open(dir: string, beforeMigrate?: (name: string) => Promise<void>): LibraryStore {
  return new LibraryStore({ dir, location: { id: 'team_x', name: 'Team', kind: 'team' }, device: { id: 'dev_me', name: 'me' }, cacheBase: join(root, `cache-${Math.random()}`), watch: false, pollMs: 0, ...(beforeMigrate ? { beforeMigrate } : {}) });
}

describe('migrating an old-format team file', () => {
  it('writes nothing over a colleague’s change made after the read; the next scan migrates their version', async () => {
    const dir = await mkdtemp(join(root, 'team-'));
    const file = join(dir, 'lib_00000000000000aa.json');
    await writeFile(file, JSON.stringify(v1('Zepto stores (first)')));
    let raced = false;
    const store = open(dir, async () => {
      if (raced) return;
      raced = true;
      // A colleague (still on the old app) edits the file between the read and the migration.
      await writeFile(file, JSON.stringify(v1('Zepto stores — edited by a colleague')));
      await utimes(file, new Date(), new Date(Date.now() + 5_000));
    });
    await store.ready;
    // The first read's migration was not written over the colleague's file (the store may already
    // have read and migrated their version in a follow-up scan).
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ title: 'Zepto stores — edited by a colleague' });
    expect(store.migrationsSkipped).toBe(1);

    await store.rescan();
    expect(store.summary('lib_00000000000000aa')?.title).toBe('Zepto stores — edited by a colleague');
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ title: 'Zepto stores — edited by a colleague', formatVersion: LIBRARY_FORMAT_VERSION });
    await store.close();
  });

  it('migrates a file nobody changed meanwhile', async () => {
    const dir = await mkdtemp(join(root, 'team-'));
    const file = join(dir, 'lib_00000000000000aa.json');
    await writeFile(file, JSON.stringify(v1('Zepto stores')));
    const store = open(dir);
    await store.ready;
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ title: 'Zepto stores', formatVersion: LIBRARY_FORMAT_VERSION });
    expect(store.migrationsSkipped).toBe(0);
    await store.close();
  });
});
