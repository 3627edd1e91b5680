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

/**
 * Writes the authoritative JSON atomically (temp, fsync, rename), then the derived markdown copy.
 * `shared`: a team folder, where colleagues must read the files (the umask decides, not 0600).
 */
export async function writeItemFile(dir: string, name: string, item: LibraryItem, withCopy = true, shared = false): Promise<FileStamp> {
  const path = join(dir, name);
  const mode = shared ? {} : { mode: 0o600 };
  await writeFileAtomic(path, `${JSON.stringify(item, null, 2)}\n`, { ...mode, fsync: true });
  const info = await stat(path);
  if (withCopy) await writeFileAtomic(join(dir, name.replace(/\.json$/, '.md')), humanCopy(item), mode).catch(() => undefined);
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

/** The `.md` copy a person can read without the app: front matter, text, sources. */
export function humanCopy(item: LibraryItem): string {
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

/** A new item with a fresh id; its revision is given when it is written. */
export function newLibraryItem(input: NewLibraryItem, now: number): LibraryItem {
  const at = new Date(now).toISOString();
  return {
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
}
