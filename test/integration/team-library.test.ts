/**
 * Two app instances (two data directories, each its own LibraryHub and device id) share one
 * team folder on a real temp directory: saving, picking up changes, concurrent edits into a
 * conflict and its resolution, deletion with undo, a half-written file, and bundles.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleError, exportBundle, readBundle, applyImport, planImport } from '../../src/main/services/library/library-bundle';
import { LibraryHub } from '../../src/main/services/library/library-hub';
import type { NewLibraryItem } from '../../src/main/services/library/library-store';

let root: string;
let team: string;
let a: LibraryHub;
let b: LibraryHub;
let teamId: { a: string; b: string };

const citation = (n: number) => ({
  id: `sig_${n.toString(16).padStart(16, '0')}`,
  title: `Zudio opens store ${n} in Pune`,
  source_id: 'src_et_retail',
  source_name: 'ET Retail',
  published_at: '2026-10-01T00:00:00Z',
  url: `https://et-retail.example/zudio-${n}`,
  slug: `zudio-${n}`,
  snippet: 'Zudio opened a store.',
  detail: { type: 'store_opening', body: 'Body text.', entities: { retailers: ['Zudio'], segments: ['fashion'], cities: ['Pune'], states: ['Maharashtra'] }, metrics: { stores: n }, sourceKind: 'press', healthWhenCited: 'healthy' as const, itemsWhenCited: 4, citedAt: '2026-11-01T00:00:00Z' },
});
const newItem = (title: string): NewLibraryItem => ({ kind: 'answer', title, markdown: `Zudio keeps opening stores [${citation(1).id}] [${citation(2).id}].`, citations: [citation(1), citation(2)], createdAt: '2026-11-20T10:00:00Z', meta: { question: title } });
const titlesIn = (hub: LibraryHub, location: string): string[] => hub.search({ location, sort: 'title' }).items.map((i) => i.title);
const poll = { timeout: 8_000, interval: 50 };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'clarity-team-'));
  team = join(root, 'Dropbox', 'Team library');
  await import('node:fs/promises').then((fs) => fs.mkdir(team, { recursive: true }));
  a = await LibraryHub.open({ dataDir: join(root, 'a'), pollMs: 300 });
  b = await LibraryHub.open({ dataDir: join(root, 'b'), pollMs: 300 });
  teamId = { a: (await a.addLocation(team, 'Retail team')).id, b: (await b.addLocation(team, 'Retail team')).id };
  await Promise.all([a.ready(), b.ready()]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  await rm(root, { recursive: true, force: true });
});

describe('a team library shared by two instances', () => {
  it('shows an item saved by one in the other, with where it lives', async () => {
    const saved = await a.save(newItem('Zudio in Pune'), teamId.a);
    await expect.poll(() => titlesIn(b, teamId.b), poll).toEqual(['Zudio in Pune']);
    expect(b.summary(saved.id)).toMatchObject({ location: teamId.b, conflicts: 0 });
    expect(titlesIn(b, 'personal')).toEqual([]);
    expect((await b.get(saved.id))!.revision).toMatchObject({ n: 1, device: a.device.id });
    // The readable copy for people is written beside it.
    expect(await readFile(join(team, `${saved.id}.md`), 'utf8')).toContain('# Zudio in Pune');
  });

  it('keeps both versions of concurrent edits, shows the conflict, and resolves it', async () => {
    const { id } = (await a.save(newItem('Board pack'), teamId.a));
    await expect.poll(() => b.summary(id)?.title, poll).toBe('Board pack');
    // Both change the same revision (the one each had open) before either sees the other's change.
    const seen = b.store(teamId.b).index.entries.get(id)!.revision;
    const first = await a.find(id)!.updateWithConflict(id, { title: 'Board pack — Ann' });
    const second = await b.find(id)!.updateWithConflict(id, { title: 'Board pack — Ravi' }, seen);
    expect(first!.conflict).toBe(false);
    expect(second!.conflict).toBe(true);
    // Nothing lost: Ann's is the item, Ravi's a conflict copy named like a sync service's.
    const names = await readdir(team);
    expect(names.filter((n) => n.startsWith(`${id} (conflicted copy `) && n.endsWith(').json'))).toHaveLength(1);
    await expect.poll(() => a.summary(id)?.conflicts, poll).toBe(1);
    const view = (await a.view(id))!;
    expect(view.title).toBe('Board pack — Ann');
    expect(view.conflicts.map((c) => c.item.title)).toEqual(['Board pack — Ravi']);
    // Ann keeps Ravi's version; both instances converge on it and the copy is gone.
    await a.find(id)!.resolveConflict(id, view.conflicts[0]!.file, 'copy');
    await expect.poll(async () => [(await b.get(id))?.title, b.summary(id)?.conflicts], poll).toEqual(['Board pack — Ravi', 0]);
    expect((await readdir(team)).some((n) => n.includes('conflicted copy'))).toBe(false);
  });

  it('keeps both when asked: the copy becomes an item of its own', async () => {
    const { id } = await a.save(newItem('Quarterly view'), teamId.a);
    await expect.poll(() => b.summary(id)?.title, poll).toBe('Quarterly view');
    const seen = b.store(teamId.b).index.entries.get(id)!.revision;
    await a.find(id)!.update(id, { tags: ['q3'] });
    await b.find(id)!.updateWithConflict(id, { tags: ['q4'] }, seen);
    await expect.poll(() => a.summary(id)?.conflicts, poll).toBe(1);
    const [copy] = (await a.view(id))!.conflicts;
    await a.find(id)!.resolveConflict(id, copy!.file, 'both');
    await expect.poll(() => titlesIn(b, teamId.b).filter((t) => t.startsWith('Quarterly view')), poll).toEqual(['Quarterly view', 'Quarterly view (conflicted copy)']);
  });

  it('propagates a deletion as a tombstone, and its undo', async () => {
    const { id } = await a.save(newItem('To be deleted'), teamId.a);
    await expect.poll(() => b.summary(id)?.title, poll).toBe('To be deleted');
    expect(await a.find(id)!.remove(id)).toBe(true);
    await expect.poll(() => b.summary(id), poll).toBeUndefined();
    // The file stays, as a tombstone that syncs.
    expect(JSON.parse(await readFile(join(team, `${id}.json`), 'utf8')).deletedAt).toEqual(expect.any(String));
    await a.store(teamId.a).restore(id);
    await expect.poll(() => b.summary(id)?.title, poll).toBe('To be deleted');
  });

  it('ignores a half-synced file until it parses', async () => {
    const item = { ...(await a.save(newItem('Arrives in pieces'), 'personal')), id: 'lib_00000000000000ee' };
    const text = JSON.stringify(item);
    await writeFile(join(team, 'lib_00000000000000ee.json'), text.slice(0, Math.floor(text.length / 2)));
    await expect.poll(() => b.store(teamId.b).corrupt, poll).toEqual(['lib_00000000000000ee.json']);
    expect(titlesIn(b, teamId.b)).not.toContain('Arrives in pieces');
    await writeFile(join(team, 'lib_00000000000000ee.json'), text);
    await expect.poll(() => titlesIn(b, teamId.b), poll).toContain('Arrives in pieces');
    expect(b.store(teamId.b).corrupt).toEqual([]);
  });

  it('copies and moves items between libraries', async () => {
    const item = await b.save(newItem('Personal note'), 'personal');
    const copy = await b.transfer(item.id, teamId.b, 'copy');
    expect(copy.id).not.toBe(item.id);
    await expect.poll(() => a.summary(copy.id)?.location, poll).toBe(teamId.a);
    const moved = await b.transfer(item.id, teamId.b, 'move');
    expect(moved.id).toBe(item.id);
    expect(b.summary(item.id)?.location).toBe(teamId.b);
    expect(b.store('personal').summary(item.id)).toBeUndefined();
  });
});

describe('.clarity bundles', () => {
  it('round-trips between two instances with every citation snapshot intact, and offers newer revisions', async () => {
    const original = await a.save(newItem('For the client'), 'personal');
    const bundle = exportBundle([original], 'For the client');
    const target = b.store('personal');
    expect(planImport(readBundle(bundle).items, target).items).toEqual([{ id: original.id, title: 'For the client', kind: 'answer', status: 'new' }]);
    expect(await applyImport(readBundle(bundle).items, target, [])).toMatchObject({ added: 1 });
    const imported = (await target.get(original.id))!;
    expect(imported.citations).toEqual(original.citations);
    expect(imported.markdown).toBe(original.markdown);
    // Importing it again changes nothing; a later revision is offered, not applied silently.
    expect(planImport(readBundle(bundle).items, target).items[0]!.status).toBe('same');
    const edited = (await a.store('personal').update(original.id, { title: 'For the client v2' }))!;
    const newer = readBundle(exportBundle([edited], 'v2')).items;
    expect(planImport(newer, target).items[0]!.status).toBe('newer');
    expect(await applyImport(newer, target, [])).toMatchObject({ replaced: 0, skipped: 1 });
    expect((await target.get(original.id))!.title).toBe('For the client');
    expect(await applyImport(newer, target, [original.id])).toMatchObject({ replaced: 1 });
    expect((await target.get(original.id))!.title).toBe('For the client v2');
  });

  it('refuses hostile bundles with a clear message and writes nothing', async () => {
    const good = exportBundle([await a.save(newItem('Clean'), 'personal')], 'Clean');
    const files = unzipSync(good);
    const manifest = JSON.parse(strFromU8(files['manifest.json']!)) as { items: Array<{ path: string }> };
    const itemPath = manifest.items[0]!.path;
    const hostile: Array<[string, Uint8Array, RegExp]> = [
      ['path traversal', zipSync({ ...files, '../../evil.json': strToU8('{}') }), /should not: “\.\.\/\.\.\/evil\.json”/],
      ['absolute path', zipSync({ ...files, '/etc/cron.d/x': strToU8('x') }), /should not/],
      ['oversized entry', zipSync({ ...files, [`signals/sig_${'f'.repeat(16)}.json`]: new Uint8Array(9 * 1024 * 1024) }), /larger than 8 MB/],
      ['bad JSON', zipSync({ ...files, 'manifest.json': strToU8('{"format": "clarity-bundle",') }), /manifest\.json is not valid JSON/],
      ['wrong hash', zipSync({ ...files, [itemPath]: strToU8(strFromU8(files[itemPath]!).replace('Clean', 'Dirty')) }), /does not match its hash/],
      ['not a zip', strToU8('just text'), /not a Clarity bundle/],
    ];
    const before = await readdir(join(root, 'b', 'library'));
    for (const [label, data, message] of hostile) {
      expect(() => readBundle(data), label).toThrow(BundleError);
      expect(() => readBundle(data), label).toThrow(message);
    }
    expect(await readdir(join(root, 'b', 'library'))).toEqual(before);
    expect((await readdir(root)).sort()).toEqual(['Dropbox', 'a', 'b']);
  });

  it('writes no secret into a library file or a bundle', async () => {
    const secret = 'ck_TeamLibrarySecret0123456789abcdef';
    const item = await a.save({ ...newItem('With a service URL'), meta: { serviceUrl: `https://analyst:${secret}@retail.example/api?token=${secret}` } }, teamId.a);
    expect(item.meta.serviceUrl).toBe('https://retail.example/api');
    const bundle = exportBundle([{ ...item, meta: { serviceUrl: `https://x:${secret}@retail.example/` } }], 'x');
    const contents = [...(await readdir(team)).map((n) => readFile(join(team, n), 'utf8').catch(() => ''))];
    for (const text of await Promise.all(contents)) expect(text).not.toContain(secret);
    for (const data of Object.values(unzipSync(bundle))) expect(strFromU8(data)).not.toContain(secret);
  });
});

describe('purging old tombstones', () => {
  it('never removes a file a colleague restored (or changed) after the last scan; removes a tombstone still on disk', async () => {
    const { LibraryIndex, entryOf } = await import('../../src/main/services/library/library-index');
    const { purgeTombstones } = await import('../../src/main/services/library/library-scan');
    const { id } = await a.save(newItem('Old tombstone'), 'personal');
    await a.find(id)!.remove(id);
    const dir = await mkdtemp(join(tmpdir(), 'clarity-purge-'));
    const tombstone = JSON.parse(await readFile(join(root, 'a', 'library', `${id}.json`), 'utf8')) as Parameters<typeof entryOf>[0];
    const index = new LibraryIndex();
    index.put(tombstone, entryOf(tombstone, tombstone.revision!, { mtimeMs: 0, size: 0 }));
    const later = Date.parse(tombstone.deletedAt!) + 60 * 86_400_000;
    // Synced in since the scan: the colleague's restore, one revision on.
    const restored = { ...tombstone, deletedAt: null, revision: { ...tombstone.revision!, n: tombstone.revision!.n + 1 } };
    await writeFile(join(dir, `${id}.json`), JSON.stringify(restored));
    await purgeTombstones(dir, index, 1_000, later);
    expect(JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')).deletedAt).toBeNull();
    // The tombstone itself, unchanged on disk, goes.
    index.put(tombstone, entryOf(tombstone, tombstone.revision!, { mtimeMs: 0, size: 0 }));
    await writeFile(join(dir, `${id}.json`), JSON.stringify(tombstone));
    expect(await purgeTombstones(dir, index, 1_000, later)).toBe(true);
    expect(await readdir(dir)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('links in a synced folder', () => {
  it('an item-named link to a file elsewhere on this machine is not read', async () => {
    const { readItemFile } = await import('../../src/main/services/library/library-files');
    const { symlink } = await import('node:fs/promises');
    const { id } = await a.save(newItem('Private elsewhere'), 'personal');
    const outside = join(root, 'a', 'library', `${id}.json`);
    expect((await readItemFile(outside)).ok).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'clarity-links-'));
    await symlink(outside, join(dir, `${id}.json`));
    expect(await readItemFile(join(dir, `${id}.json`))).toEqual({ ok: false, missing: false });
    await rm(dir, { recursive: true, force: true });
  });
});

describe('bundle import in the app (issue 29, item 10)', () => {
  it('inflates off the main thread with the same checks: a good bundle reads the same, hostile ones are refused with the same messages', async () => {
    const { readBundleInBackground } = await import('../../src/main/services/library/library-bundle');
    const item = await a.save(newItem('Background'), 'personal');
    const good = exportBundle([item], 'Background');
    expect((await readBundleInBackground(good)).items).toEqual(readBundle(good).items);
    const files = unzipSync(good);
    for (const [data, message] of [
      [zipSync({ ...files, '../../evil.json': strToU8('{}') }), /should not/],
      [zipSync({ ...files, [`signals/sig_${'f'.repeat(16)}.json`]: new Uint8Array(9 * 1024 * 1024) }), /larger than 8 MB/],
      [strToU8('just text'), /not a Clarity bundle/],
      [new Uint8Array(65 * 1024 * 1024), /65\.0 MB; the app imports bundles up to 64 MB/],
    ] as Array<[Uint8Array, RegExp]>) {
      await expect(readBundleInBackground(data)).rejects.toThrow(message);
    }
  });

  it('a large entry inflates in a worker: the main thread keeps running timers while it unzips', async () => {
    const { readBundleInBackground } = await import('../../src/main/services/library/library-bundle');
    const item = await a.save({ ...newItem('Long'), markdown: `# Long\n\n${'Zepto opened 12 dark stores in Pune. '.repeat(120_000)}` }, 'personal');
    const bundle = exportBundle([item], 'Long');
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    const read = await readBundleInBackground(bundle);
    clearInterval(timer);
    expect(read.items[0]!.markdown.length).toBeGreaterThan(4_000_000);
    // Off the main thread the event loop keeps turning while the entry inflates.
    expect(ticks).toBeGreaterThan(0);
  });
});
