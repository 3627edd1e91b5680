/**
 * The packed files a start reads (the sample's corpus cache, the stored signals' snapshot: 110 MB
 * at 100,000 stored signals), read and checksummed on a worker thread from the first moment of
 * the process, while the main thread loads the service's modules and opens PGlite. Reading them
 * and their CRC-32 cost 0.5 s of the main thread on a quiet machine, several under load
 * (bench/notes.md, "restart_ms round 5"). The readers take the bytes with the checksum already
 * computed; the file's own checksum is still compared with it, so a damaged file is refused as
 * before. A read not finished, failed, or of a file changed since (size or time) is simply not
 * used: the reader reads the file itself, as it did before.
 */
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { CHECKSUM_FROM, CHECKSUM_SEED } from './packed-snapshot';

/** A file's bytes and its packed-snapshot checksum, computed off the main thread. */
export interface EarlyRead {
  bytes: Buffer;
  /** What packed-snapshot's checksum gives for these bytes. */
  checksum: number;
}

interface Finished extends EarlyRead {
  size: number;
  mtimeMs: number;
}

interface WorkerMessage {
  path: string;
  buffer?: ArrayBuffer;
  checksum?: number;
  size?: number;
  mtimeMs?: number;
}

/** Plain JavaScript run as the worker (no file of its own to bundle or find beside the build). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, fstatSync, readSync, closeSync } = require('node:fs');
const { crc32 } = require('node:zlib');
for (const path of workerData.paths) {
  let fd;
  try {
    fd = openSync(path, 'r');
    const { size, mtimeMs } = fstatSync(fd);
    const buffer = new ArrayBuffer(size);
    const bytes = new Uint8Array(buffer);
    for (let at = 0; at < size; ) {
      const read = readSync(fd, bytes, at, size - at, at);
      if (read === 0) throw new Error('short read');
      at += read;
    }
    const [seedFrom, seedTo] = workerData.seed;
    const checksum = size >= workerData.from ? crc32(bytes.subarray(workerData.from), crc32(bytes.subarray(seedFrom, seedTo))) : -1;
    parentPort.postMessage({ path, buffer, checksum, size, mtimeMs }, [buffer]);
  } catch {
    parentPort.postMessage({ path });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
`;

const pending = new Map<string, Promise<Finished | null>>();
const finished = new Map<string, Finished | null>();

/**
 * Starts reading `paths`, in order, on one worker thread (the process entry calls it once);
 * a path missing or unreadable is noted as not read. Never throws.
 */
export function startEarlyReads(paths: readonly string[]): void {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { paths, seed: CHECKSUM_SEED, from: CHECKSUM_FROM } });
  } catch {
    return;
  }
  // Never keeps the process alive (a service that stops early exits as before).
  worker.unref();
  const resolvers = new Map<string, (read: Finished | null) => void>();
  for (const path of paths) {
    pending.set(
      path,
      new Promise<Finished | null>((resolve) => resolvers.set(path, resolve)).then((read) => {
        finished.set(path, read);
        return read;
      }),
    );
  }
  const settle = (path: string, read: Finished | null): void => {
    resolvers.get(path)?.(read);
    resolvers.delete(path);
  };
  worker.on('message', (message: WorkerMessage) => {
    const { path, buffer, checksum, size, mtimeMs } = message;
    settle(path, buffer && checksum !== undefined && size !== undefined && mtimeMs !== undefined ? { bytes: Buffer.from(buffer), checksum, size, mtimeMs } : null);
  });
  // A worker that fails or ends leaves every read it did not finish to its reader.
  const giveUp = (): void => {
    for (const path of [...resolvers.keys()]) settle(path, null);
  };
  worker.on('error', giveUp);
  worker.on('exit', giveUp);
}

/** The bytes, when they are still the file's (same size and modification time); taken once. */
function current(path: string, read: Finished | null): EarlyRead | undefined {
  pending.delete(path);
  finished.delete(path);
  if (!read) return undefined;
  try {
    const { size, mtimeMs } = statSync(path);
    if (size !== read.size || mtimeMs !== read.mtimeMs) return undefined;
  } catch {
    return undefined;
  }
  return { bytes: read.bytes, checksum: read.checksum };
}

/** The early read of `path`, waited for when under way; undefined when none was started or it is unusable. */
export async function takeEarlyRead(path: string): Promise<EarlyRead | undefined> {
  const read = pending.get(path);
  if (!read) return undefined;
  return current(path, await read);
}

/** The early read of `path` when it has already finished (a synchronous reader cannot wait); else undefined. */
export function takeFinishedEarlyRead(path: string): EarlyRead | undefined {
  if (!finished.has(path)) {
    // Not finished: the reader reads the file itself, and this one is dropped.
    pending.delete(path);
    return undefined;
  }
  return current(path, finished.get(path)!);
}
