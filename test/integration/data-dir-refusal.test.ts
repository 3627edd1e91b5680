/**
 * A service given a data folder that names nothing (an unset variable: `--data-dir undefined`)
 * refuses to start and makes no folder of that name where it runs; a test that passes a variable
 * it has not set yet is stopped before any service starts (the stray `undefined/` database).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failedStart, FAST_ARGS, startServiceProcess } from '../support/service-process';

let workingFolder: string;

beforeAll(async () => {
  workingFolder = await mkdtemp(join(tmpdir(), 'clarity-data-dir-'));
});

afterAll(async () => {
  await rm(workingFolder, { recursive: true, force: true });
});

describe('a data folder that names nothing', () => {
  for (const value of ['undefined', 'null', '']) {
    it(`--data-dir "${value}" is refused with exit 2, and nothing is written where the service runs`, async () => {
      const refused = await failedStart([...FAST_ARGS, '--data-dir', value], workingFolder);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--data-dir names no folder');
      expect(refused.stderr).toMatch(/an unset variable\?/);
      expect(await readdir(workingFolder)).toEqual([]);
    }, 120_000);
  }

  it('a test passing a variable it has not set yet is stopped before the service starts', async () => {
    let dataDir: string | undefined;
    await expect(startServiceProcess(['--data-dir', dataDir as unknown as string])).rejects.toThrow(/argument 1 \(after --data-dir\) is undefined: a test variable not set yet\?/);
    await expect(failedStart(['--data-dir', dataDir as unknown as string], workingFolder)).rejects.toThrow(/a test variable not set yet\?/);
  });
});
