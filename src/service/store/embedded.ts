/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) keeping its files in
 * `<data dir>/database`, in this process, no server. One process at a time may open a folder
 * (`database.lock` holds its pid). Without a data directory (tests, throw-away services) every
 * service in the process shares one in-memory PGlite, each in a schema of its own.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { resolve } from 'node:path';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import writeFileAtomic from 'write-file-atomic';
import { DatabaseStartError, type Database, type Queryable } from './database';
import { preparePgliteArtifacts } from './pglite-artifacts';
import { FROM_TEMPLATE, openPgliteThread, type PgliteThread } from './pglite-thread';

export const DATABASE_FOLDER = 'database';
export const BACKUP_FOLDER = 'database-backups';
const BACKUPS_KEPT = 3;
/** The installed @electric-sql/pglite's version (package.json pins it exactly): names the template. */
const PGLITE_VERSION = '0.5.16';

/**
 * PGlite's start parameters with a smaller buffer cache. Its 128 MB default is zeroed at every
 * open, which was most of the service's cold start (3.5 s of PGlite's 4 s, profiled; bench/notes.md);
 * the desktop's database is small and the operating system caches its files behind these 16 MB.
 */
const EXTRA_START_PARAMS = ['-c', 'shared_buffers=16MB'];

type Rows<T> = Promise<T[]>;
/** Parameterless SQL may be a script of several statements (migrations): PGlite runs those with exec. */
const run = async <T>(target: PGlite | Transaction, sql: string, params?: unknown[]): Rows<T> => {
  if (params && params.length > 0) return (await target.query<T>(sql, params)).rows;
  return ((await target.exec(sql)).at(-1)?.rows ?? []) as T[];
};

/** Opens started by the process entry before the service's modules loaded, by data directory. */
const early = new Map<string, Promise<EmbeddedDatabase>>();

/**
 * Starts opening the database in `dataDir` now (the process entry calls it first thing, early-start.ts,
 * so PGlite's open on its thread overlaps the loading of the service's modules); the service's
 * own `openEmbeddedDatabase` of the same directory then takes it, or its error. Never throws.
 */
export function openEmbeddedDatabaseEarly(dataDir: string): void {
  const opening = openEmbeddedDatabaseNow(dataDir);
  opening.catch(() => undefined); // Reported when taken; a process that never takes it just ends.
  early.set(resolve(dataDir), opening);
}

export interface EmbeddedOpenOptions {
  /**
   * A new database starts as a copy of this folder when it holds a cluster: one already migrated
   * to this version's schema (open.ts names it by the migrations; migratedTemplateFolder).
   */
  migratedTemplate?: string | null;
}

/** How the open found its folder: there already, copied from the migrated template, or created from PGlite's pristine cluster (or initdb). */
export type FolderMade = 'existing' | 'copied' | 'created';

/** Opens (or creates) the database in `dataDir`; a clear DatabaseStartError when it cannot. */
export async function openEmbeddedDatabase(dataDir: string, options: EmbeddedOpenOptions = {}): Promise<EmbeddedDatabase> {
  const started = early.get(resolve(dataDir));
  if (started) {
    early.delete(resolve(dataDir));
    return started;
  }
  return openEmbeddedDatabaseNow(dataDir, options);
}

async function openEmbeddedDatabaseNow(dataDir: string, options: EmbeddedOpenOptions = {}): Promise<EmbeddedDatabase> {
  const folder = join(dataDir, DATABASE_FOLDER);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const releaseLock = await takeLock(join(dataDir, 'database.lock'), folder);
  try {
    const { thread, made } = await openFolder(folder, dataDir, options.migratedTemplate ?? null);
    return new EmbeddedDatabase(thread, folder, dataDir, releaseLock, made);
  } catch (error) {
    await releaseLock();
    throw error;
  }
}

/**
 * A new database starts from a pristine cluster kept in the user's cache: creating one (initdb,
 * in WebAssembly) takes several seconds, loading a copy about one. Per user (0700) so nobody
 * else can plant one; named by PGlite's version.
 */
const USER_CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'clarity-desktop');
const TEMPLATE = join(USER_CACHE, `pglite-cluster-${PGLITE_VERSION}.tar.gz`);
const MIGRATED_TEMPLATE_PREFIX = `pglite-cluster-${PGLITE_VERSION}-schema-`;

/**
 * The migrated template of a schema (`schemaKey`: open.ts's hash of the migrations), in the same
 * per-user cache: a new database copied from it skips PGlite's unpacking of the pristine cluster
 * (file by file, in WebAssembly) and every migration (decision 0040, round 8).
 */
export function migratedTemplateFolder(schemaKey: string): string {
  return join(USER_CACHE, `${MIGRATED_TEMPLATE_PREFIX}${schemaKey}`);
}

/** PostgreSQL's lock file of a running cluster: not part of a template. */
const NOT_IN_TEMPLATE = new Set(['postmaster.pid']);

const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (found) => found.isFile(),
    () => false,
  );

/**
 * A new cluster in memory (a folder's is made on its thread, the same way: pglite-thread.ts).
 * PGlite's module is loaded here only, so a service with a data directory never loads it on the
 * main thread.
 */
async function createInMemory(): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const startParams = [...PGlite.defaultStartParams, ...EXTRA_START_PARAMS];
  const template = await readFile(TEMPLATE).catch(() => null);
  const artifacts = await preparePgliteArtifacts();
  if (template) {
    try {
      const loaded = await PGlite.create({ ...artifacts, loadDataDir: new Blob([template]), startParams });
      await loaded.query('SELECT 1');
      return loaded;
    } catch {
      // A damaged or foreign template: drop it, and create afresh.
      await rm(TEMPLATE, { force: true });
    }
  }
  const pglite = await PGlite.create({ ...artifacts, startParams });
  try {
    const dump = await pglite.dumpDataDir('gzip');
    await mkdir(dirname(TEMPLATE), { recursive: true, mode: 0o700 });
    await writeFileAtomic(TEMPLATE, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
  } catch {
    // Only a speed-up for the next new database.
  }
  return pglite;
}

async function openFolder(folder: string, dataDir: string, migratedTemplate: string | null = null): Promise<{ thread: PgliteThread; made: FolderMade }> {
  const existed = await isFile(join(folder, 'PG_VERSION'));
  try {
    // Opened on its own thread; a new folder from a template (or initdb), the catalog checked there.
    const thread = await openPgliteThread({ folder, existed, template: TEMPLATE, migratedTemplate: existed ? null : migratedTemplate, extraStartParams: EXTRA_START_PARAMS });
    return { thread, made: existed ? 'existing' : thread.copied ? 'copied' : 'created' };
  } catch (error) {
    if (migratedTemplate && error instanceof Error && FROM_TEMPLATE in error) {
      // A damaged migrated template: dropped, and this database made as without one.
      await rm(migratedTemplate, { recursive: true, force: true }).catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
      return openFolder(folder, dataDir);
    }
    const backup = await newestBackup(dataDir);
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new DatabaseStartError(
      `The embedded database in ${folder} cannot be read${existed ? '' : ' or created'} (${reason}); nothing was changed. ` +
        (backup
          ? `The newest backup is ${backup}: stop the service, move ${folder} aside and copy the backup in its place.`
          : 'There is no backup of it: move the folder aside to start with an empty database, or restore it from your own backup.'),
    );
  }
}

/** The newest backup folder, if any. */
export async function newestBackup(dataDir: string): Promise<string | null> {
  const names = (await readdir(join(dataDir, BACKUP_FOLDER)).catch(() => [] as string[])).sort();
  return names.length > 0 ? join(dataDir, BACKUP_FOLDER, names.at(-1)!) : null;
}

/** Folders this process has open (the lock file cannot tell two opens by one process apart). */
const openHere = new Set<string>();

/** One PGlite per folder: two instances writing one folder would corrupt it. */
async function takeLock(file: string, folder: string): Promise<() => Promise<void>> {
  if (openHere.has(folder)) throw new DatabaseStartError(`The embedded database in ${folder} is already open in this process; close that service first.`);
  const release = await takeLockFile(file, folder);
  openHere.add(folder);
  return async () => {
    openHere.delete(folder);
    await release();
  };
}

/**
 * How long a start waits for another live process to let go of the database: the app's previous
 * service may still be closing it (an app quit and started again at once) and is gone within
 * seconds; a service really running on this folder is not, and is named in the error.
 */
const LOCK_WAIT_MS = 10_000;

async function takeLockFile(file: string, folder: string, waitMs = LOCK_WAIT_MS): Promise<() => Promise<void>> {
  const deadline = Date.now() + waitMs;
  for (let takeovers = 0; takeovers < 2; ) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => unlink(file).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(await readFile(file, 'utf8').catch(() => ''));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        if (Date.now() >= deadline) {
          throw new DatabaseStartError(`The embedded database in ${folder} is in use by another service process (pid ${pid}); stop it first or start this one with another --data-dir.`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      // A lock left by a process that died (kill -9, power loss): take it over.
      await unlink(file).catch(() => undefined);
      takeovers += 1;
    }
  }
  throw new DatabaseStartError(`Could not lock the embedded database in ${folder}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Serialises work on one PGlite (it has one connection) and keeps each caller's writes apart. */
class Exclusive {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work, work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export class EmbeddedDatabase implements Database {
  readonly kind = 'embedded' as const;
  private readonly exclusive = new Exclusive();

  constructor(
    private pglite: PgliteThread,
    readonly location: string,
    private readonly dataDir: string,
    private readonly releaseLock: () => Promise<void>,
    /** How this open found its folder (a new one 'created' is kept as the migrated template once migrated: open.ts). */
    readonly made: FolderMade = 'existing',
  ) {}

  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Rows<T> {
    return this.exclusive.run(() => this.pglite.run<T>(sql, params));
  }

  /** As PGlite's own transaction does it: its one connection, nobody else's statements between (Exclusive). */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.exclusive.run(async () => {
      await this.pglite.run('BEGIN');
      // A query through the handle after its COMMIT or ROLLBACK is refused (as PGlite's own
      // transaction does): it would run outside the queue, maybe inside another caller's transaction.
      let open = true;
      const query = <T>(sql: string, params?: unknown[]): Rows<T> => (open ? this.pglite.run<T>(sql, params) : Promise.reject(new Error('The transaction has ended; its queries are refused.')));
      try {
        const result = await work({ query });
        open = false;
        await this.pglite.run('COMMIT');
        return result;
      } catch (error) {
        open = false;
        await this.pglite.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * Copies the database folder to `<data dir>/database-backups/<label>-<time>` with the database
   * closed (a consistent copy), then reopens it; keeps the newest three.
   */
  async backup(label: string): Promise<string> {
    return this.exclusive.run(async () => {
      await this.pglite.close();
      const target = join(this.dataDir, BACKUP_FOLDER, `${new Date().toISOString().replace(/[:.]/g, '-')}-${label}`);
      try {
        await mkdir(join(this.dataDir, BACKUP_FOLDER), { recursive: true, mode: 0o700 });
        await cp(this.location, target, { recursive: true });
      } finally {
        this.pglite = (await openFolder(this.location, this.dataDir)).thread;
      }
      const names = (await readdir(join(this.dataDir, BACKUP_FOLDER))).sort();
      for (const old of names.slice(0, Math.max(0, names.length - BACKUPS_KEPT))) await rm(join(this.dataDir, BACKUP_FOLDER, old), { recursive: true, force: true });
      return target;
    });
  }

  /**
   * Keeps this database, new and just migrated, as the template the next new database is copied
   * from (`migratedTemplateFolder`): PostgreSQL writes out all it holds (CHECKPOINT), nothing runs
   * on it meanwhile, and its folder is copied beside `target` and renamed into place (whole or
   * not at all; another process that made it first wins). Templates of other schemas, older
   * versions', are removed. Only a speed-up: a failure leaves the next new database made as before.
   */
  async keepAsTemplate(target: string): Promise<void> {
    await this.exclusive.run(async () => {
      const partial = `${target}.partial-${process.pid}`;
      try {
        await this.pglite.run('CHECKPOINT');
        await mkdir(dirname(target), { recursive: true, mode: 0o700 });
        await cp(this.location, partial, { recursive: true, filter: (source) => !NOT_IN_TEMPLATE.has(basename(source)) });
        await rename(partial, target);
        for (const name of await readdir(dirname(target))) {
          if (name.startsWith(MIGRATED_TEMPLATE_PREFIX) && join(dirname(target), name) !== target) await rm(join(dirname(target), name), { recursive: true, force: true });
        }
      } catch {
        // Not kept (or already there): the next new database is made as this one was.
      } finally {
        await rm(partial, { recursive: true, force: true }).catch(() => undefined);
      }
    });
  }

  private closing: Promise<void> | null = null;

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.exclusive.run(() => this.pglite.close());
      await this.releaseLock();
    })();
    return this.closing;
  }
}

let sharedMemory: Promise<{ pglite: PGlite; exclusive: Exclusive; current: { schema: string | null }; open: Set<string> }> | null = null;

/**
 * A throw-away database for a service without a data directory: a schema of its own in the
 * process's one in-memory PGlite (starting PGlite costs seconds; a schema, milliseconds).
 */
export async function openMemoryDatabase(): Promise<Database> {
  sharedMemory ??= createInMemory().then((pglite) => ({ pglite, exclusive: new Exclusive(), current: { schema: null }, open: new Set<string>() }));
  const shared = await sharedMemory;
  const schema = `service_${randomBytes(6).toString('hex')}`;
  const use = async (): Promise<void> => {
    if (shared.current.schema === schema) return;
    await shared.pglite.query(`SET search_path TO ${schema}`);
    shared.current.schema = schema;
  };
  await shared.exclusive.run(async () => {
    await shared.pglite.query(`CREATE SCHEMA ${schema}`);
    await use();
  });
  shared.open.add(schema);
  let closed = false;
  return {
    kind: 'embedded',
    location: 'memory',
    query: <T>(sql: string, params?: unknown[]) =>
      shared.exclusive.run(async () => {
        await use();
        return run<T>(shared.pglite, sql, params);
      }),
    transaction: (work) =>
      shared.exclusive.run(async () => {
        await use();
        return shared.pglite.transaction((tx) => work({ query: (sql, params) => run(tx, sql, params) }));
      }),
    async close() {
      if (closed) return;
      closed = true;
      await shared.exclusive.run(async () => {
        await shared.pglite.query(`DROP SCHEMA ${schema} CASCADE`);
        shared.current.schema = null;
      });
      shared.open.delete(schema);
    },
  };
}

/**
 * Ends the process's shared in-memory PGlite, which otherwise keeps the event loop alive (a
 * benchmark's or a script's last step, once every service in it is closed). Refused while a
 * service still holds a schema in it; a later openMemoryDatabase starts a new one.
 */
export async function closeMemoryDatabase(): Promise<void> {
  if (!sharedMemory) return;
  const shared = await sharedMemory;
  if (shared.open.size > 0) throw new Error(`closeMemoryDatabase: ${shared.open.size} service database(s) still open in it; close those services first`);
  sharedMemory = null;
  await shared.exclusive.run(() => shared.pglite.close());
}
