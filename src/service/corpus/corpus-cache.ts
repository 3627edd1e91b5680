/**
 * The generated corpus and its search index, cached in the service's data directory: generating
 * and indexing 20,000 signals takes most of a second at every start, reading them back a
 * fraction of that. The file is named by a hash of everything that decides its content: the
 * generator's inputs (seed, sizes, anchor day) and the code that generates and indexes it, so
 * a changed generator, seed or day writes a new one. A file that cannot be read or does not
 * fit is regenerated, never fatal.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { SignalSearchIndex, type IndexSnapshot } from '../retrieval/search-index';
import { DEFAULT_ANCHOR, DEFAULT_SEED, DEFAULT_SIGNAL_COUNT, type Corpus, type CorpusOptions } from './generator';

/** Bumped when the file's layout changes (the code hash covers what is in it). */
const FORMAT = 1;
const PREFIX = 'corpus-cache-';
const CACHE_FILE = /^corpus-cache-[0-9a-f]{32}\.json$/;

export interface CorpusCacheOptions {
  /** Where the cache file lives (the service's data directory). */
  dir: string;
  /** The directory of the running service code (source or build): its files are hashed into the key. */
  codeDir: string;
}

export interface CachedCorpus {
  corpus: Corpus;
  index: SignalSearchIndex;
}

interface CacheFile {
  key: string;
  corpus: Corpus;
  index: IndexSnapshot;
}

/** Hash of every script under `dir` (relative path and content), read once per process. */
const codeHashes = new Map<string, string>();
export function codeHash(dir: string): string {
  let known = codeHashes.get(dir);
  if (known) return known;
  const hash = createHash('sha256');
  const files = (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs|cjs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) hash.update(`${relative(dir, file)}\0`).update(readFileSync(file)).update('\0');
  known = hash.digest('hex');
  codeHashes.set(dir, known);
  return known;
}

export function corpusCacheKey(options: CorpusOptions, codeDir: string): string {
  const inputs = {
    format: FORMAT,
    seed: options.seed ?? DEFAULT_SEED,
    signals: options.signalCount ?? DEFAULT_SIGNAL_COUNT,
    sources: options.sourceCount ?? 0,
    anchor: (options.anchor ?? DEFAULT_ANCHOR).toISOString(),
    code: codeHash(codeDir),
  };
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 32);
}

const fileFor = (dir: string, key: string): string => join(dir, `${PREFIX}${key}.json`);

/** The cached corpus for `key`, or null (with the reason) when there is none or it is unusable. */
export function readCorpusCache(dir: string, key: string): { cached: CachedCorpus | null; problem?: string } {
  let text: string;
  try {
    text = readFileSync(fileFor(dir, key), 'utf8');
  } catch {
    return { cached: null };
  }
  try {
    const file = JSON.parse(text) as CacheFile;
    if (file.key !== key) throw new Error('it belongs to other inputs');
    const { corpus } = file;
    if (!Array.isArray(corpus?.signals) || !Array.isArray(corpus.sources) || typeof corpus.truth !== 'object' || corpus.truth === null) throw new Error('it is incomplete');
    return { cached: { corpus, index: SignalSearchIndex.fromSnapshot(corpus.signals, file.index) } };
  } catch (error) {
    return { cached: null, problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The cache file's text. Taken before anything changes the corpus (the live feed adds signals
 * and moves source health), so the file holds exactly what the generator produced.
 */
export function corpusCacheText(key: string, cached: CachedCorpus): string {
  const file: CacheFile = { key, corpus: cached.corpus, index: cached.index.snapshot() };
  return JSON.stringify(file);
}

/** Writes the cache atomically and removes the files of other keys (an older day or build). */
export async function writeCorpusCache(dir: string, key: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(fileFor(dir, key), text, { mode: 0o600 });
  const stale = (await readdir(dir)).filter((name) => CACHE_FILE.test(name) && name !== `${PREFIX}${key}.json`);
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
}
