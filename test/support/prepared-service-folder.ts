/**
 * A service data folder as a first start leaves it, made once for the integration suite
 * (service-folder-setup.ts, a vitest globalSetup) and copied into a new data folder by the tests
 * that do not check a first start. A service process started in a new folder generated and
 * indexed its sample corpus on its main thread and unpacked and migrated a new embedded database
 * on PGlite's thread: 6.5–6.8 CPU s against 2.8 restarted (issue 49, measured), and the suite
 * starts about sixty such processes. The copy holds the corpus cache of FAST_ARGS' sample (3,000
 * signals; a start with other sample options simply builds its own, as the cache's key says) and
 * the migrated, empty database with its one row of state, the development identity provider's
 * signing key, taken out: each service makes or imports its own key as at a first start, so no
 * service accepts another's tokens and `DevIdentityProvider.open(dir)` before a start still
 * names the key the service takes up. Nothing else of the first start is copied.
 *
 * Tests that check a first start (corpus-cache, service-database, service-entry, the warm start,
 * migrations) keep a truly new folder: they never call `seedServiceFolder`.
 */
import { spawn } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { inject } from 'vitest';
import { serviceEntry } from './built-code';
import { FAST_ARGS } from './service-process';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The prepared data folder (a corpus cache file and `database`), or '' when the setup could not make one. */
    preparedServiceFolder: string;
  }
}

/** The embedded database's folder in a data directory (src/service/store/embedded.ts, DATABASE_FOLDER). */
const DATABASE_FOLDER = 'database';
const CACHE_FILE = /^corpus-cache-[0-9a-f]{32}\.bin$/;
/** Tables a first start fills: the applied migrations (kept) and the identity provider's signing key (taken out). */
const FIRST_START_TABLES = new Set(['schema_migrations', 'identity_keys']);

/**
 * Starts the service the tests run (the build when fresh: built-code.ts; the cache's key covers
 * its code) with FAST_ARGS in a new folder, stops it once its index is ready (the cache is written
 * by then; its close waits for a write under way), makes its database a first start's, and
 * leaves only the cache file and the database in the folder. Returns the folder, or '' with the
 * reason printed when the database holds rows a first start does not leave (then tests start
 * from new folders, as before).
 */
export async function prepareServiceFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-prepared-service-'));
  const child = spawn(process.execPath, [...serviceEntry(), ...FAST_ARGS, '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"index_ready"')) resolve();
    });
    void exited.then((code) => reject(new Error(`The service preparing the suite's data folder exited with ${code}:\n${stderr}`)));
  });
  child.kill('SIGTERM');
  await exited;
  const names = await readdir(dir);
  if (!names.some((name) => CACHE_FILE.test(name))) throw new Error(`The service wrote no corpus cache in ${dir}:\n${stderr}`);
  if (!(await emptyFirstStartDatabase(join(dir, DATABASE_FOLDER)))) {
    await rm(dir, { recursive: true, force: true });
    return '';
  }
  // The key file, the lock and whatever else the start left: a new folder has none of them.
  await Promise.all(names.filter((name) => name !== DATABASE_FOLDER && !CACHE_FILE.test(name)).map((name) => rm(join(dir, name), { recursive: true, force: true })));
  return dir;
}

/** Takes the signing key out of a first start's database; false (with the reason printed) when it holds other rows. */
async function emptyFirstStartDatabase(folder: string): Promise<boolean> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir: folder });
  try {
    const tables = (await db.query<{ schema: string; name: string }>('SELECT schemaname AS schema, relname AS name FROM pg_stat_user_tables')).rows;
    const filled: string[] = [];
    for (const { schema, name } of tables) {
      if (FIRST_START_TABLES.has(name)) continue;
      const qualified = `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
      if ((await db.query(`SELECT 1 FROM ${qualified} LIMIT 1`)).rows.length > 0) filled.push(`${schema}.${name}`);
    }
    if (filled.length > 0) {
      console.warn(`integration: no prepared data folder (a first start's database holds rows in ${filled.join(', ')}); each test's service makes its own`);
      return false;
    }
    await db.query('DELETE FROM identity_keys');
  } finally {
    await db.close();
  }
  return true;
}

/** The suite's prepared folder, or undefined outside a vitest run with the setup (a benchmark script) or when it made none. */
function preparedFolder(): string | undefined {
  try {
    return inject('preparedServiceFolder') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Gives a new data folder what the service's first start would have left in it: the corpus cache
 * of FAST_ARGS' sample (`corpus: false` for a service without it: `--no-sample`, other
 * `--signals`) and the migrated empty embedded database (`database: false` for a service on
 * PostgreSQL, which never opens it). Without a prepared folder it does nothing and the service
 * starts as in a new folder. Returns `dataDir`.
 */
export async function seedServiceFolder(dataDir: string, what: { corpus?: boolean; database?: boolean } = {}): Promise<string> {
  const prepared = preparedFolder();
  if (!prepared) return dataDir;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const copies: Array<Promise<void>> = [];
  if (what.corpus !== false) {
    for (const name of (await readdir(prepared)).filter((entry) => CACHE_FILE.test(entry))) copies.push(copyFile(join(prepared, name), join(dataDir, name)));
  }
  if (what.database !== false) copies.push(cp(join(prepared, DATABASE_FOLDER), join(dataDir, DATABASE_FOLDER), { recursive: true }));
  await Promise.all(copies);
  return dataDir;
}
