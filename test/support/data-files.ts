/**
 * Every file under a folder, read as text, for tests that check what an app wrote (a secret
 * must be in none of them). The app may still be writing while the test reads: a save's
 * temporary file (write-file-atomic) or a database's working file can vanish between the
 * listing and the read. Then the folder is listed and read again, so each pass reads every
 * file that exists, rather than failing on ENOENT or skipping what was there.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

export async function everyFileText(folder: string, keep: (path: string) => boolean = () => true): Promise<Array<{ path: string; text: string }>> {
  for (let pass = 1; ; pass += 1) {
    try {
      const out: Array<{ path: string; text: string }> = [];
      for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
        if (!entry.isFile()) continue;
        const path = join(entry.parentPath, entry.name);
        if (keep(path)) out.push({ path, text: (await readFile(path)).toString('latin1') });
      }
      return out;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || pass >= 20) throw error;
    }
  }
}

/** Every file under `dir` with its size and mtime: equal snapshots mean nothing was written. */
export async function fileSnapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path).catch(() => null);
    if (info?.isFile()) out.push(`${path} ${info.size} ${info.mtimeMs}`);
  }
  return out.sort();
}
