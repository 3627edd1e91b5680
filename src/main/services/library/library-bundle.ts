/**
 * Portable bundles (`.clarity`): a zip holding `manifest.json`, one `items/<id>.json` per item
 * and one `signals/<sig id>.json` per cited signal snapshot, each listed in the manifest with
 * its size and SHA-256. Import validates everything (names, sizes, hashes, schemas) before
 * anything is written, and never overwrites an item silently (docs/library-format.md).
 */
import { createHash } from 'node:crypto';
import { strToU8, strFromU8, unzip, unzipSync, zipSync, type UnzipFileInfo, type Zippable } from 'fflate';
import { z } from 'zod';
import { CitationSnapshot } from '../../../shared/conversation';
import { LibraryItemSchema, LibraryRevision, type BundlePlan, type LibraryItem } from '../../../shared/library';
import { contentHash, revisionOf, sameRevision, withoutSecrets } from './library-files';
import type { LibraryStore } from './library-store';

export const BUNDLE_LIMITS = { bundleBytes: 64 * 1024 * 1024, entryBytes: 8 * 1024 * 1024, totalBytes: 256 * 1024 * 1024, items: 5_000, entries: 50_000 } as const;

const ManifestEntry = z.object({ path: z.string().max(200), sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().min(0) });
const Manifest = z.object({
  format: z.literal('clarity-bundle'),
  version: z.literal(1),
  createdAt: z.string().max(40),
  selection: z.string().max(300),
  items: z.array(ManifestEntry.extend({ id: z.string().regex(/^lib_[0-9a-f]{16}$/), revision: LibraryRevision })).max(BUNDLE_LIMITS.items),
  signals: z.array(ManifestEntry.extend({ id: z.string().regex(/^sig_[0-9a-f]{16}$/) })).max(BUNDLE_LIMITS.entries),
});
type Manifest = z.infer<typeof Manifest>;

/** SECURITY: the only names a bundle may contain; anything else (`../x`, `/etc/x`, `a\b`) refuses it. */
const ENTRY_NAME = /^(?:manifest\.json|items\/lib_[0-9a-f]{16}\.json|signals\/sig_[0-9a-f]{16}\.json)$/;

export class BundleError extends Error {}

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

export function exportBundle(items: LibraryItem[], selection: string, now: number = Date.now()): Buffer {
  const files: Zippable = {};
  const manifest: Manifest = { format: 'clarity-bundle', version: 1, createdAt: new Date(now).toISOString(), selection, items: [], signals: [] };
  const signals = new Map<string, Uint8Array>();
  for (const raw of items) {
    const item = withoutSecrets(raw);
    const data = strToU8(`${JSON.stringify(item, null, 2)}\n`);
    const path = `items/${item.id}.json`;
    files[path] = data;
    manifest.items.push({ id: item.id, path, sha256: sha256(data), size: data.length, revision: revisionOf(item) });
    for (const citation of item.citations) if (/^sig_[0-9a-f]{16}$/.test(citation.id) && !signals.has(citation.id)) signals.set(citation.id, strToU8(`${JSON.stringify(citation, null, 2)}\n`));
  }
  for (const [id, data] of signals) {
    const path = `signals/${id}.json`;
    files[path] = data;
    manifest.signals.push({ id, path, sha256: sha256(data), size: data.length });
  }
  files['manifest.json'] = strToU8(`${JSON.stringify(manifest, null, 2)}\n`);
  return Buffer.from(zipSync(files, { level: 6 }));
}

const MB = 1024 * 1024;

function checkCompressed(data: Uint8Array): void {
  if (data.length > BUNDLE_LIMITS.bundleBytes) throw new BundleError(`The bundle is ${(data.length / MB).toFixed(1)} MB; the app imports bundles up to ${BUNDLE_LIMITS.bundleBytes / MB} MB.`);
}

/** SECURITY: names and declared sizes are checked before anything is inflated. */
function entryFilter(): (file: UnzipFileInfo) => boolean {
  let total = 0;
  let count = 0;
  return (file) => {
    if (!ENTRY_NAME.test(file.name)) throw new BundleError(`The bundle contains a file it should not: “${file.name.slice(0, 120)}”.`);
    if (file.originalSize > BUNDLE_LIMITS.entryBytes) throw new BundleError(`“${file.name}” is larger than ${BUNDLE_LIMITS.entryBytes / MB} MB.`);
    total += file.originalSize;
    count += 1;
    if (total > BUNDLE_LIMITS.totalBytes || count > BUNDLE_LIMITS.entries) throw new BundleError(`The bundle unpacks to more than ${BUNDLE_LIMITS.totalBytes / MB} MB or ${BUNDLE_LIMITS.entries.toLocaleString('en-IN')} files, more than the app imports.`);
    return true;
  };
}

/** The sizes the files really inflated to (a zip can declare smaller ones than it holds). */
function checkInflated(files: Record<string, Uint8Array>): void {
  let total = 0;
  for (const [name, bytes] of Object.entries(files)) {
    if (bytes.length > BUNDLE_LIMITS.entryBytes) throw new BundleError(`“${name}” unpacks to more than ${BUNDLE_LIMITS.entryBytes / MB} MB.`);
    total += bytes.length;
  }
  if (total > BUNDLE_LIMITS.totalBytes) throw new BundleError(`The bundle unpacks to more than ${BUNDLE_LIMITS.totalBytes / MB} MB, more than the app imports.`);
}

const unreadable = (error: unknown): BundleError => (error instanceof BundleError ? error : new BundleError('This is not a Clarity bundle (the zip cannot be read).'));

/** Everything in a bundle, checked; throws a BundleError that says what is wrong. Synchronous: tools and tests. */
export function readBundle(data: Uint8Array): { manifest: Manifest; items: LibraryItem[] } {
  checkCompressed(data);
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data, { filter: entryFilter() });
  } catch (error) {
    throw unreadable(error);
  }
  return checkBundleFiles(files);
}

/**
 * The same, for the app: inflated off the main thread (fflate's asynchronous unzip runs each
 * large entry in a worker thread), so importing a big bundle never freezes the window; the
 * size caps hold before (declared sizes) and after (real sizes) inflating.
 */
export async function readBundleInBackground(data: Uint8Array): Promise<{ manifest: Manifest; items: LibraryItem[] }> {
  checkCompressed(data);
  const files = await new Promise<Record<string, Uint8Array>>((resolve, reject) => {
    try {
      unzip(data, { filter: entryFilter() }, (error, result) => (error ? reject(unreadable(error)) : resolve(result)));
    } catch (error) {
      reject(unreadable(error));
    }
  });
  return checkBundleFiles(files);
}

function checkBundleFiles(files: Record<string, Uint8Array>): { manifest: Manifest; items: LibraryItem[] } {
  checkInflated(files);
  const json = (name: string): unknown => {
    const bytes = files[name];
    if (!bytes) throw new BundleError(`The bundle lacks ${name}.`);
    try {
      return JSON.parse(strFromU8(bytes));
    } catch {
      throw new BundleError(`${name} is not valid JSON.`);
    }
  };
  const parsedManifest = Manifest.safeParse(json('manifest.json'));
  if (!parsedManifest.success) throw new BundleError('The bundle’s manifest is not in the expected format.');
  const manifest = parsedManifest.data;
  const listed = new Set(['manifest.json', ...manifest.items.map((e) => e.path), ...manifest.signals.map((e) => e.path)]);
  for (const name of Object.keys(files)) if (!listed.has(name)) throw new BundleError(`“${name}” is in the bundle but not in its manifest.`);
  for (const entry of [...manifest.items, ...manifest.signals]) {
    const bytes = files[entry.path];
    if (!bytes) throw new BundleError(`The manifest lists ${entry.path}, which is missing.`);
    if (bytes.length !== entry.size || sha256(bytes) !== entry.sha256) throw new BundleError(`${entry.path} does not match its hash in the manifest: the bundle was altered or damaged.`);
  }
  const items = manifest.items.map((entry) => {
    const parsed = LibraryItemSchema.safeParse(json(entry.path));
    if (!parsed.success || parsed.data.id !== entry.id) throw new BundleError(`${entry.path} is not a valid library item.`);
    return parsed.data;
  });
  for (const entry of manifest.signals) if (!CitationSnapshot.safeParse(json(entry.path)).success) throw new BundleError(`${entry.path} is not a valid signal snapshot.`);
  return { manifest, items };
}

/** What importing would do in `target`, item by item. */
export function planImport(items: LibraryItem[], target: LibraryStore): BundlePlan {
  return {
    items: items.map((item) => ({ id: item.id, title: item.title, kind: item.kind, status: statusOf(item, target) })),
    citations: new Set(items.flatMap((item) => item.citations.map((c) => c.id))).size,
  };
}

function statusOf(item: LibraryItem, target: LibraryStore): BundlePlan['items'][number]['status'] {
  const local = target.index.entries.get(item.id);
  if (!local) return 'new';
  const theirs = revisionOf(item);
  // The content decides sameness, whatever revision either side carries.
  if (sameRevision(theirs, local.revision) || contentHash(item) === local.revision.hash) return 'same';
  if (theirs.n > local.revision.n) return 'newer';
  if (theirs.n < local.revision.n) return 'older';
  return 'diverged';
}

/**
 * Writes what the user agreed to: new items always; a newer revision only if its id is in
 * `replace`; a diverged one as a conflict copy beside ours. Same and older are left alone.
 */
export async function applyImport(items: LibraryItem[], target: LibraryStore, replace: string[]): Promise<{ added: number; replaced: number; conflicts: number; skipped: number }> {
  const counts = { added: 0, replaced: 0, conflicts: 0, skipped: 0 };
  for (const item of items) {
    const status = statusOf(item, target);
    const local = target.index.entries.get(item.id);
    if (status === 'new') {
      await target.commit({ ...item, deletedAt: null }, null);
      counts.added += 1;
    } else if (status === 'newer' && replace.includes(item.id)) {
      await target.commit(item, local!.revision);
      counts.replaced += 1;
    } else if (status === 'diverged') {
      // Based on a revision this library has not got: written as a conflict copy, never over ours.
      await target.commit(item, revisionOf(item));
      counts.conflicts += 1;
    } else counts.skipped += 1;
  }
  return counts;
}
