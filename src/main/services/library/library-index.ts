/**
 * What one library keeps in memory: a small entry per item (what the list, the filters and
 * the snippets need) and a full-text index (library-text-index.ts). Item files themselves are
 * read on demand. Both persist to a cache keyed by each file's size and mtime, so a library of
 * 10,000 items shows its first results from the cache and then updates only what changed on disk.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import writeFileAtomic from 'write-file-atomic';
import { CITATION_MARKER } from '../../../shared/cite-format';
import type { LibraryItem, LibraryQuery, LibraryRevision, LibrarySearchResult, LibrarySummary } from '../../../shared/library';
import type { FileStamp } from './library-files';
import { LibraryTextIndex } from './library-text-index';

/** Bumped when the entry or index shape changes: an old cache is then ignored and rebuilt. */
const CACHE_VERSION = 2;
/** Enough text around a match for a snippet; the whole text is searched through the index. */
const SNIPPET_TEXT_CHARS = 600;
/** How many of the newest entries the head cache holds (and a first open reads first): the list's first page. */
export const HEAD_SIZE = 200;

/** What the list shows of an item (its summary, less where it lives), and what search needs. */
export interface LibraryEntry extends Omit<LibrarySummary, 'location' | 'conflicts'> {
  sourceIds: string[];
  entities: string[];
  deletedAt: string | null;
  revision: LibraryRevision;
  stamp: FileStamp;
  /**
   * The start of the text and the cited titles, for snippets. Absent in entries read from the
   * entries cache: that text is in the texts cache, read by `LibraryIndex.textOf` when shown.
   */
  text?: string;
}

/** The indexed fields, in this order, with their boosts (as MiniSearch's `boost` option had them). */
const FIELD_BOOSTS = { title: 3, text: 1, citations: 1.5, sources: 2, entities: 1, tags: 2 };
const BOOSTS = Object.values(FIELD_BOOSTS);

/**
 * A cache file as text: read whole, then decoded once. `readFile(path, 'utf8')` decodes chunk by
 * chunk through a StringDecoder, which was the largest part of a later open's time to a usable
 * search at 10,000 items (bench/notes.md, `npm run bench:library-profile`).
 */
const readText = async (file: string): Promise<string> => (await readFile(file)).toString('utf8');

/**
 * The entries' snippet texts as one checked file, kept as bytes and decoded per item shown: at
 * 10,000 items they were nine tenths of the entries cache, all parsed before search was usable.
 * Layout: magic, version, CRC-32 of the body, body length (u32 LE); then the key, the count,
 * count + 1 byte offsets and the UTF-8 texts, in the order of the entries cache.
 */
const TEXTS_MAGIC = 0x5454_4c43; // "CLTT", little-endian
const TEXTS_HEADER = 16;

interface CachedTexts {
  bytes: Buffer;
  offsets: Uint32Array;
}

function packTexts(key: string, texts: Buffer[]): Buffer {
  const keyBytes = Buffer.from(key, 'utf8');
  const keyLength = (keyBytes.length + 3) & ~3;
  const offsets = new Uint32Array(texts.length + 1);
  texts.forEach((text, i) => (offsets[i + 1] = offsets[i]! + text.length));
  const body = Buffer.concat([Buffer.from(new Uint32Array([keyBytes.length]).buffer), keyBytes, Buffer.alloc(keyLength - keyBytes.length), Buffer.from(new Uint32Array([texts.length]).buffer), Buffer.from(offsets.buffer), ...texts]);
  const header = Buffer.alloc(TEXTS_HEADER);
  header.writeUInt32LE(TEXTS_MAGIC, 0);
  header.writeUInt32LE(CACHE_VERSION, 4);
  header.writeUInt32LE(crc32(body), 8);
  header.writeUInt32LE(body.length, 12);
  return Buffer.concat([header, body]);
}

function unpackTexts(file: Buffer, key: string, count: number): CachedTexts | null {
  if (file.length < TEXTS_HEADER + 8 || file.readUInt32LE(0) !== TEXTS_MAGIC || file.readUInt32LE(4) !== CACHE_VERSION) return null;
  if (file.readUInt32LE(12) !== file.length - TEXTS_HEADER || crc32(file.subarray(TEXTS_HEADER)) !== file.readUInt32LE(8)) return null;
  const keyLength = file.readUInt32LE(TEXTS_HEADER);
  let at = TEXTS_HEADER + 4 + ((keyLength + 3) & ~3);
  if (at + 4 > file.length || file.toString('utf8', TEXTS_HEADER + 4, TEXTS_HEADER + 4 + keyLength) !== key || file.readUInt32LE(at) !== count) return null;
  at += 4;
  if (at + 4 * (count + 1) > file.length) return null;
  const offsets = new Uint32Array(count + 1);
  for (let i = 0; i <= count; i += 1) offsets[i] = file.readUInt32LE(at + 4 * i);
  const bytes = file.subarray(at + 4 * (count + 1));
  if (offsets[0] !== 0 || offsets[count] !== bytes.length) return null;
  for (let i = 1; i <= count; i += 1) if (offsets[i]! < offsets[i - 1]!) return null;
  return { bytes, offsets };
}

function entitiesOf(item: LibraryItem): string[] {
  return [...new Set(item.citations.flatMap((c) => (c.detail ? [...c.detail.entities.retailers, ...c.detail.entities.segments, ...c.detail.entities.cities, ...c.detail.entities.states] : [])))];
}

export function entryOf(item: LibraryItem, revision: LibraryRevision, stamp: FileStamp): LibraryEntry {
  const plain = item.markdown.replace(CITATION_MARKER, '');
  return {
    id: item.id,
    kind: item.kind,
    title: item.title,
    tags: item.tags,
    createdAt: item.createdAt,
    savedAt: item.savedAt,
    citationCount: item.citations.length,
    sources: [...new Set(item.citations.map((c) => c.source_name ?? c.source_id ?? '').filter(Boolean))],
    sourceIds: [...new Set(item.citations.map((c) => c.source_id ?? '').filter(Boolean))],
    entities: entitiesOf(item),
    deletedAt: item.deletedAt,
    revision,
    stamp,
    text: `${plain.slice(0, SNIPPET_TEXT_CHARS)}\n${item.citations.map((c) => `${c.title ?? ''} — ${c.source_name ?? ''}`).join('\n')}`.slice(0, SNIPPET_TEXT_CHARS * 2),
  };
}

/** The item's text per indexed field, in FIELD_BOOSTS's order. */
export function fieldsOf(item: LibraryItem): string[] {
  const fields: Record<keyof typeof FIELD_BOOSTS, string> = {
    title: item.title,
    text: item.markdown.replace(CITATION_MARKER, ' '),
    citations: item.citations.map((c) => `${c.title ?? ''} ${c.snippet ?? ''}`).join(' '),
    sources: item.citations.map((c) => c.source_name ?? c.source_id ?? '').join(' '),
    entities: entitiesOf(item).join(' '),
    tags: item.tags.join(' '),
  };
  return Object.keys(FIELD_BOOSTS).map((field) => fields[field as keyof typeof FIELD_BOOSTS]);
}

export function summaryOf(entry: LibraryEntry, location: string, conflicts: number): LibrarySummary {
  return { id: entry.id, kind: entry.kind, title: entry.title, tags: entry.tags, createdAt: entry.createdAt, savedAt: entry.savedAt, citationCount: entry.citationCount, sources: entry.sources, location, conflicts };
}

export interface Hit {
  entry: LibraryEntry;
  score: number;
}

export class LibraryIndex {
  readonly entries = new Map<string, LibraryEntry>();
  private text_ = new LibraryTextIndex(BOOSTS);
  /** Written with each cache: the index file must come from the same write as the entries loaded. */
  private cacheGeneration: string | null = null;
  /** Snippet texts of entries read from the cache (their place in the texts file). */
  private cachedTexts: CachedTexts | null = null;
  private readonly textAt = new WeakMap<LibraryEntry, number>();
  /** Whether the full-text index covers every live entry (false while a cached index loads). */
  textReady = true;
  /** Ids changed since opening: a cache loaded afterwards must not bring back their old state. */
  private readonly touched = new Set<string>();
  /** Only the head cache is loaded: the newest entries, the rest to come. */
  partial = false;

  /** Prepares the full-text index's lazily built parts before the first search needs them. */
  warmText(): void {
    this.text_.warm();
  }

  get liveCount(): number {
    let n = 0;
    for (const entry of this.entries.values()) if (!entry.deletedAt) n += 1;
    return n;
  }

  /** Adds or replaces an item (a tombstone leaves the text index). */
  private byDate: LibraryEntry[] | null = null;

  private newestFirst(): LibraryEntry[] {
    this.byDate ??= [...this.entries.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    return this.byDate;
  }

  put(item: LibraryItem, entry: LibraryEntry): void {
    this.byDate = null;
    this.touched.add(item.id);
    this.text_.remove(item.id);
    this.entries.set(item.id, entry);
    if (!entry.deletedAt) this.text_.add(item.id, fieldsOf(item));
  }

  drop(id: string): void {
    this.byDate = null;
    this.touched.add(id);
    this.text_.remove(id);
    this.entries.delete(id);
  }

  search(query: LibraryQuery): Hit[] {
    const text = query.text?.trim() ?? '';
    const entity = query.entity?.toLowerCase();
    const filter = (e: LibraryEntry): boolean =>
      !e.deletedAt &&
      (!query.kind || e.kind === query.kind) &&
      (!query.from || e.createdAt >= query.from) &&
      (!query.to || e.createdAt <= `${query.to}\uffff`) &&
      (!query.tag || e.tags.includes(query.tag)) &&
      (!query.source || e.sources.includes(query.source) || e.sourceIds.includes(query.source)) &&
      (!entity || e.entities.some((name) => name.toLowerCase() === entity));
    // Newest first already: the usual sort then has almost nothing to do.
    if (!text) return this.newestFirst().filter(filter).map((entry) => ({ entry, score: 0 }));
    const hits: Hit[] = [];
    for (const hit of this.text_.search(text)) {
      const entry = this.entries.get(hit.id);
      if (entry && filter(entry)) hits.push({ entry, score: hit.score });
    }
    return hits;
  }

  /** Every source, entity and tag named by live items, for the filter menus. */
  facets(): { sources: string[]; entities: string[]; tags: string[] } {
    const sources = new Set<string>();
    const entities = new Set<string>();
    const tags = new Set<string>();
    for (const entry of this.entries.values()) {
      if (entry.deletedAt) continue;
      for (const tag of entry.tags) tags.add(tag);
      for (const s of entry.sources) sources.add(s);
      for (const e of entry.entities) entities.add(e);
    }
    const sorted = (set: Set<string>): string[] => [...set].sort((a, b) => a.localeCompare(b));
    return { sources: sorted(sources), entities: sorted(entities), tags: sorted(tags) };
  }

  /**
   * Writes the head (newest entries), all entries and the index to the cache (atomically; a
   * torn or stale cache is simply rebuilt from the folder).
   */
  async saveCache(path: string, key: string): Promise<void> {
    const all = [...this.entries.values()];
    const head = all.filter((e) => !e.deletedAt).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1)).slice(0, HEAD_SIZE);
    const generation = randomUUID();
    // Serialised now, with the entries: the index matches them exactly.
    const index = this.text_.serialize(`${key}\n${generation}`);
    const texts = packTexts(`${key}\n${generation}`, all.map((entry) => this.textBytesOf(entry)));
    const withText = head.map((entry) => ({ ...entry, text: this.textOf(entry) }));
    await writeFileAtomic(`${path}.head.json`, JSON.stringify({ version: CACHE_VERSION, key, generation, entries: withText }), { mode: 0o600 });
    const withoutText = (field: string, value: unknown): unknown => (field === 'text' ? undefined : value);
    await writeFileAtomic(`${path}.entries.json`, JSON.stringify({ version: CACHE_VERSION, key, generation, entries: all }, withoutText), { mode: 0o600 });
    await writeFileAtomic(`${path}.texts.bin`, texts, { mode: 0o600 });
    await writeFileAtomic(`${path}.index.bin`, index, { mode: 0o600 });
    // The JSON index of cache version 1 (MiniSearch's), no longer read.
    await rm(`${path}.index.json`, { force: true });
  }

  /** The newest entries: what the list shows first, in a few milliseconds at any size. */
  async loadCachedHead(path: string, key: string): Promise<boolean> {
    const ok = await this.loadEntries(`${path}.head.json`, key);
    this.partial = ok;
    return ok;
  }

  /** Every entry (filters, counts) with its snippet text; the text index comes after, without blocking. */
  async loadCachedEntries(path: string, key: string): Promise<boolean> {
    const ok = await this.loadEntries(`${path}.entries.json`, key, `${path}.texts.bin`);
    this.partial = false;
    return ok;
  }

  /** `textsFile`: where the entries' snippet texts are (the head cache holds its own). */
  private async loadEntries(file: string, key: string, textsFile?: string): Promise<boolean> {
    try {
      const parsed = JSON.parse(await readText(file)) as { version: number; key: string; generation: string; entries: LibraryEntry[] };
      if (parsed.version !== CACHE_VERSION || parsed.key !== key || typeof parsed.generation !== 'string' || !Array.isArray(parsed.entries)) return false;
      if (textsFile) {
        const texts = unpackTexts(await readFile(textsFile), `${key}\n${parsed.generation}`, parsed.entries.length);
        if (!texts) return false;
        this.cachedTexts = texts;
        parsed.entries.forEach((entry, i) => this.textAt.set(entry, i));
      } else if (!parsed.entries.every((entry) => typeof entry.text === 'string')) return false;
      this.cacheGeneration = parsed.generation;
      for (const entry of parsed.entries) if (!this.touched.has(entry.id)) this.entries.set(entry.id, entry);
      this.byDate = null;
      this.textReady = false;
      return true;
    } catch {
      return false;
    }
  }

  /** The index written with the entries loaded (same generation); false if absent, stale or corrupt. */
  async loadCachedIndex(path: string, key: string): Promise<boolean> {
    if (this.cacheGeneration === null) return false;
    const file = await readFile(`${path}.index.bin`).catch(() => null);
    const loaded = file && LibraryTextIndex.deserialize(file, `${key}\n${this.cacheGeneration}`, BOOSTS);
    if (!loaded) return false;
    // What changed while it loaded is read again by the next scan.
    for (const id of this.touched) loaded.remove(id);
    this.text_ = loaded;
    this.textReady = true;
    return true;
  }

  /** Forgets a cached index that could not be loaded: every item is then re-read. */
  reset(): void {
    for (const id of [...this.entries.keys()]) if (!this.touched.has(id)) this.entries.delete(id);
    this.byDate = null;
    this.partial = false;
    this.text_.clear();
    this.textReady = true;
  }

  /** An entry's snippet text (from the texts cache if the entry came from the cache; kept once read). */
  textOf(entry: LibraryEntry): string {
    if (entry.text !== undefined) return entry.text;
    const at = this.textAt.get(entry);
    if (at === undefined || !this.cachedTexts) return '';
    entry.text = this.cachedTexts.bytes.toString('utf8', this.cachedTexts.offsets[at], this.cachedTexts.offsets[at + 1]);
    return entry.text;
  }

  private textBytesOf(entry: LibraryEntry): Buffer {
    const at = entry.text === undefined ? this.textAt.get(entry) : undefined;
    return at !== undefined && this.cachedTexts ? this.cachedTexts.bytes.subarray(this.cachedTexts.offsets[at], this.cachedTexts.offsets[at + 1]) : Buffer.from(this.textOf(entry), 'utf8');
  }

  /** Whether the index has a document for this id (the cache and the entries agree). */
  indexed(id: string): boolean {
    return this.text_.has(id);
  }
}

/**
 * A snippet around the first query term found in the entry's text. `terms`: one case-blind
 * pattern per term (no lower-cased copy of every shown item's text to throw away per search).
 */
export function snippetOf(text: string, terms: RegExp[]): string | null {
  for (const term of terms) {
    const found = term.exec(text);
    if (!found) continue;
    const at = found.index;
    const start = Math.max(0, at - 60);
    return `${start > 0 ? '…' : ''}${text.slice(start, at + found[0].length + 80).replace(/\s+/g, ' ').trim()}…`;
  }
  return null;
}

/** Sorts, cuts and summarises hits; snippets only for the items shown. */
export function finishSearch<H extends Hit>(hits: H[], query: LibraryQuery, limit: number, started: number, corrupt: string[], summary: (hit: H) => LibrarySummary, textOf: (hit: H) => string, indexing = false): LibrarySearchResult {
  const text = query.text?.trim() ?? '';
  const sort = query.sort ?? (text ? undefined : 'date');
  if (sort === 'date') hits.sort((a, b) => (a.entry.createdAt < b.entry.createdAt ? 1 : a.entry.createdAt > b.entry.createdAt ? -1 : 0));
  else if (sort === 'title') hits.sort((a, b) => a.entry.title.localeCompare(b.entry.title));
  else if (sort === 'citations') hits.sort((a, b) => b.entry.citationCount - a.entry.citationCount);
  // Equal scores by id: the order must not depend on the order the files happened to be read in.
  else hits.sort((a, b) => b.score - a.score || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0));
  const terms = text.split(/\s+/).filter(Boolean).map((term) => new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'));
  return {
    items: hits.slice(0, limit).map((hit) => ({ ...summary(hit), snippet: terms.length > 0 ? snippetOf(textOf(hit), terms) : null })),
    total: hits.length,
    tookMs: performance.now() - started,
    corrupt,
    indexing,
  };
}
