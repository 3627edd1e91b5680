/** Temporary directories a test file makes under the OS temp folder, all removed by `removeAll` (its afterAll). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDirs(prefix: string): { make(): Promise<string>; removeAll(): Promise<void> } {
  const dirs: string[] = [];
  return {
    async make() {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async removeAll() {
      await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}
