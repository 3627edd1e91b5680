/**
 * The offline library: saved answers, conversations and reports in `<dataDir>/library/`, in
 * the open format of docs/library-format.md. Each item is one JSON file (authoritative,
 * written atomically: temp file, fsync, rename) and a derived `.md` copy for people. Items
 * of an older format version are migrated on read; a corrupt file is reported and skipped.
 * Search is full-text (MiniSearch) over titles, text and cited signals, with filters.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import writeFileAtomic from 'write-file-atomic';
import { CITATION_MARKER, formatCitationDate, orderedCitations } from '../../shared/cite-format';
import {
  LIBRARY_FORMAT_VERSION,
  migrateLibraryItem,
  type LibraryItem,
  type LibraryQuery,
  type LibrarySearchResult,
  type LibrarySummary,
} from '../../shared/library';

const PURGE_AFTER_MS = 24 * 3600_000;

interface IndexedDoc {
  id: string;
  title: string;
  text: string;
  citations: string;
  sources: string;
  entities: string;
  tags: string;
}

export type NewLibraryItem = Pick<LibraryItem, 'kind' | 'title' | 'markdown' | 'citations' | 'meta' | 'createdAt'> & { tags?: string[] };

export class LibraryStore {
  private readonly items = new Map<string, LibraryItem>();
  private readonly index = new MiniSearch<IndexedDoc>({
    fields: ['title', 'text', 'citations', 'sources', 'entities', 'tags'],
    storeFields: [],
    searchOptions: { prefix: true, fuzzy: 0.15, boost: { title: 3, sources: 2, citations: 1.5, tags: 2 }, combineWith: 'AND' },
  });
  readonly corrupt: string[] = [];
  readonly dir: string;

  private constructor(
    dataDir: string,
    private readonly now: () => number,
  ) {
    this.dir = join(dataDir, 'library');
  }

  static async open(dataDir: string, now: () => number = Date.now): Promise<LibraryStore> {
    const store = new LibraryStore(dataDir, now);
    await mkdir(store.dir, { recursive: true, mode: 0o700 });
    for (const name of await readdir(store.dir)) {
      if (!/^lib_[0-9a-f]{16}\.json$/.test(name)) continue;
      try {
        const raw: unknown = JSON.parse(await readFile(join(store.dir, name), 'utf8'));
        const item = migrateLibraryItem(raw);
        if (item.deletedAt && now() - Date.parse(item.deletedAt) > PURGE_AFTER_MS) {
          await store.purge(item.id);
          continue;
        }
        if ((raw as { formatVersion?: number }).formatVersion !== LIBRARY_FORMAT_VERSION) await store.write(item);
        store.items.set(item.id, item);
        if (!item.deletedAt) store.index.add(store.toDoc(item));
      } catch {
        // SECURITY/robustness: one bad file never stops the library from opening.
        store.corrupt.push(name);
      }
    }
    return store;
  }

  get size(): number {
    return this.index.documentCount;
  }

  get(id: string): LibraryItem | undefined {
    const item = this.items.get(id);
    return item && !item.deletedAt ? item : undefined;
  }

  async save(input: NewLibraryItem): Promise<LibraryItem> {
    const at = new Date(this.now()).toISOString();
    const item: LibraryItem = {
      formatVersion: LIBRARY_FORMAT_VERSION,
      id: `lib_${randomBytes(8).toString('hex')}`,
      kind: input.kind,
      title: input.title.slice(0, 300) || 'Untitled',
      tags: input.tags ?? [],
      createdAt: input.createdAt,
      savedAt: at,
      updatedAt: at,
      markdown: input.markdown,
      citations: input.citations,
      meta: input.meta,
      deletedAt: null,
    };
    await this.write(item);
    this.items.set(item.id, item);
    this.index.add(this.toDoc(item));
    return item;
  }

  async update(id: string, patch: { title?: string; tags?: string[] }): Promise<LibraryItem | undefined> {
    const item = this.get(id);
    if (!item) return undefined;
    const next: LibraryItem = {
      ...item,
      ...(patch.title !== undefined ? { title: patch.title } : {}),
      ...(patch.tags !== undefined ? { tags: [...new Set(patch.tags.map((tag) => tag.trim()).filter(Boolean))] } : {}),
      updatedAt: new Date(this.now()).toISOString(),
    };
    await this.write(next);
    this.items.set(id, next);
    this.index.replace(this.toDoc(next));
    return next;
  }

  async remove(id: string): Promise<boolean> {
    const item = this.get(id);
    if (!item) return false;
    const next = { ...item, deletedAt: new Date(this.now()).toISOString() };
    await this.write(next);
    this.items.set(id, next);
    this.index.discard(id);
    return true;
  }

  async restore(id: string): Promise<LibraryItem | undefined> {
    const item = this.items.get(id);
    if (!item?.deletedAt) return undefined;
    const next = { ...item, deletedAt: null };
    await this.write(next);
    this.items.set(id, next);
    this.index.add(this.toDoc(next));
    return next;
  }

  search(query: LibraryQuery, limit = 200): LibrarySearchResult {
    const started = performance.now();
    const text = query.text?.trim() ?? '';
    const filter = (item: LibraryItem): boolean =>
      (!query.kind || item.kind === query.kind) &&
      (!query.from || item.createdAt >= query.from) &&
      (!query.to || item.createdAt <= `${query.to}\uffff`) &&
      (!query.tag || item.tags.includes(query.tag)) &&
      (!query.source || item.citations.some((c) => c.source_name === query.source || c.source_id === query.source)) &&
      (!query.entity ||
        item.citations.some((c) => {
          const e = c.detail?.entities;
          return !!e && [...e.retailers, ...e.segments, ...e.cities, ...e.states].some((name) => name.toLowerCase() === query.entity!.toLowerCase());
        }));
    let matches: Array<{ item: LibraryItem; score: number }>;
    if (text) {
      matches = this.index
        .search(text)
        .map((hit) => ({ item: this.items.get(hit.id as string)!, score: hit.score }))
        .filter(({ item }) => item && !item.deletedAt && filter(item));
    } else {
      matches = [...this.items.values()].filter((item) => !item.deletedAt && filter(item)).map((item) => ({ item, score: 0 }));
    }
    const sort = query.sort ?? (text ? undefined : 'date');
    if (sort === 'date') matches.sort((a, b) => b.item.createdAt.localeCompare(a.item.createdAt));
    else if (sort === 'title') matches.sort((a, b) => a.item.title.localeCompare(b.item.title));
    else if (sort === 'citations') matches.sort((a, b) => b.item.citations.length - a.item.citations.length);
    const terms = text.toLowerCase().split(/\s+/).filter(Boolean);
    return {
      items: matches.slice(0, limit).map(({ item }) => ({ ...summarize(item), snippet: terms.length > 0 ? snippetOf(item, terms) : null })),
      total: matches.length,
      tookMs: performance.now() - started,
      corrupt: this.corrupt,
    };
  }

  /** Every source and entity named by saved items, for the filter menus. */
  facets(): { sources: string[]; entities: string[]; tags: string[] } {
    const sources = new Set<string>();
    const entities = new Set<string>();
    const tags = new Set<string>();
    for (const item of this.items.values()) {
      if (item.deletedAt) continue;
      for (const tag of item.tags) tags.add(tag);
      for (const c of item.citations) {
        if (c.source_name) sources.add(c.source_name);
        const e = c.detail?.entities;
        if (e) for (const name of [...e.retailers, ...e.segments, ...e.cities, ...e.states]) entities.add(name);
      }
    }
    const sorted = (set: Set<string>): string[] => [...set].sort((a, b) => a.localeCompare(b));
    return { sources: sorted(sources), entities: sorted(entities), tags: sorted(tags) };
  }

  /** Writes the authoritative JSON atomically, then the derived markdown copy. */
  private async write(item: LibraryItem): Promise<void> {
    await writeFileAtomic(join(this.dir, `${item.id}.json`), `${JSON.stringify(item, null, 2)}\n`, { mode: 0o600, fsync: true });
    await writeFileAtomic(join(this.dir, `${item.id}.md`), humanCopy(item), { mode: 0o600 }).catch(() => undefined);
  }

  private async purge(id: string): Promise<void> {
    await unlink(join(this.dir, `${id}.json`)).catch(() => undefined);
    await unlink(join(this.dir, `${id}.md`)).catch(() => undefined);
  }

  private toDoc(item: LibraryItem): IndexedDoc {
    return {
      id: item.id,
      title: item.title,
      text: item.markdown.replace(CITATION_MARKER, ' '),
      citations: item.citations.map((c) => `${c.title ?? ''} ${c.snippet ?? ''}`).join(' '),
      sources: item.citations.map((c) => c.source_name ?? c.source_id ?? '').join(' '),
      entities: item.citations.flatMap((c) => (c.detail ? [...c.detail.entities.retailers, ...c.detail.entities.segments, ...c.detail.entities.cities, ...c.detail.entities.states] : [])).join(' '),
      tags: item.tags.join(' '),
    };
  }
}

export function summarize(item: LibraryItem): LibrarySummary {
  return {
    id: item.id,
    kind: item.kind,
    title: item.title,
    tags: item.tags,
    createdAt: item.createdAt,
    savedAt: item.savedAt,
    citationCount: item.citations.length,
    sources: [...new Set(item.citations.map((c) => c.source_name ?? c.source_id ?? '').filter(Boolean))],
  };
}

function snippetOf(item: LibraryItem, terms: string[]): string | null {
  const haystacks = [item.markdown.replace(CITATION_MARKER, ''), ...item.citations.map((c) => `${c.title ?? ''} — ${c.source_name ?? ''}`)];
  for (const text of haystacks) {
    const lower = text.toLowerCase();
    for (const term of terms) {
      const at = lower.indexOf(term);
      if (at < 0) continue;
      const start = Math.max(0, at - 60);
      return `${start > 0 ? '…' : ''}${text.slice(start, at + term.length + 80).replace(/\s+/g, ' ').trim()}…`;
    }
  }
  return null;
}

/** The `.md` copy a person can read without the app: front matter, text, sources. */
function humanCopy(item: LibraryItem): string {
  const ordered = orderedCitations(item.markdown, item.citations);
  const numbers = new Map(ordered.map(({ number, citation }) => [citation.id, number]));
  const front = [
    '---',
    `id: ${item.id}`,
    `kind: ${item.kind}`,
    `title: ${JSON.stringify(item.title)}`,
    `saved: ${item.savedAt}`,
    `tags: [${item.tags.map((t) => JSON.stringify(t)).join(', ')}]`,
    `format: clarity-library/${item.formatVersion} (authoritative data in ${item.id}.json)`,
    '---',
  ].join('\n');
  const body = item.markdown.replace(CITATION_MARKER, (_m, id: string) => `[${numbers.get(id)}]`);
  const sources = ordered.map(
    ({ number, citation: c }) => `${number}. ${c.title ?? c.id} — ${c.source_name ?? c.source_id ?? 'unknown source'}, ${formatCitationDate(c.published_at)}${c.url ? ` <${c.url}>` : ''}${c.detail?.healthWhenCited ? ` (source ${c.detail.healthWhenCited} when cited)` : ''}`,
  );
  return `${front}\n\n# ${item.title}\n\n${body}\n\n## Sources\n\n${sources.join('\n')}\n`;
}
