/**
 * Comparing a library folder with what is known: which item and conflict files exist, and
 * which of them changed (size or mtime) since they were last read. Only those are read again.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFLICT_FILE, ITEM_FILE, readItemFile, removeItemFiles, type FileStamp, type ReadResult } from './library-files';
import type { LibraryIndex } from './library-index';

export const READ_BATCH = 64;
/** The longest the scan parses and indexes before giving the event loop a turn. */
const SLICE_MS = 8;

export interface FolderState {
  /** The stamp an item or conflict file had when last read; undefined if never read. */
  known(name: string): FileStamp | undefined;
  /** True when a file must be read even though its stamp is unchanged (not in the text index). */
  mustRead(name: string): boolean;
  /** Files that did not parse, by the stamp they had then. */
  unreadable: Map<string, FileStamp>;
}

export interface FolderChanges {
  names: string[];
  items: Set<string>;
  conflicts: Set<string>;
  changed: string[];
}

export async function folderChanges(dir: string, state: FolderState): Promise<FolderChanges | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return null;
  }
  const out: FolderChanges = { names, items: new Set(), conflicts: new Set(), changed: [] };
  for (let i = 0; i < names.length; i += READ_BATCH) {
    const batch = names.slice(i, i + READ_BATCH).filter((name) => ITEM_FILE.test(name) || CONFLICT_FILE.test(name));
    const stamps = await Promise.all(batch.map((name) => stat(join(dir, name)).then((s) => ({ mtimeMs: s.mtimeMs, size: s.size }), () => null)));
    batch.forEach((name, j) => {
      const stamp = stamps[j];
      if (!stamp) return;
      const item = ITEM_FILE.exec(name)?.[1];
      if (item) out.items.add(item);
      else out.conflicts.add(name);
      const same = (a: FileStamp | undefined): boolean => !!a && a.mtimeMs === stamp.mtimeMs && a.size === stamp.size;
      if ((same(state.known(name)) && !state.mustRead(name)) || same(state.unreadable.get(name))) return;
      out.changed.push(name);
    });
  }
  return out;
}

/** Removes tombstones older than `limitMs` from disk and the index; true if any went. */
export async function purgeTombstones(dir: string, index: LibraryIndex, limitMs: number, now: number): Promise<boolean> {
  let purged = false;
  for (const entry of [...index.entries.values()]) {
    if (!entry.deletedAt || now - Date.parse(entry.deletedAt) <= limitMs) continue;
    // The index may be behind the folder: a colleague's restore (or a newer revision) can have
    // synced in since the scan. Remove the file only if it is still this very tombstone.
    const onDisk = await readItemFile(join(dir, `${entry.id}.json`));
    if (onDisk.ok && (!onDisk.item.deletedAt || onDisk.item.revision?.hash !== entry.revision.hash || onDisk.item.revision?.n !== entry.revision.n)) continue;
    await removeItemFiles(dir, `${entry.id}.json`);
    index.drop(entry.id);
    purged = true;
  }
  return purged;
}

/**
 * Reads changed files and hands each that parses to `ingest`; one that does not is remembered
 * in `unreadable` by its stamp. True if anything was taken in.
 */
export async function readChanged(dir: string, todo: string[], unreadable: Map<string, FileStamp>, ingest: (name: string, result: ReadResult & { ok: true }) => Promise<void>): Promise<boolean> {
  let changed = false;
  let slice = performance.now();
  for (let i = 0; i < todo.length; i += READ_BATCH) {
    const batch = todo.slice(i, i + READ_BATCH);
    const results = await Promise.all(batch.map((name) => readItemFile(join(dir, name))));
    for (const [j, name] of batch.entries()) {
      const result = results[j]!;
      if (!result.ok) {
        if (result.missing) continue;
        // Half-synced or foreign: ignored until it parses (the next change re-reads it).
        const info = await stat(join(dir, name)).catch(() => null);
        if (info) unreadable.set(name, { mtimeMs: info.mtimeMs, size: info.size });
        continue;
      }
      unreadable.delete(name);
      changed = true;
      await ingest(name, result);
      // Parsing and indexing cost about a quarter of a millisecond per item: the main process
      // (which also serves the UI) gets a turn every few milliseconds.
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
  }
  return changed;
}
