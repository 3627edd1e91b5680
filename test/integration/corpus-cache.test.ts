/**
 * The local service's corpus cache: a later start reads the same corpus and index the generator
 * would produce (the same answers), and anything that changes the corpus — the seed, the day,
 * the code — or a damaged file makes it generate again instead of failing.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpusCacheKey, readCorpusCache } from '../../src/service/corpus/corpus-cache';
import { generateCorpus } from '../../src/service/corpus/generator';
import type { CorpusOptions } from '../../src/service/corpus/generator';
import { openCachedSignalStore, SignalStore } from '../../src/service/signal-store';
import { startService } from '../../src/service/server';
import { pollUntil } from '../support/wait-for';

const OPTIONS: CorpusOptions & { anchor: Date } = { signalCount: 1_500, anchor: new Date('2026-11-01T00:00:00Z') };
const QUESTIONS = ['quick commerce growth in Bengaluru', 'Tanishq store count', 'DMart revenue last quarter', 'fashion stores Pune'];

let dir: string;
let codeDir: string;
const warnings: string[] = [];
const writes: Array<Promise<void> | null> = [];
const open = (options: CorpusOptions = OPTIONS, code = codeDir) => {
  const opened = openCachedSignalStore(options, { dir, codeDir: code }, (message) => warnings.push(message));
  writes.push(opened.written);
  return opened;
};
/** What answers are built from: the hits for a few questions, with their scores. */
const hits = (store: SignalStore) =>
  QUESTIONS.map((question) => store.index.search(question, { now: OPTIONS.anchor.getTime() }).map((hit) => [hit.signal.id, hit.score.toFixed(9), hit.entityMatches]));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clarity-corpus-cache-'));
  // Stands in for the service's code directory: its files are part of the cache key.
  codeDir = await mkdtemp(join(tmpdir(), 'clarity-corpus-code-'));
  await writeFile(join(codeDir, 'generator.js'), 'export const version = 1;\n');
  warnings.length = 0;
});
afterEach(async () => {
  await Promise.all(writes.splice(0));
  await rm(dir, { recursive: true, force: true });
  await rm(codeDir, { recursive: true, force: true });
});

const cacheFiles = async () => (await readdir(dir)).filter((name) => /^corpus-cache-[0-9a-f]{32}\.bin$/.test(name));

describe('corpus cache', () => {
  it('a second start reads the corpus and index from the cache, giving the same search results as generating them', async () => {
    const first = open();
    expect(first.from).toBe('generated');
    await first.written;
    expect(await cacheFiles()).toHaveLength(1);

    const second = open();
    expect(second.from).toBe('cache');
    expect(second.store.index.size).toBe(new SignalStore(OPTIONS).index.size);
    expect(hits(second.store)).toEqual(hits(new SignalStore(OPTIONS)));
    expect(JSON.parse(JSON.stringify(second.store.truth))).toEqual(JSON.parse(JSON.stringify(new SignalStore(OPTIONS).truth)));
    expect(second.store.sources).toEqual(first.store.sources);
    expect(warnings).toEqual([]);
  });

  it('a cached store still takes live signals, retrievable at once', async () => {
    await open().written;
    const { store, from } = open();
    expect(from).toBe('cache');
    const live = store.addLiveSignal(new Date(OPTIONS.anchor.getTime() + 60_000));
    expect(store.getSignal(live.id)).toBe(live);
    expect(store.index.search(live.title, { now: OPTIONS.anchor.getTime() }).map((hit) => hit.signal.id)).toContain(live.id);
  });

  it('a changed seed or day generates a new corpus and replaces the old file', async () => {
    await open().written;
    const [before] = await cacheFiles();
    const reseeded = open({ ...OPTIONS, seed: 7 });
    expect(reseeded.from).toBe('generated');
    expect(hits(reseeded.store)).toEqual(hits(new SignalStore({ ...OPTIONS, seed: 7 })));
    await reseeded.written;
    const after = await cacheFiles();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);

    const nextDay = open({ ...OPTIONS, seed: 7, anchor: new Date('2026-11-02T00:00:00Z') });
    expect(nextDay.from).toBe('generated');
  });

  it('a change to the generating code invalidates the cache', async () => {
    await open().written;
    const keyBefore = corpusCacheKey(OPTIONS, codeDir);
    // The key is read once per process per directory (as a service does); a new directory
    // with different code stands for the next build.
    const changed = await mkdtemp(join(tmpdir(), 'clarity-corpus-code-'));
    try {
      await writeFile(join(changed, 'generator.js'), 'export const version = 2;\n');
      expect(corpusCacheKey(OPTIONS, changed)).not.toBe(keyBefore);
      const rebuilt = open(OPTIONS, changed);
      expect(rebuilt.from).toBe('generated');
      await rebuilt.written;
    } finally {
      await rm(changed, { recursive: true, force: true });
    }
  });

  it('a code directory that cannot be read turns the cache off instead of failing the start', () => {
    const opened = open(OPTIONS, join(codeDir, 'missing'));
    expect(opened.from).toBe('generated');
    expect(opened.written).toBeNull();
    expect(hits(opened.store)).toEqual(hits(new SignalStore(OPTIONS)));
    expect(warnings[0]).toMatch(/corpus cache is off/);
  });

  it('the packed file holds exactly the generated corpus: every signal, source and truth as JSON would keep them', async () => {
    await open().written;
    const [file] = await cacheFiles();
    const { cached, problem } = readCorpusCache(dir, file!.slice('corpus-cache-'.length, -'.bin'.length));
    expect(problem).toBeUndefined();
    const generated = generateCorpus(OPTIONS);
    expect(JSON.parse(JSON.stringify(cached!.corpus))).toEqual(JSON.parse(JSON.stringify(generated)));
    expect(cached!.index.snapshot()).toEqual(new SignalStore(OPTIONS).index.snapshot());
  });

  it('a damaged cache file is regenerated with a warning, not fatal, and rewritten', async () => {
    await open().written;
    const [file] = await cacheFiles();
    const bytes = await readFile(join(dir, file!));
    // Cut short, as by a full disk or a crash mid-copy.
    await writeFile(join(dir, file!), bytes.subarray(0, bytes.length / 2));
    const damaged = open();
    expect(damaged.from).toBe('generated');
    expect(hits(damaged.store)).toEqual(hits(new SignalStore(OPTIONS)));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/corpus cache could not be used/);
    await damaged.written;
    expect(open().from).toBe('cache');

    // One byte changed in the middle (a bad sector): the checksum refuses it.
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    await writeFile(join(dir, file!), flipped);
    const refused = open();
    expect(refused.from).toBe('generated');
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/checksum/);
    // Its rewrite lands before the next change (under load it once landed after the empty file below).
    await refused.written;

    // Not a packed file at all (garbage, or an empty file).
    await writeFile(join(dir, file!), '');
    expect(open().from).toBe('generated');
    expect(warnings).toHaveLength(3);
  });

  it('a cache of the old JSON layout is left unread and removed when the packed one is written', async () => {
    const key = corpusCacheKey(OPTIONS, codeDir);
    // What format 1 wrote for these inputs (its key differed too: the format is part of it).
    const old = join(dir, `corpus-cache-${'0'.repeat(32)}.json`);
    await writeFile(old, JSON.stringify({ key, corpus: { signals: [], sources: [], truth: {} }, index: { lengths: [], postings: {} } }));
    const opened = open();
    expect(opened.from).toBe('generated');
    expect(opened.store.index.size).toBe(OPTIONS.signalCount);
    await opened.written;
    expect(await readdir(dir)).not.toContain('corpus-cache-' + '0'.repeat(32) + '.json');
    expect(await cacheFiles()).toHaveLength(1);
  });

  it('the service started twice on one data directory answers the same from its cache', async () => {
    const ask = async (url: string) => {
      const response = await fetch(`${url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: QUESTIONS[0] }] }) });
      const { content, citations, confidence } = (await response.json()) as { content: string; citations: string[]; confidence: number };
      return { content, citations, confidence };
    };
    const startOnce = async () => {
      const service = await startService({ ...OPTIONS, paceMs: 0, liveFeed: false, dataDir: dir, now: () => OPTIONS.anchor.getTime(), corpusCache: { dir, codeDir } });
      try {
        return await ask(service.url);
      } finally {
        await service.close();
      }
    };
    const first = await startOnce();
    // Let the background write land before the second start.
    await pollUntil(cacheFiles, (files) => files.length > 0, { timeout: 5_000, interval: 50 });
    expect(await startOnce()).toEqual(first);
    expect(first.citations.length).toBeGreaterThan(0);
  });
});
