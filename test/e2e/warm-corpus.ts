/**
 * One sample corpus for the whole e2e suite. The embedded service generates and indexes its
 * 20,000-signal sample at its first start in a data folder and keeps it there as its corpus cache
 * (src/service/corpus/corpus-cache.ts), which a second start reads instead: a few seconds of CPU
 * on every fresh app (measured: startup_ms 20.8 s fresh against 8.1 s with the cache, load 9).
 * The suite's setup starts the service once (the code the apps run) and keeps its cache file; a
 * fresh app's data folder starts with a copy of it, as after the app's own first start. The cache's key
 * covers the corpus options and the service's code, so an app started with other options
 * (`--signals`, `--sources`, `--no-sample`) or after midnight UTC simply builds its own, as before.
 *
 * The same start made its embedded database (PGlite: a cluster unpacked from the template and
 * written out file by file, then every migration): about 3 s of CPU of the service's 7 at every
 * fresh app (measured, issue 49). A fresh app's folder starts with a copy of it too, with what a
 * first start leaves in it and nothing else: the schema and its migrations. Its one row of state,
 * the signing key of the development identity provider, is taken out, so each app makes its
 * own key as at a first start (no app accepts another's tokens). Should a later start leave
 * other rows behind, the setup does not copy the database and says why: the apps then create
 * theirs, as before.
 */
import { spawn } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { serviceEntry } from '../support/built-code';

/** The cache file's path, for the suite's workers (they inherit the setup's environment). */
export const WARM_CORPUS_ENV = 'CLARITY_E2E_CORPUS_CACHE';
/** The first start's database folder (state taken out), when the setup could make one. */
export const WARM_DATABASE_ENV = 'CLARITY_E2E_DATABASE';
/** The embedded database's folder in the service's data directory (src/service/store/embedded.ts, DATABASE_FOLDER). */
const DATABASE_FOLDER = 'database';
/** Tables a first start fills: the applied migrations (kept) and the identity provider's signing key (taken out). */
const FIRST_START_TABLES = new Set(['schema_migrations', 'identity_keys']);

/** Starts the service from source in a folder of its own, stops it once its index is ready (it listens before it holds its signals; the cache is written by then), and returns the folder and its cache file. */
export async function prepareWarmCorpus(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-e2e-corpus-'));
  // The app's own service (the code the browser host runs: built or source, test/support/built-code.ts; the cache's key covers it), default sample.
  const child = spawn(process.execPath, [...serviceEntry(), '--port', '0', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"index_ready"')) resolve();
    });
    void exited.then((code) => reject(new Error(`The service preparing the e2e corpus exited with ${code}:\n${stderr}`)));
  });
  // Its close waits for the cache write under way.
  child.kill('SIGTERM');
  await exited;
  const name = (await readdir(dir)).find((entry) => /^corpus-cache-[0-9a-f]{32}\.bin$/.test(entry));
  if (!name) throw new Error(`The service wrote no corpus cache in ${dir}:\n${stderr}`);
  return { dir, file: join(dir, name) };
}

/**
 * Makes the database the prepared service left in `dir` a first start's, for new apps to copy: its
 * signing key taken out. Returns its folder, or null (with the reason printed) when it holds
 * rows a first start does not leave: then no app gets a copy.
 */
export async function prepareWarmDatabase(dir: string): Promise<string | null> {
  const folder = join(dir, DATABASE_FOLDER);
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir: folder });
  try {
    const tables = (await db.query<{ name: string }>("SELECT quote_ident(schemaname) || '.' || quote_ident(relname) AS name FROM pg_stat_user_tables")).rows;
    const filled: string[] = [];
    for (const { name } of tables) {
      if (FIRST_START_TABLES.has(name.split('.').pop()!.replaceAll('"', ''))) continue;
      if ((await db.query(`SELECT 1 FROM ${name} LIMIT 1`)).rows.length > 0) filled.push(name);
    }
    if (filled.length > 0) {
      console.warn(`e2e: the first start's database is not copied into new apps (it holds rows in ${filled.join(', ')}); each app creates its own`);
      return null;
    }
    await db.query('DELETE FROM identity_keys');
  } finally {
    await db.close();
  }
  return folder;
}

/**
 * Gives a new app's embedded service (its folder `<data>/local-service`) the suite's corpus cache
 * and first-start database, when the setup made them (`database: false`: the cache only, e.g. for
 * an app run as another user, who could not write a copy made by this one).
 */
export async function seedCorpusCache(serviceDataDir: string, options: { database?: boolean } = {}): Promise<void> {
  const file = process.env[WARM_CORPUS_ENV];
  if (!file) return;
  await mkdir(serviceDataDir, { recursive: true, mode: 0o700 });
  await copyFile(file, join(serviceDataDir, basename(file)));
  const database = process.env[WARM_DATABASE_ENV];
  if (database && options.database !== false) await cp(database, join(serviceDataDir, DATABASE_FOLDER), { recursive: true });
}

export async function removeWarmCorpus(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
