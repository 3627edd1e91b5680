/**
 * One library folder: the personal library (`<dataDir>/library/`) or a team library (a folder
 * in a synced drive or on a share), in the open format of docs/library-format.md.
 * Over 450 lines on purpose: one class whose cache, scan, watch and revision-checked writes share
 * one in-memory state; what is not that state already lives beside it (library-files, -scan, -index).
 *
 * - Opening never blocks: entries come from a cache at once, then the folder is compared with
 *   it and only what changed is read again (`ready` resolves then). With no cache yet, the
 *   newest items are read first, found by their time-ordered file names (library-glance.ts),
 *   then the rest.
 * - Every write carries a revision; a write never replaces a revision its writer has not seen:
 *   if the file changed underneath, ours is kept beside it as a conflict copy.
 * - A team folder is watched (fs.watch, plus polling for shares where events do not arrive);
 *   a file that does not parse yet (half-synced) is ignored until it does.
 * - Deletion writes a tombstone (`deletedAt`), so it syncs and can be undone.
 */
import { watch, type FSWatcher } from 'node:fs';
import { lstat, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LIBRARY_FORMAT_VERSION, LibraryItemSchema, type LibraryItem, type LibraryItemView, type LibraryRevision, type LibraryLocation, type LibraryQuery, type LibrarySearchResult, type LibrarySummary } from '../../../shared/library';
import { CONFLICT_FILE, ITEM_FILE, conflictFileName, contentHash, folderWritable, libraryItemId, newLibraryItem, readItemFile, removeItemFiles, revisionOf, sameRevision, withoutSecrets, writeItemFile, type FileStamp, type NewLibraryItem, type ReadResult } from './library-files';
import { readFirstPage } from './library-glance';
import { HEAD_SIZE, LibraryIndex, entryOf, finishSearch, summaryOf, type Hit } from './library-index';
import { folderChanges, purgeTombstones, readChanged } from './library-scan';

export type { NewLibraryItem } from './library-files';

export interface Device {
  id: string;
  /** Shown in conflict copy names: the host name and a short id. */
  name: string;
}

export interface LibraryStoreOptions {
  dir: string;
  location: { id: string; name: string; kind: 'personal' | 'team' };
  device: Device;
  /** Where the entries and index cache live (outside a team folder, so it never syncs). */
  cacheBase: string;
  now?: () => number;
  /** Watch the folder for other writers (team libraries); 0 disables polling. */
  watch?: boolean;
  pollMs?: number;
  /** Tests: runs between reading an old-format file and migrating it (where a colleague's write can land). */
  beforeMigrate?: (name: string) => Promise<void>;
  /** The app's display zone: the readable `.md` copy dates its sources in it. */
  timeZone?: () => string;
}

export class LibraryReadOnlyError extends Error {}

const TOMBSTONE_DAYS = { personal: 1, team: 30 } as const;

export class LibraryStore {
  readonly dir: string;
  readonly index = new LibraryIndex();
  /** Files that do not parse (yet): reported and skipped, read again when they change. */
  readonly corrupt: string[] = [];
  /** Conflict copies by file name, with the item they hold. */
  private readonly conflictFiles = new Map<string, { id: string; stamp: FileStamp; item: LibraryItem | null }>();
  private readonly unreadable = new Map<string, FileStamp>();
  readOnly = false;
  state: LibraryLocation['state'] = 'opening';
  message: string | null = null;
  readonly ready: Promise<void>;
  /** Resolves as soon as the list can show something (cached entries, or the folder read). */
  readonly firstResults: Promise<void>;
  private readonly listeners = new Set<() => void>();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private cacheTimer: NodeJS.Timeout | null = null;
  /** A cache write the timer started; close() waits for it. */
  private cacheWriting: Promise<void> | null = null;
  /** Rescans asked for by the watcher or the poll, not yet begun; close() cancels them. */
  private readonly pendingRescans = new Set<NodeJS.Timeout>();
  private lastCacheWrite = 0;
  private scanning: Promise<void> | null = null;
  private rescanAgain = false;
  private closed = false;
  private readonly now: () => number;
  private cacheKey: string;

  constructor(private readonly options: LibraryStoreOptions) {
    this.dir = options.dir;
    this.now = options.now ?? Date.now;
    this.cacheKey = options.dir;
    let first!: () => void;
    this.firstResults = new Promise((resolve) => (first = resolve));
    this.ready = this.load(first);
  }

  /** The personal library of a data directory, opened completely (tests, benchmarks). */
  static async open(dataDir: string, now: () => number = Date.now, timeZone?: () => string): Promise<LibraryStore> {
    const store = new LibraryStore({ dir: join(dataDir, 'library'), location: { id: 'personal', name: 'Personal', kind: 'personal' }, device: { id: 'local', name: 'this-device' }, cacheBase: join(dataDir, 'library-cache', 'personal'), now, timeZone });
    await store.ready;
    return store;
  }

  get location(): LibraryStoreOptions['location'] {
    return this.options.location;
  }

  private get shared(): boolean {
    return this.location.kind === 'team';
  }

  get size(): number {
    return this.index.liveCount;
  }

  describe(): LibraryLocation {
    return { ...this.options.location, path: this.dir, readOnly: this.readOnly, state: this.state, items: this.size, message: this.message };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async load(first: () => void): Promise<void> {
    try {
      if (this.location.kind === 'personal') await mkdir(this.dir, { recursive: true, mode: 0o700 });
      else if (!(await stat(this.dir)).isDirectory()) throw new Error('not a folder');
    } catch {
      this.state = 'unavailable';
      this.message = `The folder ${this.dir} cannot be opened. Is the drive connected?`;
      first();
      return;
    }
    // The write probe and the head cache's read, side by side: neither waits for the other.
    const writable = folderWritable(this.dir);
    const cachedHead = this.index.loadCachedHead(this.options.cacheBase, this.cacheKey).catch(() => false);
    this.readOnly = !(await writable);
    if (this.readOnly) this.message = 'Read-only: you can read this team library but not change it (the folder is not writable for you).';
    // First results from the head cache, then all entries, then the text index, then the folder.
    // No cache (the very first open): the newest items first (library-glance.ts), the first rows
    // shown as soon as they are in, then the rest of the page, then the folder.
    if (await cachedHead) {
      first();
      this.emit();
      const cached = await this.index.loadCachedEntries(this.options.cacheBase, this.cacheKey);
      if (!cached || !(await this.index.loadCachedIndex(this.options.cacheBase, this.cacheKey))) this.index.reset();
    } else {
      this.index.partial = true; // until the scan has read the rest
      let shown = false;
      const show = (): void => {
        if (shown) return;
        shown = true;
        first();
        this.emit();
      };
      await readFirstPage(this.dir, HEAD_SIZE, !this.shared, (name, result) => this.ingest(name, result), this.now(), show);
      show();
    }
    this.emit();
    await this.rescan();
    this.index.partial = false;
    this.state = 'ready';
    this.emit();
    this.startWatching();
    // After the open's own work, so nothing the view waits for is delayed by it.
    setImmediate(() => {
      if (!this.closed) this.index.warmText();
    });
  }

  private startWatching(): void {
    if (!this.options.watch || this.closed) return;
    try {
      this.watcher = watch(this.dir, { persistent: false }, () => this.scheduleRescan(150));
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = null; // Some shares do not report changes: polling covers them.
    }
    const pollMs = this.options.pollMs ?? 3_000;
    if (pollMs > 0) this.timer = setInterval(() => this.scheduleRescan(0), pollMs).unref();
  }

  private scheduleRescan(delayMs: number): void {
    if (this.closed) return;
    // Kept so close() can cancel it: a scan after close could migrate files, purge tombstones
    // and start a cache write into a data folder that is already let go.
    const timer = setTimeout(() => {
      this.pendingRescans.delete(timer);
      void this.rescan();
    }, delayMs).unref();
    this.pendingRescans.add(timer);
  }

  /** Compares the folder with what is known and reads only what changed. */
  rescan(): Promise<void> {
    if (this.closed) return this.scanning ?? Promise.resolve();
    if (this.scanning) {
      this.rescanAgain = true;
      return this.scanning;
    }
    this.scanning = this.scan().finally(() => {
      this.scanning = null;
      if (this.rescanAgain && !this.closed) {
        this.rescanAgain = false;
        void this.rescan();
      }
    });
    return this.scanning;
  }

  private async scan(): Promise<void> {
    const found = await folderChanges(this.dir, {
      known: (name) => {
        const id = ITEM_FILE.exec(name)?.[1];
        return id ? this.index.entries.get(id)?.stamp : this.conflictFiles.get(name)?.stamp;
      },
      mustRead: (name) => {
        const id = ITEM_FILE.exec(name)?.[1];
        return !!id && !this.index.indexed(id) && !this.index.entries.get(id)?.deletedAt;
      },
      unreadable: this.unreadable,
    });
    if (!found) return;
    const { names, items: seenItems, conflicts: seenConflicts, changed: todo } = found;
    let changed = await readChanged(this.dir, todo, this.unreadable, (name, result) => this.ingest(name, result));
    for (const id of [...this.index.entries.keys()]) {
      if (seenItems.has(id)) continue;
      this.index.drop(id);
      changed = true;
    }
    for (const name of [...this.conflictFiles.keys()]) {
      if (seenConflicts.has(name)) continue;
      this.conflictFiles.delete(name);
      changed = true;
    }
    for (const name of [...this.unreadable.keys()]) if (!names.includes(name)) this.unreadable.delete(name);
    const corrupt = [...this.unreadable.keys()].sort();
    if (corrupt.join('\n') !== this.corrupt.join('\n')) {
      this.corrupt.splice(0, this.corrupt.length, ...corrupt);
      changed = true;
    }
    changed = (await this.purgeOldTombstones()) || changed;
    if (changed) {
      this.scheduleCacheWrite();
      this.emit();
    }
  }

  /** Takes in a file that parsed: an item (into the index) or a conflict copy. */
  private async ingest(name: string, result: ReadResult & { ok: true }): Promise<void> {
    const itemMatch = ITEM_FILE.exec(name);
    if (itemMatch && result.item.id === itemMatch[1]) {
      const item = result.migrated ? await this.migrate(name, result) : result.item;
      this.index.put(item, entryOf(item, revisionOf(item), result.stamp));
    } else {
      const id = CONFLICT_FILE.exec(name)?.[1] ?? '';
      this.conflictFiles.set(name, { id, stamp: result.stamp, item: result.item.id === id ? result.item : null });
    }
  }

  /**
   * Rewrites an old-format file in the current format, but only the revision that was read: if
   * another writer changed the file since (its stamp or revision differs), nothing is written —
   * their file is theirs, and the next scan reads (and, if still old, migrates) it instead.
   */
  private async migrate(name: string, read: ReadResult & { ok: true }): Promise<LibraryItem> {
    const item = read.item;
    if (this.readOnly) return item;
    await this.options.beforeMigrate?.(name);
    const now = await readItemFile(join(this.dir, name));
    const unchanged = now.ok && now.stamp.mtimeMs === read.stamp.mtimeMs && now.stamp.size === read.stamp.size && sameRevision(revisionOf(now.item), revisionOf(item));
    if (!unchanged) {
      // The index keeps the stamp read: the changed file differs from it, so the next scan reads it.
      this.migrationsSkipped += 1;
      return item;
    }
    await writeItemFile(this.dir, name, item, true, this.shared, this.options.timeZone?.()).catch(() => undefined);
    return item;
  }

  /** Migrations not written because another writer changed the file after it was read (tests, diagnostics). */
  migrationsSkipped = 0;

  private async purgeOldTombstones(): Promise<boolean> {
    return this.readOnly ? false : purgeTombstones(this.dir, this.index, TOMBSTONE_DAYS[this.location.kind] * 24 * 3600_000, this.now());
  }

  private scheduleCacheWrite(): void {
    if (this.cacheTimer) return;
    // Serialising a big index takes a while (about a second at 10,000 items): done once things
    // are quiet, at most once a minute (a busy team folder), and on close.
    const delay = Math.max(5_000, 60_000 - (Date.now() - this.lastCacheWrite));
    this.cacheTimer = setTimeout(() => {
      this.cacheTimer = null;
      this.lastCacheWrite = Date.now();
      // Kept, not fire-and-forget: close() waits for it, so it cannot outlive the store.
      this.cacheWriting = this.writeCache().finally(() => {
        this.cacheWriting = null;
      });
    }, delay);
    this.cacheTimer.unref();
  }

  async writeCache(): Promise<void> {
    // Not recursive: a data directory that is gone (removed meanwhile) is not recreated.
    await mkdir(join(this.options.cacheBase, '..'), { mode: 0o700 }).catch(() => undefined);
    await this.index.saveCache(this.options.cacheBase, this.cacheKey).catch(() => undefined);
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }

  conflictsOf(id: string): Array<{ file: string; item: LibraryItem }> {
    const out: Array<{ file: string; item: LibraryItem }> = [];
    for (const [file, copy] of this.conflictFiles) if (copy.id === id && copy.item) out.push({ file, item: copy.item });
    return out.sort((a, b) => a.file.localeCompare(b.file));
  }

  summary(id: string): LibrarySummary | undefined {
    const entry = this.index.entries.get(id);
    return entry && !entry.deletedAt ? summaryOf(entry, this.location.id, this.conflictsOf(id).length) : undefined;
  }

  /** The whole item, read from its file (items are not all kept in memory). */
  async read(id: string, includeDeleted = false): Promise<LibraryItem | undefined> {
    const entry = this.index.entries.get(id);
    if (!entry || (entry.deletedAt && !includeDeleted)) return undefined;
    const result = await readItemFile(join(this.dir, `${id}.json`));
    return result.ok && (includeDeleted || !result.item.deletedAt) ? result.item : undefined;
  }

  async get(id: string): Promise<LibraryItem | undefined> {
    return this.read(id);
  }

  async view(id: string): Promise<LibraryItemView | undefined> {
    const item = await this.read(id);
    return item ? { ...item, location: this.location.id, readOnly: this.readOnly, conflicts: this.conflictsOf(id) } : undefined;
  }

  async save(input: NewLibraryItem): Promise<LibraryItem> {
    let item = newLibraryItem(input, this.now());
    // Items of one second share half their id (library-files.ts, libraryItemId): one taken, here
    // or by a file not read yet, is drawn again rather than written as a conflict copy of another item.
    while (this.index.entries.has(item.id) || (await lstat(join(this.dir, `${item.id}.json`)).then(() => true, () => false))) item = { ...item, id: libraryItemId(item.createdAt) };
    return (await this.commit(item, null)).item;
  }

  /**
   * Writes `next` as the successor of `base` (the revision the writer saw; null for a new item).
   * If the file on disk is not `base`, someone else wrote it: theirs stays, ours becomes a
   * conflict copy, and `conflict` is true.
   */
  async commit(next: LibraryItem, base: LibraryRevision | null): Promise<{ item: LibraryItem; conflict: boolean }> {
    if (this.readOnly) throw new LibraryReadOnlyError(`“${this.location.name}” is read-only for you: nothing can be saved or changed there.`);
    // Normalised by the schema first, so the hash is that of what is read back later.
    const clean = LibraryItemSchema.parse(withoutSecrets({ ...next, formatVersion: LIBRARY_FORMAT_VERSION, revision: undefined }));
    const name = `${clean.id}.json`;
    const disk = await readItemFile(join(this.dir, name));
    const diskRevision = disk.ok ? revisionOf(disk.item) : null;
    const diverged = diskRevision !== null && (base === null || !sameRevision(diskRevision, base)) && diskRevision.hash !== contentHash(clean);
    const n = Math.max(base?.n ?? 0, diskRevision?.n ?? 0) + 1;
    const written: LibraryItem = { ...clean, revision: { n, device: this.options.device.id, hash: contentHash(clean) } };
    if (diverged && disk.ok) {
      const copy = conflictFileName(clean.id, this.options.device.name, this.now());
      const stamp = await writeItemFile(this.dir, copy, written, false, this.shared, this.options.timeZone?.());
      this.conflictFiles.set(copy, { id: clean.id, stamp, item: written });
      this.index.put(disk.item, entryOf(disk.item, diskRevision, disk.stamp));
      this.afterWrite();
      return { item: disk.item, conflict: true };
    }
    const stamp = await writeItemFile(this.dir, name, written, true, this.shared, this.options.timeZone?.());
    this.index.put(written, entryOf(written, written.revision!, stamp));
    this.afterWrite();
    return { item: written, conflict: false };
  }

  private afterWrite(): void {
    this.scheduleCacheWrite();
    this.emit();
  }

  /** `base`: the revision the user was looking at; by default the one this app last read. */
  private async change(id: string, edit: (item: LibraryItem) => LibraryItem, includeDeleted = false, base?: LibraryRevision): Promise<{ item: LibraryItem; conflict: boolean } | undefined> {
    const entry = this.index.entries.get(id);
    const item = await this.read(id, includeDeleted);
    if (!entry || !item) return undefined;
    // Never whatever is on disk now: that would overwrite a revision the writer has not seen.
    return this.commit({ ...edit(item), updatedAt: new Date(this.now()).toISOString() }, base ?? entry.revision);
  }

  async update(id: string, patch: { title?: string; tags?: string[] }): Promise<LibraryItem | undefined> {
    const result = await this.updateWithConflict(id, patch);
    return result?.item;
  }

  updateWithConflict(id: string, patch: { title?: string; tags?: string[] }, base?: LibraryRevision): Promise<{ item: LibraryItem; conflict: boolean } | undefined> {
    return this.change(
      id,
      (item) => ({
        ...item,
        ...(patch.title !== undefined ? { title: patch.title } : {}),
        ...(patch.tags !== undefined ? { tags: [...new Set(patch.tags.map((tag) => tag.trim()).filter(Boolean))] } : {}),
      }),
      false,
      base,
    );
  }

  async remove(id: string): Promise<boolean> {
    return !!(await this.change(id, (item) => ({ ...item, deletedAt: new Date(this.now()).toISOString() })));
  }

  async restore(id: string): Promise<LibraryItem | undefined> {
    if (!this.index.entries.get(id)?.deletedAt) return undefined;
    return (await this.change(id, (item) => ({ ...item, deletedAt: null }), true))?.item;
  }

  /** The user's choice for one conflict copy: keep the current version, the copy, or both. */
  async resolveConflict(id: string, file: string, keep: 'current' | 'copy' | 'both'): Promise<LibraryItem | undefined> {
    const copy = this.conflictFiles.get(file);
    const entry = this.index.entries.get(id);
    if (!copy?.item || copy.id !== id || !entry) return undefined;
    if (this.readOnly) throw new LibraryReadOnlyError(`“${this.location.name}” is read-only for you.`);
    let result: LibraryItem | undefined = await this.read(id, true);
    if (keep === 'copy') result = (await this.commit({ ...copy.item, updatedAt: new Date(this.now()).toISOString() }, entry.revision)).item;
    if (keep === 'both') await this.save({ ...copy.item, title: `${copy.item.title} (conflicted copy)`.slice(0, 300), tags: copy.item.tags });
    await removeItemFiles(this.dir, file);
    this.conflictFiles.delete(file);
    this.afterWrite();
    return result;
  }

  search(query: LibraryQuery, limit = 200): LibrarySearchResult {
    const started = performance.now();
    const hits = this.index.search(query);
    return finishSearch(hits, query, limit, started, this.corrupt, (hit) => this.summaryWith(hit), (hit) => this.index.textOf(hit.entry));
  }

  /** Summaries of hits, conflicts counted (for merging results across libraries). */
  hits(query: LibraryQuery): Array<Hit & { summary: () => LibrarySummary; text: () => string }> {
    return this.index.search(query).map((hit) => ({ ...hit, summary: () => this.summaryWith(hit), text: () => this.index.textOf(hit.entry) }));
  }

  private summaryWith(hit: Hit): LibrarySummary {
    let conflicts = 0;
    if (this.conflictFiles.size > 0) conflicts = this.conflictsOf(hit.entry.id).length;
    return summaryOf(hit.entry, this.location.id, conflicts);
  }

  facets(): { sources: string[]; entities: string[]; tags: string[] } {
    return this.index.facets();
  }

  /** Stops watching and resolves once a scan and cache write under way are done, and the cache is current. */
  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
    for (const timer of this.pendingRescans) clearTimeout(timer);
    this.pendingRescans.clear();
    await this.ready.catch(() => undefined);
    await this.scanning;
    await this.cacheWriting;
    if (this.cacheTimer) {
      clearTimeout(this.cacheTimer);
      this.cacheTimer = null;
      await this.writeCache();
    }
  }
}
