/**
 * The generated corpus and its search index, cached in the service's data directory: generating
 * and indexing 20,000 signals takes most of a second at every start, reading them back a
 * fraction of that. The file is named by a hash of everything that decides its content: the
 * generator's inputs (seed, sizes, anchor day) and the code that generates and indexes it, so
 * a changed generator, seed or day writes a new one. A file that cannot be read or does not
 * fit is regenerated, never fatal.
 *
 * The file is binary, in the stored signals' packed layout (retrieval/packed-snapshot.ts): read
 * at every start, the 20,000 signals' 21 MB of JSON took most of a second to parse (bench/notes.md,
 * issue 27). Its records are the signals, with the index over them; the sources and the ground
 * truth (under 1 MB of JSON) ride in its header.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { takeEarlyRead, takeFinishedEarlyRead } from '../retrieval/early-reads';
import { finishSteps, packSnapshot, unpackSnapshotSteps } from '../retrieval/packed-snapshot';
import { SignalSearchIndex, type PackedIndex } from '../retrieval/search-index';
import type { GroundTruth } from './ground-truth';
import { DEFAULT_ANCHOR, DEFAULT_SEED, DEFAULT_SIGNAL_COUNT, type Corpus, type CorpusOptions, type CorpusSignal, type CorpusSource } from './generator';

/**
 * Bumped when the file's layout changes (the code hash covers what is in it). 1: JSON; 2: packed; 3: long texts decoded on use;
 * 4: the index's columns (publication times, entity lists) stored.
 */
const FORMAT = 4;
const PREFIX = 'corpus-cache-';
const SUFFIX = '.bin';
/** This layout's files and the JSON ones of format 1 (removed when a new one is written). */
const CACHE_FILE = /^corpus-cache-[0-9a-f]{32}\.(json|bin)$/;

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

interface CacheMeta {
  key: string;
  sources: CorpusSource[];
  truth: GroundTruth;
}

/** Hash of every script and data file under `dir` (relative path and content), read once per process: the gazetteer is JSON. */
const codeHashes = new Map<string, string>();
export function codeHash(dir: string): string {
  let known = codeHashes.get(dir);
  if (known) return known;
  const hash = createHash('sha256');
  const files = (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs|cjs|json)$/.test(entry.name))
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

const corpusCacheFile = (dir: string, key: string): string => join(dir, `${PREFIX}${key}${SUFFIX}`);

/** The cached corpus for `key`, or null (with the reason) when there is none or it is unusable. */
export function readCorpusCache(dir: string, key: string): { cached: CachedCorpus | null; problem?: string } {
  const { cached, problem } = readPackedCorpusCache(dir, key);
  if (!cached) return { cached: null, problem };
  try {
    return { cached: { corpus: cached.corpus, index: SignalSearchIndex.fromPacked(cached.corpus.signals, cached.packed) } };
  } catch (error) {
    return { cached: null, problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The cached corpus for `key` with its index as the file packs it (a warming store appends it to its own index). */
export function readPackedCorpusCache(dir: string, key: string): PackedCorpusRead {
  let bytes: Buffer;
  // Read and checksummed on a worker thread since the process began, when the entry started it.
  const early = takeFinishedEarlyRead(corpusCacheFile(dir, key));
  try {
    bytes = early?.bytes ?? readFileSync(corpusCacheFile(dir, key));
  } catch {
    return { cached: null };
  }
  return finishSteps(packedCorpusSteps(key, bytes, early));
}

type PackedCorpusRead = { cached: { corpus: Corpus; packed: PackedIndex } | null; problem?: string };

/**
 * readPackedCorpusCache for a warming service: it waits for the early read (rather than reading
 * the file again on the main thread) and unpacks in steps, awaiting `pause` between them.
 */
export async function readPackedCorpusCacheStepped(dir: string, key: string, pause: () => Promise<void>): Promise<PackedCorpusRead> {
  let bytes: Buffer;
  const early = await takeEarlyRead(corpusCacheFile(dir, key));
  try {
    bytes = early?.bytes ?? (await readFile(corpusCacheFile(dir, key)));
  } catch {
    return { cached: null };
  }
  const steps = packedCorpusSteps(key, bytes, early);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

function* packedCorpusSteps(key: string, bytes: Buffer, early: { checksum: number } | undefined): Generator<void, PackedCorpusRead> {
  try {
    const { meta, records, index } = yield* unpackSnapshotSteps(bytes, early);
    const { key: fileKey, sources, truth } = (meta ?? {}) as Partial<CacheMeta>;
    if (fileKey !== key) throw new Error('it belongs to other inputs');
    if (!Array.isArray(sources) || typeof truth !== 'object' || truth === null || Array.isArray(truth)) throw new Error('it is incomplete');
    const signals = records as CorpusSignal[];
    for (const signal of signals) if (typeof signal?.id !== 'string' || typeof signal.published_at !== 'string') throw new Error('it holds a signal without an id or date');
    return { cached: { corpus: { sources, signals, truth }, packed: index } };
  } catch (error) {
    return { cached: null, problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The cache file's bytes. Taken before anything changes the corpus (the live feed adds signals
 * and moves source health), so the file holds exactly what the generator produced.
 */
export function corpusCacheBytes(key: string, cached: CachedCorpus): Buffer {
  const { corpus } = cached;
  const { packed } = cached.index.packedSnapshotOf(corpus.signals.map((signal) => signal.id));
  if (packed.lengths.length !== corpus.signals.length) throw new Error('the index does not hold every signal of the corpus');
  const meta: CacheMeta = { key, sources: corpus.sources, truth: corpus.truth };
  return packSnapshot(meta, corpus.signals, packed);
}

/** Writes the cache atomically and removes the files of other keys (an older day or build) and of the JSON layout. */
export async function writeCorpusCache(dir: string, key: string, bytes: Buffer): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(corpusCacheFile(dir, key), bytes, { mode: 0o600 });
  const stale = (await readdir(dir)).filter((name) => CACHE_FILE.test(name) && name !== `${PREFIX}${key}${SUFFIX}`);
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
}
