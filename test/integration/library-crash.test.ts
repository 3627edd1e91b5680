/**
 * Crash safety: a process writing to the library is killed with SIGKILL at random moments,
 * many times; every time, the library opens and every item is whole (its old or its new
 * state), never corrupt.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { bundleForNode } from '../support/node-bundle';

const KILLS = 30;
let dataDir: string;
let bundleDir: string;
/** test/support/library-writer.ts bundled once, so each of the 30 writers starts without the TypeScript loader. */
let writer: string;

beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), 'clarity-crash-writer-'));
  writer = await bundleForNode('test/support/library-writer.ts', bundleDir);
  dataDir = await mkdtemp(join(tmpdir(), 'clarity-crash-'));
  const store = await LibraryStore.open(dataDir);
  for (let i = 0; i < 5; i += 1) {
    await store.save({ kind: 'report', title: `Seed report ${i}`, markdown: `Seed ${i} [sig_0123456789abcdef]`, citations: [{ id: 'sig_0123456789abcdef', title: 'A signal' }], createdAt: new Date().toISOString(), meta: {} });
  }
  await store.close();
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(bundleDir, { recursive: true, force: true });
});

async function runAndKill(): Promise<void> {
  const child = spawn(process.execPath, [writer, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Killed after a random number of finished writes (0–20): the next one is under way then.
  const writes = Math.floor(Math.random() * 21);
  await new Promise<void>((resolve, reject) => {
    let seen = -1; // 'ready' first, then one 'wrote' per write
    createInterface({ input: child.stdout! }).on('line', () => {
      seen += 1;
      if (seen === writes) resolve();
    });
    child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('library crash safety', () => {
  it(`opens whole after ${KILLS} SIGKILLs mid-write`, async () => {
    let seenTitles = new Map<string, string>();
    for (let kill = 0; kill < KILLS; kill += 1) {
      await runAndKill();
      const store = await LibraryStore.open(dataDir);
      expect(store.corrupt, `after kill ${kill + 1}`).toEqual([]);
      const { items, total } = store.search({}, 100_000);
      expect(total).toBeGreaterThanOrEqual(5);
      const titles = new Map(items.map((item) => [item.id, item.title]));
      // Nothing that existed disappears; each item is in a state it was really written in.
      for (const [id] of seenTitles) expect(titles.has(id), `item ${id} survived kill ${kill + 1}`).toBe(true);
      for (const item of items) expect(item.title).toMatch(/^(Seed report \d|Crash-test answer #\d+)( #\d+)?$/);
      seenTitles = titles;
      await store.close();
    }
    // Leftover temp files from interrupted writes are never mistaken for items.
    const names = await readdir(join(dataDir, 'library'));
    expect(names.filter((n) => n.endsWith('.json') && !/^lib_[0-9a-f]{16}\.json$/.test(n))).toEqual([]);
  }, 240_000);

  it('reports a corrupt item and skips it, and migrates an old-format item', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clarity-corrupt-lib-'));
    try {
      const store = await LibraryStore.open(dir);
      await store.save({ kind: 'answer', title: 'Good item', markdown: 'Fine [sig_0123456789abcdef]', citations: [{ id: 'sig_0123456789abcdef' }], createdAt: '2026-11-01T00:00:00Z', meta: {} });
      await writeFile(join(dir, 'library', 'lib_00000000000000aa.json'), '{"formatVersion": 2, "id": "lib_00');
      await writeFile(
        join(dir, 'library', 'lib_00000000000000bb.json'),
        JSON.stringify({ formatVersion: 1, id: 'lib_00000000000000bb', kind: 'report', title: 'Old report', savedAt: '2025-01-01T00:00:00Z', markdown: 'Old [sig_0123456789abcdef]', citations: [{ id: 'sig_0123456789abcdef', title: 'Old signal', source: 'Mint', url: 'https://mint.example/x' }] }),
      );
      const reopened = await LibraryStore.open(dir);
      expect(reopened.corrupt).toEqual(['lib_00000000000000aa.json']);
      expect(reopened.search({}).items.map((i) => i.title).sort()).toEqual(['Good item', 'Old report']);
      const migrated = (await reopened.get('lib_00000000000000bb'))!;
      expect(migrated.formatVersion).toBe(2);
      expect(migrated.citations[0]).toMatchObject({ title: 'Old signal', source_name: 'Mint', url: 'https://mint.example/x' });
      expect(reopened.search({ text: 'Mint' }).items.map((i) => i.id)).toEqual(['lib_00000000000000bb']);
      await Promise.all([store.close(), reopened.close()]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
