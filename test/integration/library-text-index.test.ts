/**
 * The library's binary full-text index (library-text-index.ts) against what search found before
 * it: MiniSearch with the library's options and its term-by-term AND (the code it replaced, kept
 * here as the reference). Same matches and the same scores on a fixed set of queries over 1,500
 * generated items, after adds, replacements and removals too; a saved index reads back the same;
 * a stale, torn or corrupt index file is refused (the store then rebuilds it from the files and
 * search finds what it found before, snippets included).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch, { type SearchOptions } from 'minisearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldsOf } from '../../src/main/services/library/library-index';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { LibraryTextIndex } from '../../src/main/services/library/library-text-index';
import type { LibraryItem } from '../../src/shared/library';
import { writeLibraryItems } from '../bench/library-bench';

const FIELDS = ['title', 'text', 'citations', 'sources', 'entities', 'tags'] as const;
const BOOSTS = [3, 1, 1.5, 2, 1, 2];
const QUERIES = ['quick commerce Bengaluru', 'Tanishq', 'ET Retail', 'dark stores', 'zudio pune', 'revenue growth', 'reliance', 'bengaluru', 'bengalore', 'store', 'fashion retail india', 'q', 'Retail, retail!', 'growth reveneu', 'nykaa beauty', 'd-mart', '—', 'no such word anywhere', 'lib_0000000000000001'];

// ---- the reference: the search as it was (library-index.ts before the binary index) ----
type Doc = Record<(typeof FIELDS)[number] | 'id', string>;
const fuzzyFor = (term: string, i: number, terms: string[]): number => (i === terms.length - 1 && term.length > 5 ? 1 : 0);
const INDEX_OPTIONS = {
  fields: [...FIELDS],
  storeFields: [],
  searchOptions: { prefix: true, fuzzy: fuzzyFor, maxFuzzy: 1, boost: { title: 3, sources: 2, citations: 1.5, tags: 2 }, combineWith: 'AND' } satisfies SearchOptions,
};
const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
const processTerm = MiniSearch.getDefault('processTerm') as (term: string) => string | null | undefined | false;

function referenceSearch(index: MiniSearch<Doc>, text: string): Map<string, number> {
  const terms = tokenize(text).map((term) => processTerm(term)).filter((term): term is string => !!term);
  if (terms.length <= 1) return new Map(index.search(text).map((hit) => [hit.id as string, hit.score]));
  const options = (i: number): SearchOptions => ({ ...INDEX_OPTIONS.searchOptions, fuzzy: fuzzyFor(terms[i]!, i, terms) });
  let scores: Map<string, number> | null = null;
  for (let i = 0; i < terms.length; i += 1) {
    const kept: Map<string, number> | null = scores;
    const next = new Map<string, number>();
    for (const hit of index.search(terms[i]!, options(i))) if (!kept || kept.has(hit.id as string)) next.set(hit.id as string, (kept?.get(hit.id as string) ?? 0) + hit.score);
    scores = next;
  }
  return scores!;
}

// The reference indexes the same field texts as the app (fieldsOf, in FIELDS's order): what is
// compared is the index and its scores, not how an item's fields are read.
const docOf = (item: LibraryItem): Doc => {
  const texts = fieldsOf(item);
  return { id: item.id, ...Object.fromEntries(FIELDS.map((field, i) => [field, texts[i]!])) } as Doc;
};

function expectSameResults(index: LibraryTextIndex, reference: MiniSearch<Doc>): void {
  for (const query of QUERIES) {
    const expected = referenceSearch(reference, query);
    const actual = new Map(index.search(query).map((hit) => [hit.id, hit.score]));
    expect([...actual.keys()].sort(), query).toEqual([...expected.keys()].sort());
    for (const [id, score] of expected) expect(Math.abs(actual.get(id)! - score) / score, `${query}: ${id}`).toBeLessThan(1e-9);
  }
}

let root: string;
let items: LibraryItem[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'clarity-textindex-'));
  items = await writeLibraryItems(root, 1_500);
  // A few by hand: punctuation, a tag, capitals and a word one letter off a real one.
  items[0] = { ...items[0]!, title: 'D-Mart’s revenue: growth (FY26) — “Bengalore” stores', tags: ['board', 'Q3 review'] };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('library text index', () => {
  it('finds what MiniSearch found, with the same scores', () => {
    const reference = new MiniSearch<Doc>(INDEX_OPTIONS);
    const index = new LibraryTextIndex(BOOSTS);
    for (const item of items) {
      reference.add(docOf(item));
      index.add(item.id, fieldsOf(item));
    }
    expect(QUERIES.filter((query) => index.search(query).length > 0).length).toBeGreaterThan(12);
    expectSameResults(index, reference);
    // Compacted (as before saving): the same.
    index.compact();
    expectSameResults(index, reference);
  });

  it('stays the same after items are replaced, removed and added on top of a compacted index', () => {
    const reference = new MiniSearch<Doc>(INDEX_OPTIONS);
    const index = new LibraryTextIndex(BOOSTS);
    for (const item of items.slice(0, 1_200)) {
      reference.add(docOf(item));
      index.add(item.id, fieldsOf(item));
    }
    index.compact();
    for (let i = 0; i < 1_200; i += 7) {
      reference.remove(docOf(items[i]!));
      index.remove(items[i]!.id);
    }
    for (let i = 3; i < 1_200; i += 11) {
      if (!reference.has(items[i]!.id)) continue;
      const changed = { ...items[i]!, title: `Tanishq bridal ${items[i]!.title}`, tags: ['quick-commerce'] };
      // Removed exactly (MiniSearch's `discard` leaves postings until a vacuum, which then scores the same).
      reference.remove(docOf(items[i]!));
      reference.add(docOf(changed));
      index.add(changed.id, fieldsOf(changed));
    }
    for (const item of items.slice(1_200)) {
      reference.add(docOf(item));
      index.add(item.id, fieldsOf(item));
    }
    expect(index.size).toBe(reference.documentCount);
    expectSameResults(index, reference);
    index.compact();
    expectSameResults(index, reference);
  });

  it('reads back what it saved, and refuses another key, a torn file and changed bytes', () => {
    const reference = new MiniSearch<Doc>(INDEX_OPTIONS);
    const index = new LibraryTextIndex(BOOSTS);
    for (const item of items) {
      reference.add(docOf(item));
      index.add(item.id, fieldsOf(item));
    }
    const file = index.serialize('library\ngen-1');
    const loaded = LibraryTextIndex.deserialize(file, 'library\ngen-1', BOOSTS)!;
    expect(loaded.size).toBe(items.length);
    expectSameResults(loaded, reference);
    // Unaligned bytes (a Buffer from a pool) read the same.
    const shifted = Buffer.alloc(file.length + 1).subarray(1);
    file.copy(shifted);
    expect(LibraryTextIndex.deserialize(shifted, 'library\ngen-1', BOOSTS)?.search('Tanishq').length).toBe(loaded.search('Tanishq').length);
    expect(LibraryTextIndex.deserialize(file, 'library\ngen-2', BOOSTS)).toBeNull();
    expect(LibraryTextIndex.deserialize(file, 'library\ngen-1', [3, 1])).toBeNull();
    expect(LibraryTextIndex.deserialize(file.subarray(0, file.length - 4), 'library\ngen-1', BOOSTS)).toBeNull();
    expect(LibraryTextIndex.deserialize(Buffer.alloc(0), 'library\ngen-1', BOOSTS)).toBeNull();
    for (const at of [3, 9, 40, Math.floor(file.length / 2), file.length - 1]) {
      const flipped = Buffer.from(file);
      flipped[at] = flipped[at]! ^ 0x5a;
      expect(LibraryTextIndex.deserialize(flipped, 'library\ngen-1', BOOSTS), `byte ${at}`).toBeNull();
    }
  });

  it('a later open with a stale or corrupt index file rebuilds it from the library files and finds the same', async () => {
    const options = { dir: join(root, 'library'), location: { id: 'personal', name: 'Personal', kind: 'personal' as const }, device: { id: 't', name: 't' }, cacheBase: join(root, 'library-cache', 'personal') };
    const first = new LibraryStore(options);
    await first.ready;
    const before = Object.fromEntries(QUERIES.map((query) => [query, first.search({ text: query }, 5_000).items.map((item) => item.id).sort()]));
    const snippets = first.search({ text: 'Tanishq' }).items.map((item) => [item.id, item.snippet]);
    expect(snippets.filter(([, snippet]) => snippet?.toLowerCase().includes('tanishq')).length).toBeGreaterThan(10);
    await first.writeCache();
    await first.close();
    const indexFile = `${options.cacheBase}.index.bin`;
    const good = await readFile(indexFile);
    const reopen = async (): Promise<void> => {
      const store = new LibraryStore(options);
      await store.ready;
      for (const query of QUERIES) expect(store.search({ text: query }, 5_000).items.map((item) => item.id).sort(), query).toEqual(before[query]);
      expect(store.size).toBe(items.filter((item) => !item.deletedAt).length);
      // Snippets come from the texts cache (or the files), the same either way.
      expect(store.search({ text: 'Tanishq' }).items.map((item) => [item.id, item.snippet])).toEqual(snippets);
      await store.close();
    };
    await reopen(); // the good file
    const textsFile = `${options.cacheBase}.texts.bin`;
    const texts = await readFile(textsFile);
    const flipped = Buffer.from(texts);
    flipped[flipped.length - 10] = flipped[flipped.length - 10]! ^ 0x20;
    await writeFile(textsFile, flipped);
    await reopen();
    await writeFile(textsFile, texts.subarray(0, 100));
    await reopen();
    await writeFile(indexFile, good);
    await writeFile(textsFile, texts);
    await reopen();
    const corrupt = Buffer.from(good);
    corrupt[corrupt.length - 3] = corrupt[corrupt.length - 3]! ^ 0xff;
    await writeFile(indexFile, corrupt);
    await reopen();
    await writeFile(indexFile, good.subarray(0, 1_000));
    await reopen();
    await writeFile(indexFile, 'not an index');
    await reopen();
    // Stale: an index from an earlier cache write beside the entries of a later one, where an
    // item's title changed (its entry's stamp is current, so the scan would not read it again).
    await writeFile(indexFile, good);
    const editor = new LibraryStore(options);
    await editor.ready;
    const edited = items.find((item) => !item.deletedAt)!;
    await editor.update(edited.id, { title: 'Zyzzyva quarterly' });
    await editor.writeCache();
    await editor.close();
    await writeFile(indexFile, good);
    const store = new LibraryStore(options);
    await store.ready;
    expect(store.search({ text: 'zyzzyva' }).items.map((item) => item.id)).toEqual([edited.id]);
    await store.close();
  });
});
