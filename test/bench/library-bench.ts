/**
 * Library search with 10,000 saved items: opening time (LibraryStore.open on files written
 * beforehand, then to the first results of a query), then p50/p95 per query for typical queries,
 * beside a like-with-like baseline in the same run: a linear scan with the store's semantics
 * (the same indexed fields, tokens split and lower-cased as MiniSearch does, every query term
 * matched by prefix, the last one also within one typo if longer than 5 letters, AND) over a
 * corpus tokenised beforehand. Both result counts are reported, so a difference in semantics shows.
 * No query result is cached anywhere (the store has no such cache), so each repetition is cold.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ITEM_FILE, contentHash, humanCopy, itemFileText, libraryItemId } from '../../src/main/services/library/library-files';
import { FIRST_ROWS } from '../../src/main/services/library/library-glance';
import { HEAD_SIZE } from '../../src/main/services/library/library-index';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { generateCorpus } from '../../src/service/corpus/generator';
import { LIBRARY_FORMAT_VERSION, LibraryItemSchema, type LibraryItem } from '../../src/shared/library';

export interface LibraryBenchResult {
  items: number;
  /** First open, no cache: until the whole library is read and indexed. */
  open_ms: number;
  /** First open, no cache: until a first search shows results. */
  first_open_first_results_ms?: number;
  /** Reading every item file's bytes once in a plain loop, nothing else: the first open's floor. */
  first_open_floor_ms?: number;
  /** Listing the folder and reading only the first rows' item files (the 50 newest by their time-ordered names): the first open's floor now. */
  first_page_floor_ms?: number;
  /** What each way of listing the folder costs in the same run (ms). */
  listing_ms?: ListingCosts;
  /** Whether that first page held exactly the newest live items (by createdAt, as the list orders them). */
  first_page_newest?: boolean;
  /** A later open (cache present): until a first search shows results. */
  open_to_first_results_ms: number;
  /** A later open: until the whole library is checked against the cache. */
  reopen_ready_ms?: number;
  /** A later open: until a text search finds all it finds on the ready store (the persisted index loaded, not rebuilt). */
  search_usable_ms?: number;
  queries: Array<{ query: string; p50_ms: number; p95_ms: number; baseline_p50_ms: number; baseline_p95_ms: number; results: number; baseline_results: number }>;
}

/** MiniSearch's default tokenizer and term processing (split on spaces and punctuation, lower-cased). */
const tokens = (text: string): string[] => text.split(/[\n\r\p{Z}\p{P}]+/u).filter(Boolean).map((t) => t.toLowerCase());

/** Levenshtein distance, giving up once it exceeds `max`. */
function withinDistance(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, current[j]!);
    }
    if (rowMin > max) return false;
    previous = current;
  }
  return previous[b.length]! <= max;
}

/** The same fields the store indexes (library-store.ts, toDoc), tokenised once, before timing. */
function baselineCorpus(items: LibraryItem[]): Array<Set<string>> {
  return items.map((item) => {
    const c = item.citations;
    const text = [
      item.title,
      item.markdown.replace(/\[sig_[0-9a-f]+\]/g, ' '),
      c.map((x) => `${x.title ?? ''} ${x.snippet ?? ''}`).join(' '),
      c.map((x) => x.source_name ?? x.source_id ?? '').join(' '),
      c.flatMap((x) => (x.detail ? [...x.detail.entities.retailers, ...x.detail.entities.segments, ...x.detail.entities.cities, ...x.detail.entities.states] : [])).join(' '),
      item.tags.join(' '),
    ].join(' ');
    return new Set(tokens(text));
  });
}

/** The store's query semantics (prefix: true, one typo forgiven in the last term if longer than 5 letters, combineWith: AND), by linear scan. */
function baselineSearch(corpus: Array<Set<string>>, query: string): number {
  const terms = tokens(query);
  const fuzzy = (term: string, i: number): number => (i === terms.length - 1 && term.length > 5 ? 1 : 0);
  // A token's verdict per term is computed once per query (a vocabulary word recurs across items).
  const verdicts = terms.map(() => new Map<string, boolean>());
  const matches = (term: string, i: number, token: string): boolean => {
    let verdict = verdicts[i]!.get(token);
    if (verdict === undefined) {
      verdict = token.startsWith(term) || (fuzzy(term, i) > 0 && withinDistance(term, token, fuzzy(term, i)));
      verdicts[i]!.set(token, verdict);
    }
    return verdict;
  };
  let count = 0;
  for (const doc of corpus) {
    if (terms.every((term, i) => { for (const token of doc) if (matches(term, i, token)) return true; return false; })) count += 1;
  }
  return count;
}

const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const round = (n: number): number => Math.round(n * 1000) / 1000;

/** Until the Library view's first page (newest first, no query) lists at least one item: an empty list is not a result. */
async function firstResultsOf(store: LibraryStore): Promise<void> {
  await store.firstResults;
  while (store.search({ sort: 'date' }).items.length === 0) {
    await new Promise<void>((resolve) => {
      const stop = store.onChange(() => {
        stop();
        resolve();
      });
    });
  }
}

/** A new store with no cache: until the first page shows (checked to be the newest items), and until all is indexed. */
/** Until a text search on `store` finds `expected` items (checked at every change the store announces). */
async function searchUsable(store: LibraryStore, query: string, expected: number): Promise<void> {
  while (store.search({ text: query }).total !== expected) {
    await new Promise<void>((resolve) => {
      const stop = store.onChange(() => {
        stop();
        resolve();
      });
    });
  }
}

async function firstOpen(options: ConstructorParameters<typeof LibraryStore>[0], items: LibraryItem[]): Promise<{ firstOpenFirstResultsMs: number; openMs: number; firstPageNewest: boolean; tanishq: number }> {
  const started = performance.now();
  const store = new LibraryStore(options);
  await firstResultsOf(store);
  const firstOpenFirstResultsMs = performance.now() - started;
  const page = store.search({ sort: 'date' }).items.map((item) => item.createdAt);
  await store.ready;
  const openMs = performance.now() - started;
  const tanishq = store.search({ text: 'Tanishq' }).total;
  await store.writeCache();
  await store.close();
  const newest = items.filter((item) => !item.deletedAt).map((item) => item.createdAt).sort().reverse().slice(0, page.length);
  return { firstOpenFirstResultsMs, openMs, firstPageNewest: page.length > 0 && page.join() === newest.join(), tanishq };
}

/**
 * How the item files are named: `app` as the app saves them now (time-ordered ids, what a first
 * open lists instead of reading every file), `earlier` as earlier versions did (random ids).
 */
export type ItemNames = 'app' | 'earlier';

/**
 * `count` item files in `<dir>/library`, each citing three signals of a generated corpus, written
 * as `LibraryStore.save` writes a new item (its id, the schema's normal form, revision 1, the
 * pretty-printed JSON and its `.md` copy), without the fsync, which changes no byte.
 */
export async function writeLibraryItems(dir: string, count: number, names: ItemNames = 'app'): Promise<LibraryItem[]> {
  const corpus = generateCorpus({ signalCount: count * 3 });
  const sourceNames = new Map(corpus.sources.map((s) => [s.id, s.name]));
  await mkdir(join(dir, 'library'), { recursive: true });
  const items: LibraryItem[] = [];
  const taken = new Set<string>();
  for (let i = 0; i < count; i += 1) {
    const cited = corpus.signals.slice(i * 3, i * 3 + 3);
    const createdAt = cited[0]!.published_at;
    let id = '';
    while (!id || taken.has(id)) id = names === 'app' ? libraryItemId(createdAt) : `lib_${randomBytes(8).toString('hex')}`;
    taken.add(id);
    const clean = LibraryItemSchema.parse({
      formatVersion: LIBRARY_FORMAT_VERSION,
      id,
      kind: i % 5 === 0 ? 'report' : 'answer',
      title: cited[0]!.title,
      tags: i % 7 === 0 ? ['board'] : [],
      createdAt,
      savedAt: createdAt,
      updatedAt: createdAt,
      markdown: cited.map((s) => `- ${s.summary} [${s.id}]`).join('\n'),
      citations: cited.map((s) => ({ id: s.id, title: s.title, source_id: s.source_id, source_name: sourceNames.get(s.source_id), published_at: s.published_at, url: s.url, snippet: s.summary, detail: { type: s.type, body: s.body, entities: s.entities, metrics: s.metrics, sourceKind: null, healthWhenCited: 'healthy', itemsWhenCited: 5, citedAt: s.published_at } })),
      meta: {},
      deletedAt: null,
    });
    const item: LibraryItem = { ...clean, revision: { n: 1, device: 'bench', hash: contentHash(clean) } };
    items.push(item);
    await writeFile(join(dir, 'library', `${id}.json`), itemFileText(item));
    await writeFile(join(dir, 'library', `${id}.md`), humanCopy(item));
  }
  return items;
}

/** What listing a library folder costs on this disk, beside reading its item files (ms). */
export interface ListingCosts {
  readdir: number;
  readdir_with_types: number;
  stat_every_file: number;
  read_every_item_file: number;
  /** What a first open now must do at least to show its first rows: list the folder, pick the newest names, read those files' bytes (FIRST_ROWS of them). */
  read_newest_page: number;
  /** The same for the whole first page the head holds (HEAD_SIZE files), read before the folder's scan. */
  read_newest_head: number;
}

/** Each way of listing `dir`, once, in this order. */
export function listingCosts(dir: string): ListingCosts {
  const newest = (count: number): void => {
    for (const name of readdirSync(dir).filter((n) => ITEM_FILE.test(n)).sort().slice(-count)) readFileSync(join(dir, name));
  };
  const timed = (work: () => void): number => {
    const started = performance.now();
    work();
    return round(performance.now() - started);
  };
  return {
    readdir: timed(() => readdirSync(dir)),
    readdir_with_types: timed(() => readdirSync(dir, { withFileTypes: true })),
    stat_every_file: timed(() => {
      for (const name of readdirSync(dir)) statSync(join(dir, name));
    }),
    read_every_item_file: timed(() => {
      for (const name of readdirSync(dir)) if (ITEM_FILE.test(name)) readFileSync(join(dir, name));
    }),
    read_newest_page: timed(() => newest(FIRST_ROWS)),
    read_newest_head: timed(() => newest(HEAD_SIZE)),
  };
}

export async function benchLibrary(count = 10_000): Promise<LibraryBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-libbench-'));
  try {
    const items = await writeLibraryItems(dir, count);
    const options = { dir: join(dir, 'library'), location: { id: 'personal', name: 'Personal', kind: 'personal' as const }, device: { id: 'bench', name: 'bench' }, cacheBase: join(dir, 'library-cache', 'personal') };
    // The first open's floors: every item file's bytes read once, plainly, with nothing done with
    // them (what a first open had to do while a file's createdAt was only inside it), and the
    // folder listed with only the newest page's files read (what it must do with time-ordered
    // names); beside them what other listings cost on this disk.
    const listing = listingCosts(options.dir);
    // The very first open: no cache yet (in the background in the app). Its own function, so
    // that store is gone before the searches are timed: the app holds one copy of a library.
    const { firstOpenFirstResultsMs, openMs, firstPageNewest, tanishq } = await firstOpen(options, items);
    // Every later start: the cache is there; first results come from it, the rest fills in behind.
    const started = performance.now();
    const store = new LibraryStore(options);
    await firstResultsOf(store);
    const firstResultsMs = performance.now() - started;
    await searchUsable(store, 'Tanishq', tanishq);
    const searchUsableMs = performance.now() - started;
    await store.ready;
    const reopenReadyMs = performance.now() - started;
    const tokenised = baselineCorpus(items);
    const queries = ['quick commerce Bengaluru', 'Tanishq', 'ET Retail', 'dark stores', 'zudio pune', 'revenue growth'];
    const out: LibraryBenchResult['queries'] = [];
    for (const query of queries) {
      const times: number[] = [];
      const baseline: number[] = [];
      let results = 0;
      let baselineResults = 0;
      // The store's 40 runs, then the baseline's: interleaved, each was timed with the other's
      // garbage to collect (the baseline allocates a great deal), which doubled the store's median.
      for (let run = 0; run < 40; run += 1) {
        const t = performance.now();
        results = store.search({ text: query }).total;
        times.push(performance.now() - t);
      }
      for (let run = 0; run < 40; run += 1) {
        const t = performance.now();
        baselineResults = baselineSearch(tokenised, query);
        baseline.push(performance.now() - t);
      }
      out.push({ query, p50_ms: round(percentile(times, 50)), p95_ms: round(percentile(times, 95)), baseline_p50_ms: round(percentile(baseline, 50)), baseline_p95_ms: round(percentile(baseline, 95)), results, baseline_results: baselineResults });
    }
    await store.close();
    return { items: store.size, open_ms: round(openMs), first_open_first_results_ms: round(firstOpenFirstResultsMs), first_open_floor_ms: listing.read_every_item_file, first_page_floor_ms: listing.read_newest_page, listing_ms: listing, first_page_newest: firstPageNewest, open_to_first_results_ms: round(firstResultsMs), reopen_ready_ms: round(reopenReadyMs), search_usable_ms: round(searchUsableMs), queries: out };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('library-bench.ts')) {
  const result = await benchLibrary();
  console.log(JSON.stringify(result, null, 2));
}
