/**
 * The very first open of a big library (no cache yet), on a real temp folder: the list's first
 * page is shown before the whole folder is read, and it holds exactly the newest live items by
 * the time inside each file (file modified times deliberately say the opposite); tombstones are
 * not shown, the view says the library is still opening, and once it is ready search finds
 * everything and nothing is lost. Files named by hand or by earlier versions are glanced at;
 * files the app saved are found by their time-ordered names.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdAtBoundOfId, libraryItemId } from '../../src/main/services/library/library-files';
import { FIRST_ROWS } from '../../src/main/services/library/library-glance';
import { LibraryHub } from '../../src/main/services/library/library-hub';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { LIBRARY_FORMAT_VERSION, type LibraryItem } from '../../src/shared/library';

const COUNT = 1_500;
const PAGE = 200;
const CITIES = ['Pune', 'Bengaluru', 'Indore', 'Kochi', 'Surat'];
let root: string;
let items: LibraryItem[];

const idOf = (i: number): string => `lib_${i.toString(16).padStart(16, '0')}`;
/** Days spread over three years, in a scrambled order (not the order of the ids or of writing). */
const createdAtOf = (i: number): string => new Date(Date.UTC(2024, 0, 1) + ((i * 7919) % COUNT) * 17 * 3600_000).toISOString();

function itemOf(i: number): LibraryItem {
  const city = CITIES[i % CITIES.length]!;
  const sig = `sig_${(i + 1).toString(16).padStart(16, '0')}`;
  return {
    formatVersion: LIBRARY_FORMAT_VERSION,
    id: idOf(i),
    kind: 'answer',
    title: `Store openings in ${city}, note ${i}`,
    tags: [],
    createdAt: createdAtOf(i),
    savedAt: createdAtOf(i),
    updatedAt: createdAtOf(i),
    markdown: `Zudio opened stores in ${city} (ref${i}q) [${sig}].`,
    citations: [{ id: sig, title: `Zudio in ${city}`, source_name: 'ET Retail', published_at: '2026-10-01T00:00:00Z', detail: null }],
    meta: {},
    // Every 9th item is deleted, the newest ones included.
    deletedAt: i % 9 === 0 ? '2026-11-20T00:00:00.000Z' : null,
  };
}

const newestLive = (all: LibraryItem[], n: number): string[] =>
  all
    .filter((item) => !item.deletedAt)
    .map((item) => item.createdAt)
    .sort()
    .reverse()
    .slice(0, n);

async function writeLibrary(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const item of items) {
    const path = join(dir, `${item.id}.json`);
    await writeFile(path, `${JSON.stringify(item, null, 2)}\n`);
    // Modified times run opposite to createdAt: listing files by mtime would pick the oldest.
    const mtime = new Date(Date.UTC(2030, 0, 1) - Date.parse(item.createdAt) / 1000);
    await utimes(path, mtime, mtime);
  }
  await writeFile(join(dir, 'lib_ffffffffffffffff.json'), '{"formatVersion":2,"id":"lib_fff'); // half-synced
  // A colleague's conflicting copy of the newest live item.
  const newest = items.filter((item) => !item.deletedAt).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))[0]!;
  await writeFile(join(dir, `${newest.id} (Ann's conflicted copy 2026-11-23).json`), JSON.stringify({ ...newest, title: `${newest.title} (Ann)` }));
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'clarity-first-open-'));
  items = Array.from({ length: COUNT }, (_, i) => itemOf(i));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('first open of a big library, no cache', () => {
  it('shows the newest live items first, says it is still opening, then finds everything', async () => {
    const dataDir = join(root, 'personal');
    await writeLibrary(join(dataDir, 'library'));
    const hub = await LibraryHub.open({ dataDir });
    try {
      await hub.personal.firstResults;
      // What the view shows at once: the first page, newest first, while the rest is read.
      const first = hub.search({ sort: 'date' });
      expect(hub.locations()[0]).toMatchObject({ id: 'personal', state: 'opening' });
      expect(first.indexing).toBe(true);
      expect(hub.personal.index.entries.size).toBeLessThan(COUNT); // not the whole folder yet
      // The first rows are shown as soon as they are known (the rest of the page is read after).
      expect(first.items.length).toBeGreaterThanOrEqual(FIRST_ROWS);
      expect(first.items.map((item) => item.createdAt)).toEqual(newestLive(items, first.items.length));
      const deleted = new Set(items.filter((item) => item.deletedAt).map((item) => item.id));
      expect(first.items.filter((item) => deleted.has(item.id))).toEqual([]);
      expect(first.items[0]!.conflicts).toBe(1);

      await hub.ready();
      const live = items.filter((item) => !item.deletedAt);
      const all = hub.search({ sort: 'date' }, 5_000);
      expect(hub.locations()[0]).toMatchObject({ state: 'ready', items: live.length });
      expect(all.indexing).toBe(false);
      expect(all.total).toBe(live.length);
      expect(new Set(all.items.map((item) => item.id))).toEqual(new Set(live.map((item) => item.id)));
      expect(all.items.slice(0, first.items.length).map((item) => item.createdAt)).toEqual(first.items.map((item) => item.createdAt));
      expect(all.corrupt).toEqual(['lib_ffffffffffffffff.json']);
      // Search over the whole library: an old item, and a deleted one is not found.
      const oldest = live.reduce((a, b) => (a.createdAt < b.createdAt ? a : b));
      expect(hub.search({ text: `ref${Number.parseInt(oldest.id.slice(4), 16)}q` }).items[0]?.id).toBe(oldest.id); // exact match first (one typo is forgiven)
      expect(hub.search({ text: 'ref9q' }).items.map((item) => item.id)).not.toContain(idOf(9));
      expect(hub.search({ text: 'zudio kochi' }).total).toBe(live.filter((item) => item.title.includes('Kochi')).length);
    } finally {
      await hub.close();
    }
  });

  it('does the same for a team folder (read asynchronously), and its second open comes from the cache', async () => {
    const dir = join(root, 'team');
    await writeLibrary(dir);
    const options = { dir, location: { id: 'team_0000aaaa', name: 'Team', kind: 'team' as const }, device: { id: 'dev', name: 'dev' }, cacheBase: join(root, 'cache', 'team') };
    const store = new LibraryStore(options);
    await store.firstResults;
    expect(store.describe().state).toBe('opening');
    const shown = store.search({ sort: 'date' }).items.map((item) => item.createdAt);
    expect(shown.length).toBeGreaterThanOrEqual(FIRST_ROWS);
    expect(shown).toEqual(newestLive(items, shown.length));
    await store.ready;
    expect(store.size).toBe(items.filter((item) => !item.deletedAt).length);
    await store.close();
    await store.writeCache();
    const again = new LibraryStore(options);
    await again.firstResults;
    expect(again.search({ sort: 'date' }).items.map((item) => item.createdAt)).toEqual(newestLive(items, PAGE));
    await again.ready;
    expect(again.search({ text: 'zudio surat' }).total).toBe(items.filter((item) => !item.deletedAt && item.title.includes('Surat')).length);
    await again.close();
  });
});

describe('first open of a library the app saved (time-ordered file names), no cache', () => {
  it('finds the newest by name, glances at the files of earlier versions, and the full read places a name that lies', async () => {
    const dataDir = join(root, 'saved');
    const dir = join(dataDir, 'library');
    const writer = await LibraryStore.open(dataDir);
    const all: LibraryItem[] = [];
    for (let i = 0; i < 400; i += 1) {
      const sig = `sig_${(i + 1).toString(16).padStart(16, '0')}`;
      const saved = await writer.save({ kind: 'answer', title: `Saved note ${i}`, markdown: `Zudio in Pune (saved${i}q) [${sig}].`, citations: [{ id: sig, title: 'Zudio in Pune', source_name: 'ET Retail', published_at: '2026-10-01T00:00:00Z', detail: null }], createdAt: createdAtOf(i), meta: {} });
      all.push(i % 9 === 0 ? { ...saved, deletedAt: 'deleted' } : saved);
    }
    for (const item of all) if (item.deletedAt) await writer.remove(item.id);
    await writer.close();
    expect(all.filter((item) => createdAtBoundOfId(item.id, Date.now()) === null)).toEqual([]);
    // Files of an earlier version (random ids), over the same years, and the newest live item of all among them.
    for (let i = 400; i < 550; i += 1) {
      const item = { ...itemOf(i), id: `lib_${randomBytes(8).toString('hex')}`, createdAt: i === 548 ? '2026-11-28T00:00:00.000Z' : createdAtOf(i) };
      all.push(item);
      await writeFile(join(dir, `${item.id}.json`), JSON.stringify(item));
    }
    // A file whose time-ordered name says 2021 while it holds a newer createdAt than any other.
    const liar = { ...itemOf(550), id: libraryItemId('2021-03-01T00:00:00.000Z'), createdAt: '2026-11-29T00:00:00.000Z', deletedAt: null };
    await writeFile(join(dir, `${liar.id}.json`), JSON.stringify(liar));
    // Modified times run opposite to createdAt.
    for (const item of all) {
      const mtime = new Date(Date.UTC(2030, 0, 1) - Date.parse(item.createdAt) / 1000);
      await utimes(join(dir, `${item.id}.json`), mtime, mtime);
    }

    const store = new LibraryStore({ dir, location: { id: 'personal', name: 'Personal', kind: 'personal' }, device: { id: 'dev', name: 'dev' }, cacheBase: join(root, 'saved-cache', 'personal') });
    try {
      await store.firstResults;
      const first = store.search({ sort: 'date' });
      expect(store.describe().state).toBe('opening');
      expect(store.index.entries.size).toBeLessThan(all.length);
      // The newest live items, the earlier version's newest included; the liar is not read yet.
      expect(first.items.length).toBeGreaterThanOrEqual(FIRST_ROWS);
      expect(first.items.map((item) => item.createdAt)).toEqual(newestLive(all, first.items.length));
      expect(first.items[0]!.createdAt).toBe('2026-11-28T00:00:00.000Z');
      await store.ready;
      const whole = store.search({ sort: 'date' }, 5_000);
      expect(whole.total).toBe(all.filter((item) => !item.deletedAt).length + 1);
      expect(whole.items.slice(0, PAGE).map((item) => item.createdAt)).toEqual(newestLive([...all, liar], PAGE));
      expect(whole.items[0]!.id).toBe(liar.id);
      expect(whole.corrupt).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
