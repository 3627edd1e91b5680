/**
 * The packed files read and checksummed on a worker thread while the service starts
 * (src/service/retrieval/early-reads.ts): the reader gets the file's very bytes with their
 * checksum, a damaged file is still refused, and a read of a file changed since is not used.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateCorpus } from '../../src/service/corpus/generator';
import { startEarlyReads, takeEarlyRead, takeFinishedEarlyRead } from '../../src/service/retrieval/early-reads';
import { packSnapshot, unpackSnapshot } from '../../src/service/retrieval/packed-snapshot';
import { SignalSearchIndex } from '../../src/service/retrieval/search-index';
import { tempDirs } from '../support/temp-dirs';

const temp = tempDirs('early-reads-');
afterEach(() => temp.removeAll());

async function packedFile(name: string): Promise<{ path: string; file: Buffer; dir: string }> {
  const dir = await temp.make();
  const signals = generateCorpus({ signalCount: 200, seed: 3 }).signals;
  const { packed } = new SignalSearchIndex(signals).packedSnapshotOf(signals.map((signal) => signal.id));
  const file = packSnapshot({ format: 1 }, signals, packed);
  const path = join(dir, name);
  await writeFile(path, file);
  return { path, file, dir };
}

describe('early reads', () => {
  it('hands over the file with its checksum, once; a file not read early is left to its reader', async () => {
    const { path, file, dir } = await packedFile('a.bin');
    const missing = join(dir, 'missing.bin');
    startEarlyReads([path, missing]);
    const read = await takeEarlyRead(path);
    expect(read?.bytes.equals(file)).toBe(true);
    expect(unpackSnapshot(read!.bytes, read).records).toHaveLength(200);
    // Taken once: a second start in the same process reads the file itself.
    expect(await takeEarlyRead(path)).toBeUndefined();
    expect(await takeEarlyRead(missing)).toBeUndefined();
    expect(takeFinishedEarlyRead(join(dir, 'never-started.bin'))).toBeUndefined();
  });

  it('still refuses a damaged file: the checksum is of the bytes read', async () => {
    const { path, file } = await packedFile('b.bin');
    file[file.length - 9] = file[file.length - 9]! ^ 0xff;
    await writeFile(path, file);
    startEarlyReads([path]);
    const read = await takeEarlyRead(path);
    expect(read).toBeDefined();
    expect(() => unpackSnapshot(read!.bytes, read)).toThrow(/checksum/);
  });

  it('does not hand over bytes of a file changed since it was read', async () => {
    const { path, file, dir } = await packedFile('c.bin');
    const after = join(dir, 'after.bin');
    await writeFile(after, file);
    // One worker reads them in order: once the second is in, the first has finished.
    startEarlyReads([path, after]);
    expect(await takeEarlyRead(after)).toBeDefined();
    await writeFile(path, Buffer.concat([file, Buffer.alloc(8)]));
    expect(takeFinishedEarlyRead(path)).toBeUndefined();
  });
});
