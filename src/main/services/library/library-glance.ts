/**
 * The very first open of a library (no cache yet): the newest items are shown before the whole
 * folder is read and indexed, which takes seconds at 10,000 items.
 *
 * The list's order, newest first, is by `createdAt` inside each file; a file's modified time says
 * nothing about it (a copied or synced folder has every file modified "now"). Each item file gets
 * an estimate of its `createdAt`, read without parsing it:
 * - from its name, when the app saved it: ids are time-ordered (library-files.ts,
 *   `libraryItemId`), so listing the folder is enough and no file is read for its estimate;
 * - otherwise (saved by an earlier version, copied in by hand, a random id) from a glance at its
 *   bytes: its `createdAt` and `deletedAt` found by searching them (a tenth of the cost of
 *   parsing and validating, no text decoded).
 *
 * Guarantee: files are then read properly (parsed, validated) newest estimate first until the
 * page is full and no unread file's estimate is newer than the page's oldest item. An estimate
 * from the bytes only over-estimates: it is the newest `createdAt` written anywhere in the file,
 * and the file counts as deleted only if every `deletedAt` in it is a time. An estimate from the
 * name over-estimates for every file the app wrote (an item's `createdAt` never changes). So
 * the page is exactly the newest live items by `createdAt`, for any file whose keys are written
 * plainly (every JSON writer does; a key spelt with `\u` escapes would not be seen) and whose
 * name does not claim an older time than it holds (a file edited or renamed by hand). Such a
 * file is placed when the full read that follows reaches it, seconds later. Items tied on the
 * page's oldest time may be any of the tied ones.
 */
import { close, closeSync, constants, fstat, fstatSync, open, openSync, readFile, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CONFLICT_FILE, ITEM_FILE, createdAtBoundOfId, readItemFile, readItemFileSync, type ReadResult } from './library-files';

export interface Glance {
  name: string;
  /** At least the item's real `createdAt` ('\uffff' when it cannot be told: read it first). */
  newest: string;
  /** False only when the file is certainly a tombstone. */
  maybeLive: boolean;
}

const UNKNOWN = '\uffff';
const READ_AHEAD = 16;
/** Slices of synchronous reading, so the main process still answers the UI in between. */
const SLICE_MS = 8;
/** SECURITY: never follow a link (a synced folder may hold one), never wait on a pipe. */
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

const KEYS = { createdAt: Buffer.from('"createdAt"'), savedAt: Buffer.from('"savedAt"'), deletedAt: Buffer.from('"deletedAt"') };
const NULL = Buffer.from('null');
const isSpace = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * Every value of a key in the file's bytes (searched natively, no text decoded): the string if
 * it is plain (printable ASCII, no escapes), null for null, undefined for anything else.
 */
function valuesOf(bytes: Buffer, key: Buffer): Array<string | null | undefined> {
  const out: Array<string | null | undefined> = [];
  for (let at = bytes.indexOf(key); at >= 0; at = bytes.indexOf(key, at + key.length)) {
    let i = at + key.length;
    while (isSpace(bytes[i])) i += 1;
    if (bytes[i] !== 0x3a) {
      out.push(undefined); // not a key (the word inside a list of strings, say)
      continue;
    }
    i += 1;
    while (isSpace(bytes[i])) i += 1;
    if (bytes[i] !== 0x22) {
      out.push(bytes.subarray(i, i + 4).equals(NULL) ? null : undefined);
      continue;
    }
    const start = (i += 1);
    while (i < bytes.length && bytes[i]! >= 0x20 && bytes[i]! <= 0x7e && bytes[i] !== 0x22 && bytes[i] !== 0x5c) i += 1;
    out.push(bytes[i] === 0x22 ? bytes.toString('latin1', start, i) : undefined);
  }
  return out;
}

/** The newest plain value of a key; UNKNOWN if one is not plain; null if the key is absent. */
function newestOf(bytes: Buffer, key: Buffer): string | null {
  const values = valuesOf(bytes, key);
  if (values.length === 0) return null;
  let newest = '';
  for (const value of values) {
    if (typeof value !== 'string') return UNKNOWN;
    if (value > newest) newest = value;
  }
  return newest || UNKNOWN;
}

/** `bytes`: the whole file. */
export function glance(name: string, bytes: Buffer): Glance {
  // Version 1 items have no createdAt: theirs is their savedAt.
  const newest = newestOf(bytes, KEYS.createdAt) ?? newestOf(bytes, KEYS.savedAt) ?? UNKNOWN;
  const deleted = valuesOf(bytes, KEYS.deletedAt);
  // Live unless every deletedAt is a time (null, or anything not plain: maybe live).
  return { name, newest, maybeLive: deleted.length === 0 || deleted.some((value) => typeof value !== 'string') };
}

/** Reused for every file; a bigger one (unusual) gets its own, so none is kept alive. */
const buffer = Buffer.allocUnsafe(64 * 1024);

function readRegularSync(path: string): Buffer | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, FLAGS);
    const info = fstatSync(fd);
    if (!info.isFile()) return null;
    const into = info.size <= buffer.length ? buffer : Buffer.allocUnsafe(info.size);
    let length = 0;
    for (let n = -1; n !== 0 && length < info.size; length += n) n = readSync(fd, into, length, info.size - length, length);
    return into.subarray(0, length);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const closeAsync = promisify(close);
// The callback readFile: fs/promises' readFile is several times slower on many small files.
const readFdAsync = promisify(readFile) as (fd: number) => Promise<Buffer>;

async function readRegular(path: string): Promise<Buffer | null> {
  let fd: number | null = null;
  try {
    fd = await openAsync(path, FLAGS);
    return (await fstatAsync(fd)).isFile() ? await readFdAsync(fd) : null;
  } catch {
    return null;
  } finally {
    if (fd !== null) await closeAsync(fd).catch(() => undefined);
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Glances at item files. `local`: the folder is on this machine's disk (the personal library),
 * read synchronously in short slices, about three times faster; a team folder may be on a share
 * where a read can stall, so it is read asynchronously, a few files at a time.
 */
export async function glanceFiles(dir: string, names: string[], local: boolean): Promise<Glance[]> {
  const out: Glance[] = [];
  if (local) {
    let slice = performance.now();
    for (const name of names) {
      const bytes = readRegularSync(join(dir, name));
      if (bytes !== null) out.push(glance(name, bytes));
      if (performance.now() - slice > SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    return out;
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const name = names[next++]!;
      const bytes = await readRegular(join(dir, name));
      if (bytes !== null) out.push(glance(name, bytes));
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return out;
}

/** What reading one file properly found: its real `createdAt`, or null (tombstone, unreadable). */
export type ReadForPage = (name: string) => Promise<{ createdAt: string } | null>;

/** The first rows the list shows: reached before the rest of the page is read (`readNewest`'s `early`). */
export const FIRST_ROWS = 50;

/**
 * Reads files, newest estimate first, until `count` live items are read and no unread file can
 * be newer than the oldest of them (see the guarantee above). Returns how many files were read.
 * `early`: called once the newest `early.count` are known the same way (or all is read), so
 * they can be shown while the rest of the page is read.
 */
export async function readNewest(glances: Glance[], count: number, read: ReadForPage, early?: { count: number; reached: () => void }): Promise<number> {
  const order = glances.filter((g) => g.maybeLive).sort((a, b) => (a.newest < b.newest ? 1 : a.newest > b.newest ? -1 : 0));
  const page: string[] = [];
  let reads = 0;
  const known = (n: number): boolean => page.length >= n && page[n - 1]! >= order[reads]!.newest;
  while (reads < order.length && !known(count)) {
    if (early && known(early.count)) {
      early.reached();
      early = undefined;
    }
    // A few files at a time: reading one past the stopping point only adds an older item.
    const batch = order.slice(reads, reads + READ_AHEAD);
    reads += batch.length;
    for (const found of await Promise.all(batch.map((glance) => read(glance.name)))) {
      if (!found) continue;
      // Kept sorted newest first: the page's oldest is page[count - 1].
      const at = page.findIndex((createdAt) => createdAt < found.createdAt);
      page.splice(at < 0 ? page.length : at, 0, found.createdAt);
    }
  }
  early?.reached();
  return reads;
}

/**
 * Estimates from file names alone, for the app's time-ordered ids; the names left over must be
 * glanced at. `now`: an id saying a time more than a day later is not taken as one.
 */
export function glanceNames(names: string[], now: number): { glances: Glance[]; unnamed: string[] } {
  const glances: Glance[] = [];
  const unnamed: string[] = [];
  for (const name of names) {
    const id = ITEM_FILE.exec(name)?.[1];
    if (!id) continue;
    const newest = createdAtBoundOfId(id, now);
    if (newest === null) unnamed.push(name);
    else glances.push({ name, newest, maybeLive: true });
  }
  return { glances, unnamed };
}

/**
 * Reads the `count` newest live items of a folder (and every conflict copy, for their badges)
 * and hands them to `ingest`; the scan that follows skips what was read here. `firstRows`: called
 * as soon as the newest `FIRST_ROWS` are in, so the list shows them while the rest is read.
 */
export async function readFirstPage(dir: string, count: number, local: boolean, ingest: (name: string, result: ReadResult & { ok: true }) => Promise<void>, now = Date.now(), firstRows?: () => void): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const read = async (name: string): Promise<ReadResult> => (local ? readItemFileSync(join(dir, name)) : readItemFile(join(dir, name)));
  const { glances, unnamed } = glanceNames(names, now);
  if (unnamed.length > 0) glances.push(...(await glanceFiles(dir, unnamed, local)));
  // Conflict copies first (few), so the first rows shown already carry their badges.
  for (const name of names) {
    if (!CONFLICT_FILE.test(name) || ITEM_FILE.test(name)) continue;
    const result = await read(name);
    if (result.ok) await ingest(name, result);
  }
  await readNewest(glances, count, async (name) => {
    const result = await read(name);
    // One that does not parse, or holds another id, is left to the scan.
    if (!result.ok || result.item.id !== ITEM_FILE.exec(name)?.[1]) return null;
    await ingest(name, result);
    return result.item.deletedAt ? null : { createdAt: result.item.createdAt };
  }, firstRows && { count: FIRST_ROWS, reached: firstRows });
}
