/**
 * The files of one library folder (docs/library-format.md): item JSON written atomically with
 * its `.md` copy, conflict copies named the way sync services name them, content hashes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, readFile as readFileCallback, readFileSync, type Stats } from 'node:fs';
import { access, constants, lstat, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { CITATION_MARKER, formatCitationDate, orderedCitations } from '../../../shared/cite-format';
import { LIBRARY_FORMAT_VERSION, migrateLibraryItem, type LibraryItem, type LibraryRevision } from '../../../shared/library';

/** An item's authoritative file. */
export const ITEM_FILE = /^(lib_[0-9a-f]{16})\.json$/;
/**
 * A conflict copy of an item: ours (`lib_x (conflicted copy <device> <time>).json`) and the
 * sync services' own (`lib_x (Ann's conflicted copy 2026-11-23).json`, `lib_x-LAPTOP.json`,
 * `lib_x (1).json`). Temporary files (`lib_x.json.123`, `~lib_x.json`) match neither pattern.
 */
export const CONFLICT_FILE = /^(lib_[0-9a-f]{16})[ (-][^/\\]{0,200}\.json$/;

export interface FileStamp {
  mtimeMs: number;
  size: number;
}

/** The hash of what a user sees and edits; the revision and save times are not part of it. */
export function contentHash(item: LibraryItem): string {
  const { kind, title, tags, createdAt, markdown, citations, meta, deletedAt } = item;
  return createHash('sha256').update(JSON.stringify([kind, title, tags, createdAt, markdown, citations, meta, deletedAt])).digest('hex');
}

/** Items written before revisions existed count as revision 0 of their content. */
export function revisionOf(item: LibraryItem): LibraryRevision {
  return item.revision ?? { n: 0, device: '', hash: contentHash(item) };
}

export function sameRevision(a: LibraryRevision, b: LibraryRevision): boolean {
  return a.n === b.n && a.device === b.device && a.hash === b.hash;
}

/**
 * SECURITY: nothing secret goes into a library or a bundle. A service URL keeps its origin and
 * path only (no user:password, no query that could carry a token).
 */
export function withoutSecrets(item: LibraryItem): LibraryItem {
  const url = item.meta.serviceUrl;
  if (!url) return item;
  let clean: string | null = null;
  try {
    const parsed = new URL(url);
    clean = `${parsed.origin}${parsed.pathname}`;
  } catch {
    clean = null;
  }
  return clean === url ? item : { ...item, meta: { ...item.meta, serviceUrl: clean } };
}

// The callback readFile: fs/promises' readFile is several times slower on many small files.
const readFile = promisify(readFileCallback);

export type ReadResult = { ok: true; item: LibraryItem; stamp: FileStamp; migrated: boolean } | { ok: false; missing: boolean };

/** Reads and validates one item file; a half-written or foreign file is `ok: false`. */
export async function readItemFile(path: string): Promise<ReadResult> {
  try {
    // SECURITY: a synced folder may hold a link named like an item that points elsewhere on this
    // machine; only a regular file is read (writes already replace a link, never follow it).
    const info = await lstat(path);
    if (!info.isFile()) return { ok: false, missing: false };
    return parsed(await readFile(path, 'utf8'), info);
  } catch (error) {
    return { ok: false, missing: (error as NodeJS.ErrnoException).code === 'ENOENT' };
  }
}

/** The same, synchronously: for a folder on this machine's disk, a few files at a time. */
export function readItemFileSync(path: string): ReadResult {
  try {
    const info = lstatSync(path);
    if (!info.isFile()) return { ok: false, missing: false };
    return parsed(readFileSync(path, 'utf8'), info);
  } catch (error) {
    return { ok: false, missing: (error as NodeJS.ErrnoException).code === 'ENOENT' };
  }
}

function parsed(text: string, info: Stats): ReadResult {
  const raw: unknown = JSON.parse(text);
  const item = migrateLibraryItem(raw);
  return { ok: true, item, stamp: { mtimeMs: info.mtimeMs, size: info.size }, migrated: (raw as { formatVersion?: number }).formatVersion !== LIBRARY_FORMAT_VERSION };
}

/** An item file's bytes, as the app writes them. */
export const itemFileText = (item: LibraryItem): string => `${JSON.stringify(item, null, 2)}\n`;

/**
 * Writes the authoritative JSON atomically (temp, fsync, rename), then the derived markdown copy.
 * `shared`: a team folder, where colleagues must read the files (the umask decides, not 0600).
 */
export async function writeItemFile(dir: string, name: string, item: LibraryItem, withCopy = true, shared = false, zone?: string): Promise<FileStamp> {
  const path = join(dir, name);
  const mode = shared ? {} : { mode: 0o600 };
  await writeFileAtomic(path, itemFileText(item), { ...mode, fsync: true });
  const info = await stat(path);
  if (withCopy) await writeFileAtomic(join(dir, name.replace(/\.json$/, '.md')), humanCopy(item, zone), mode).catch(() => undefined);
  return { mtimeMs: info.mtimeMs, size: info.size };
}

export async function removeItemFiles(dir: string, name: string): Promise<void> {
  await unlink(join(dir, name)).catch(() => undefined);
  await unlink(join(dir, name.replace(/\.json$/, '.md'))).catch(() => undefined);
}

/** `lib_x (conflicted copy ann-laptop-3f2a 2026-11-23 190512).json`, as sync services name theirs. */
export function conflictFileName(id: string, deviceName: string, at: number): string {
  const time = new Date(at).toISOString().replace('T', ' ').replace(/:/g, '').slice(0, 17);
  return `${id} (conflicted copy ${deviceName.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 40)} ${time}).json`;
}

/** The `.md` copy a person can read without the app: front matter, text, sources (dated in `zone`, the app's display zone). */
export function humanCopy(item: LibraryItem, zone?: string): string {
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
    ({ number, citation: c }) => `${number}. ${c.title ?? c.id} — ${c.source_name ?? c.source_id ?? 'unknown source'}, ${formatCitationDate(c.published_at, zone)}${c.url ? ` <${c.url}>` : ''}${c.detail?.healthWhenCited ? ` (source ${c.detail.healthWhenCited} when cited)` : ''}`,
  );
  return `${front}\n\n# ${item.title}\n\n${body}\n\n## Sources\n\n${sources.join('\n')}\n`;
}

/** A real write probe: permissions, read-only mounts and ACLs all answer it. */
export async function folderWritable(dir: string): Promise<boolean> {
  try {
    await access(dir, constants.W_OK);
    const probe = join(dir, `.clarity-write-test-${randomBytes(4).toString('hex')}`);
    await writeFile(probe, '');
    await rm(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}

export type NewLibraryItem = Pick<LibraryItem, 'kind' | 'title' | 'markdown' | 'citations' | 'meta' | 'createdAt'> & { tags?: string[] };

/**
 * Item ids that sort by the item's `createdAt` (docs/decisions/0015-time-ordered-library-ids.md),
 * inside the format's `lib_<16 hex>`, so every reader of the format, older versions of the app
 * included, reads them as before. The 16 hex digits are:
 *   8: whole seconds of `createdAt` since 2000-01-01T00:00:00Z (times from 2020 to 2136),
 *   5: random (two items of one second differ here),
 *   3: a check of the first 13, so an id from before (all random) is seldom taken for one of these.
 * A first open with no cache lists the folder and reads the newest by name first
 * (library-glance.ts), instead of reading every file to find each item's `createdAt`.
 */
const ID_EPOCH_MS = Date.UTC(2000, 0, 1);
const ID_SECONDS_LIMIT = 2 ** 32;
/**
 * Only times from 2020 on are put in ids (earlier ones get a random id): an id made by hand
 * (`lib_0000000000000001`) or a random one then seldom reads as one of these.
 */
const ID_EARLIEST_MS = Date.UTC(2020, 0, 1);
/** The `createdAt` a time-ordered id is made from: ISO 8601 in UTC, as `toISOString` writes it (string order is time order). */
const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

/** 12 bits of FNV-1a over the id's first 13 hex digits. */
function idCheck(head: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < head.length; i += 1) hash = Math.imul(hash ^ head.charCodeAt(i), 0x01000193);
  return ((hash ^ (hash >>> 12) ^ (hash >>> 24)) & 0xfff).toString(16).padStart(3, '0');
}

/** A fresh id for an item created at `createdAt`: time-ordered if that is a plain UTC time from 2020 on, else all random. */
export function libraryItemId(createdAt: string): string {
  const ms = CANONICAL_TIME.test(createdAt) ? Date.parse(createdAt) : Number.NaN;
  const seconds = Math.floor((ms - ID_EPOCH_MS) / 1000);
  if (!(ms >= ID_EARLIEST_MS && seconds < ID_SECONDS_LIMIT)) return `lib_${randomBytes(8).toString('hex')}`;
  const head = `${seconds.toString(16).padStart(8, '0')}${randomBytes(3).toString('hex').slice(0, 5)}`;
  return `lib_${head}${idCheck(head)}`;
}

/**
 * What a time-ordered id says of its item: a time no `createdAt` made into it can exceed (the
 * start of the next second, as `toISOString` writes it). Null for an id that is not one (an
 * older random id, seldom passing the check), or that says a time before 2020 or more than a
 * day after `notAfterMs` (more likely a random id than a colleague's clock running ahead). A
 * file can lie (renamed or edited by hand): the name only decides which files are read first,
 * the list is ordered by what the files hold.
 */
export function createdAtBoundOfId(id: string, notAfterMs: number): string | null {
  if (id.length !== 20) return null;
  const head = id.slice(4, 17);
  if (idCheck(head) !== id.slice(17)) return null;
  const bound = ID_EPOCH_MS + (Number.parseInt(head.slice(0, 8), 16) + 1) * 1000;
  return bound <= ID_EARLIEST_MS || bound > notAfterMs + 24 * 3600_000 ? null : new Date(bound).toISOString();
}

/** A new item with a fresh id; its revision is given when it is written. */
export function newLibraryItem(input: NewLibraryItem, now: number): LibraryItem {
  const at = new Date(now).toISOString();
  return {
    formatVersion: LIBRARY_FORMAT_VERSION,
    id: libraryItemId(input.createdAt),
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
}
