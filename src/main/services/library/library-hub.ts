/**
 * Every library the user has: the personal one and any team libraries (folders in a synced
 * drive or on a share), listed in `<dataDir>/library-locations.json`. Searches across them,
 * saves where the user chooses, copies and moves items between them. This device's id (for
 * revisions) lives in `<dataDir>/device.json`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { LibraryItem, LibraryItemView, LibraryLocation, LibraryQuery, LibrarySearchResult, LibrarySummary } from '../../../shared/library';
import { refuseSystemFolder } from './library-folders';
import { finishSearch } from './library-index';
import { LibraryStore, type Device, type NewLibraryItem } from './library-store';

const LocationsFile = z.array(z.object({ id: z.string().regex(/^team_[0-9a-f]{8}$/), name: z.string().min(1).max(80), path: z.string().min(1).max(4_000) })).max(20);
type SavedLocation = z.infer<typeof LocationsFile>[number];

export interface LibraryHubOptions {
  dataDir: string;
  /** An already opened personal library (tests); otherwise opened in the background. */
  personal?: LibraryStore;
  now?: () => number;
  /** The app's display zone: item files' readable copies date their sources in it. */
  timeZone?: () => string;
  /** Polling interval for team folders (tests shorten it). */
  pollMs?: number;
}

export class LibraryError extends Error {}

export class LibraryHub {
  private readonly stores = new Map<string, LibraryStore>();
  private saved: SavedLocation[] = [];
  private readonly listeners = new Set<() => void>();
  private notifyTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly options: LibraryHubOptions,
    readonly device: Device,
  ) {}

  /** Returns at once; each library opens in the background (`ready()` waits for all). */
  static async open(options: LibraryHubOptions): Promise<LibraryHub> {
    const hub = new LibraryHub(options, await loadDevice(options.dataDir));
    hub.attach(
      options.personal ??
        new LibraryStore({ dir: join(options.dataDir, 'library'), location: { id: 'personal', name: 'Personal', kind: 'personal' }, device: hub.device, cacheBase: join(options.dataDir, 'library-cache', 'personal'), now: options.now, timeZone: options.timeZone }),
    );
    try {
      hub.saved = LocationsFile.parse(JSON.parse(await readFile(hub.locationsPath, 'utf8')));
    } catch {
      hub.saved = [];
    }
    for (const location of hub.saved) hub.attach(hub.teamStore(location));
    return hub;
  }

  get personal(): LibraryStore {
    return this.stores.get('personal')!;
  }

  private get locationsPath(): string {
    return join(this.options.dataDir, 'library-locations.json');
  }

  private teamStore(location: SavedLocation): LibraryStore {
    const key = createHash('sha256').update(location.path).digest('hex').slice(0, 16);
    return new LibraryStore({
      dir: location.path,
      location: { id: location.id, name: location.name, kind: 'team' },
      device: this.device,
      cacheBase: join(this.options.dataDir, 'library-cache', `team-${key}`),
      now: this.options.now,
      timeZone: this.options.timeZone,
      watch: true,
      pollMs: this.options.pollMs,
    });
  }

  private attach(store: LibraryStore): void {
    this.stores.set(store.location.id, store);
    store.onChange(() => this.changed());
  }

  /** Tells listeners once per burst of changes (a sync client writes many files at once). */
  private changed(): void {
    if (this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = null;
      for (const listener of this.listeners) listener();
    }, 100);
    this.notifyTimer.unref();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async ready(): Promise<void> {
    await Promise.all([...this.stores.values()].map((store) => store.ready));
  }

  get corrupt(): string[] {
    return [...this.stores.values()].flatMap((store) => (store.location.kind === 'personal' ? store.corrupt : store.corrupt.map((name) => `${store.location.name}/${name}`)));
  }

  locations(): LibraryLocation[] {
    return [...this.stores.values()].map((store) => store.describe());
  }

  store(id: string): LibraryStore {
    const store = this.stores.get(id);
    if (!store) throw new LibraryError('That library is not in your list any more.');
    return store;
  }

  async addLocation(path: string, name: string): Promise<LibraryLocation> {
    if (!isAbsolute(path)) throw new LibraryError('Enter the full path of the team folder (for example /home/you/Dropbox/Team library).');
    const full = resolve(path);
    const system = await refuseSystemFolder(full);
    if (system) throw new LibraryError(system);
    if (full === resolve(this.personal.dir) || this.saved.some((l) => resolve(l.path) === full)) throw new LibraryError('That folder is already in your list.');
    const location: SavedLocation = { id: `team_${randomBytes(4).toString('hex')}`, name: name.trim() || full.split(/[\\/]/).filter(Boolean).pop() || 'Team', path: full };
    const store = this.teamStore(location);
    await store.firstResults;
    if (store.state === 'unavailable') {
      await store.close();
      throw new LibraryError(store.message ?? `The folder ${full} cannot be opened.`);
    }
    this.saved.push(location);
    await this.writeLocations();
    this.attach(store);
    this.changed();
    return store.describe();
  }

  /** Forgets a team library; its folder and files are left as they are. */
  async removeLocation(id: string): Promise<void> {
    const store = this.store(id);
    if (store.location.kind === 'personal') throw new LibraryError('The personal library cannot be removed.');
    this.stores.delete(id);
    this.saved = this.saved.filter((l) => l.id !== id);
    await this.writeLocations();
    await store.close();
    this.changed();
  }

  private async writeLocations(): Promise<void> {
    await writeFileAtomic(this.locationsPath, `${JSON.stringify(this.saved, null, 2)}\n`, { mode: 0o600 });
  }

  /** The library holding a live item with this id (a moved item leaves a tombstone behind). */
  find(id: string, location?: string): LibraryStore | undefined {
    if (location) return this.stores.get(location);
    const stores = [...this.stores.values()];
    return stores.find((s) => s.summary(id)) ?? stores.find((s) => s.index.entries.has(id));
  }

  async get(id: string): Promise<LibraryItem | undefined> {
    return this.find(id)?.get(id);
  }

  async view(id: string, location?: string): Promise<LibraryItemView | undefined> {
    return this.find(id, location)?.view(id);
  }

  summary(id: string, location?: string): LibrarySummary | undefined {
    return this.find(id, location)?.summary(id);
  }

  async save(input: NewLibraryItem, location = 'personal'): Promise<LibraryItem> {
    return this.store(location).save(input);
  }

  search(query: LibraryQuery, limit = 200): LibrarySearchResult {
    const started = performance.now();
    const stores = query.location ? [this.store(query.location)] : [...this.stores.values()];
    const hits = stores.flatMap((store) => store.hits(query));
    const indexing = stores.some((store) => store.state === 'opening' || !store.index.textReady || store.index.partial);
    return finishSearch(hits, query, limit, started, this.corrupt, (hit) => hit.summary(), (hit) => hit.text(), indexing);
  }

  facets(): { sources: string[]; entities: string[]; tags: string[] } {
    const all = [...this.stores.values()].map((store) => store.facets());
    const merge = (pick: (f: (typeof all)[number]) => string[]): string[] => [...new Set(all.flatMap(pick))].sort((a, b) => a.localeCompare(b));
    return { sources: merge((f) => f.sources), entities: merge((f) => f.entities), tags: merge((f) => f.tags) };
  }

  /**
   * Copies an item to another library (a new id: the two then live separately), or moves it
   * (same id; the original becomes a tombstone so the move syncs, and can be undone).
   */
  async transfer(id: string, to: string, mode: 'copy' | 'move'): Promise<LibraryItem> {
    const from = this.find(id);
    const item = await from?.get(id);
    if (!from || !item) throw new LibraryError('That saved item no longer exists.');
    const target = this.store(to);
    if (target === from) throw new LibraryError(`It is already in “${target.location.name}”.`);
    if (mode === 'copy') return target.save({ ...item, tags: item.tags });
    if (from.readOnly) throw new LibraryError(`“${from.location.name}” is read-only for you: copy the item instead.`);
    const existing = target.index.entries.get(id);
    const moved = (await target.commit({ ...item, deletedAt: null, savedAt: new Date((this.options.now ?? Date.now)()).toISOString() }, existing?.revision ?? null)).item;
    await from.remove(id);
    return moved;
  }

  async close(): Promise<void> {
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    await Promise.all([...this.stores.values()].map((store) => store.close()));
  }
}

/** A random id per data directory, kept; the name adds the host for people reading file names. */
async function loadDevice(dataDir: string): Promise<Device> {
  const path = join(dataDir, 'device.json');
  try {
    const parsed = z.object({ id: z.string().regex(/^[0-9a-f]{16}$/) }).parse(JSON.parse(await readFile(path, 'utf8')));
    return { id: parsed.id, name: deviceName(parsed.id) };
  } catch {
    const id = randomBytes(8).toString('hex');
    await writeFileAtomic(path, `${JSON.stringify({ id })}\n`, { mode: 0o600 }).catch(() => undefined);
    return { id, name: deviceName(id) };
  }
}

function deviceName(id: string): string {
  return `${hostname().replace(/[^A-Za-z0-9-]/g, '-').slice(0, 24) || 'device'}-${id.slice(0, 4)}`;
}
