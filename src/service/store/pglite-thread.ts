/**
 * An embedded database folder's PGlite, run on a worker thread of its own. Opening PGlite is
 * about a second of WebAssembly (PostgreSQL's start, its catalog read, the lazy compile of the
 * functions it runs) that on the main thread came after the service's ~500 modules had loaded;
 * on a worker it runs beside them from the process's first moment (the entry, main.ts, opens
 * it early: bench/notes.md, "the empty start, round 6"). The main thread no longer evaluates
 * PGlite's JavaScript either. Queries cross as messages: SQL and parameters in, rows out (the
 * big reads already come back as one JSON text each: signal-repository.ts).
 */
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';

/**
 * V8 tiers PGlite's hot WebAssembly functions up to its optimising compiler on background
 * threads once each has run a little (its "tiering budget", 13,000,000 by default in Node 24's
 * V8). At start that compile was most of the process's CPU before the first answer: 1.4-2.2 s of
 * the V8 threads against ~1 s for the main thread and ~0.7 s for the database's (perf, decision
 * 0040 round 7), on a 2-core machine taken from both. Each function's budget is set when the
 * module is instantiated, in the thread's open: while an open is under way the budget is
 * raised ~150 times, so the start's queries run on the baseline code (Liftoff) and only the
 * functions that then run long (a bulk read, many searches) tier up, seconds later, as before.
 * The default is put back once no open is under way (what a function's budget is reset to after
 * it tiered up, and what later modules get). A budget given to the process is left alone, and so
 * is V8 under Electron (the app's utility process): Node lets flags change after V8 started
 * (checked here, Node 24), but where V8 froze its flags a change is a fatal error, and Electron's
 * utility process could not be checked on this machine.
 */
const DEFAULT_TIERING_BUDGET = 13_000_000;
const OPENING_TIERING_BUDGET = 2_000_000_000;
const leaveBudgetAlone =
  process.versions.electron !== undefined ||
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) => arg.startsWith('--wasm-tiering-budget') || arg.startsWith('--wasm_tiering_budget'));
let opensUnderWay = 0;

/** Raises the tiering budget for one open; the returned function ends it (once). */
function deferTierUp(): () => void {
  if (leaveBudgetAlone) return () => undefined;
  if (opensUnderWay++ === 0) setFlagsFromString(`--wasm-tiering-budget=${OPENING_TIERING_BUDGET}`);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--opensUnderWay === 0) setFlagsFromString(`--wasm-tiering-budget=${DEFAULT_TIERING_BUDGET}`);
  };
}

/** One open folder's PGlite on its worker. One caller at a time (EmbeddedDatabase serialises). */
export interface PgliteThread {
  /** Whether this open made its new folder as a copy of the migrated template it was given. */
  readonly copied: boolean;
  /** One statement with `$1…` parameters, or (none) a script of statements: the last one's rows. */
  run<T>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
  /** The thread's exit code once it has ended: 0 when it ended by itself after close(), 1 when terminated. */
  readonly exited: Promise<number>;
}

interface Reply {
  id: number;
  rows?: unknown[];
  error?: { message: string; fields: Record<string, unknown> };
  /** The open's reply (id 0): whether the folder is a copy of the migrated template. */
  copied?: boolean;
}

/** Set on the open's error when the folder it could not open was a copy of the migrated template (embedded.ts then drops that template). */
export const FROM_TEMPLATE = 'openedCopyOfMigratedTemplate';

/**
 * Plain JavaScript run as the worker (CommonJS; no file of its own to bundle or find beside the
 * build). It opens the folder (a new one as a copy of the migrated template when it is given one
 * that exists; else from the user's pristine cluster when there is one, else by initdb, then
 * keeping that for next time), checks the catalog reads, then answers. The template is copied
 * here, natively (cpSync), beside the folder and renamed into place: whole or not at all, and off
 * the main thread (an async copy of its ~1,000 files cost ~0.4 CPU s of JavaScript there).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync, writeFileSync, renameSync, mkdirSync, rmSync, cpSync, statSync, readdirSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { PGlite } = require(workerData.pglite);
const { folder, existed, template, migratedTemplate } = workerData;
const startParams = [...PGlite.defaultStartParams, ...workerData.extraStartParams];
let pglite = null;
const errorOf = (error) => {
  const fields = {};
  if (error && typeof error === 'object') for (const [key, value] of Object.entries(error)) if (['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  return { message: error instanceof Error ? error.message : String(error), fields };
};
async function create() {
  let loaded = null;
  try { loaded = readFileSync(template); } catch {}
  if (loaded) {
    try {
      const db = await PGlite.create(folder, { loadDataDir: new Blob([loaded]), startParams });
      await db.query('SELECT 1');
      return db;
    } catch {
      // A damaged or foreign template: drop it and the half-made folder, and create afresh.
      rmSync(template, { force: true });
      rmSync(folder, { recursive: true, force: true });
    }
  }
  const db = await PGlite.create(folder, { startParams });
  try {
    const dump = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
    mkdirSync(dirname(template), { recursive: true, mode: 0o700 });
    const partial = template + '.' + process.pid + '.tmp';
    writeFileSync(partial, dump, { mode: 0o600 });
    renameSync(partial, template);
  } catch {
    // Only a speed-up for the next new database.
  }
  return db;
}
function copyMigratedTemplate() {
  try {
    if (!migratedTemplate || !statSync(join(migratedTemplate, 'PG_VERSION')).isFile()) return false;
  } catch {
    return false;
  }
  // Only into a folder that is not there or empty (anything else is not ours to replace).
  let inFolder = [];
  try { inFolder = readdirSync(folder); } catch {}
  if (inFolder.length > 0) return false;
  const partial = folder + '.partial-' + process.pid;
  try {
    rmSync(partial, { recursive: true, force: true });
    cpSync(migratedTemplate, partial, { recursive: true });
    rmSync(folder, { recursive: true, force: true });
    renameSync(partial, folder);
    return true;
  } catch {
    rmSync(partial, { recursive: true, force: true });
    return false;
  }
}
const copied = !existed && copyMigratedTemplate();
async function open() {
  const db = existed || copied ? await PGlite.create(folder, { startParams }) : await create();
  // A folder that opens but whose catalog is damaged fails here, before anything is served.
  await db.query('SELECT count(*) FROM pg_catalog.pg_class');
  return db;
}
const opening = open();
opening.then(
  (db) => { pglite = db; parentPort.postMessage({ id: 0, rows: [], copied }); },
  (error) => {
    parentPort.postMessage({ id: 0, error: errorOf(error), copied });
    parentPort.close();
  },
);
parentPort.on('message', async ({ id, kind, sql, params }) => {
  try {
    if (kind === 'close') {
      try {
        await pglite.close();
        pglite = null;
        parentPort.postMessage({ id, rows: [] });
      } catch (error) {
        parentPort.postMessage({ id, error: errorOf(error) });
      }
      // Closed or not, nothing is left to run: closing the port lets this thread end by itself
      // (terminate() on a thread that has run WebAssembly can crash the process: nodejs/node#47748).
      parentPort.close();
      return;
    }
    const rows = params && params.length > 0 ? (await pglite.query(sql, params)).rows : ((await pglite.exec(sql)).at(-1)?.rows ?? []);
    parentPort.postMessage({ id, rows });
  } catch (error) {
    parentPort.postMessage({ id, error: errorOf(error) });
  }
});
`;

/** An error from the worker, with PostgreSQL's fields (`code`, `detail`…) as PGlite gave them. */
function rebuilt(error: NonNullable<Reply['error']>): Error {
  return Object.assign(new Error(error.message), error.fields, { message: error.message });
}

/**
 * Starts opening `folder` on a new worker; resolves once PGlite has opened it and read its
 * catalog, rejects (the worker gone) with PGlite's error when it cannot.
 */
export function openPgliteThread(options: { folder: string; existed: boolean; template: string; migratedTemplate?: string | null; extraStartParams: readonly string[] }): Promise<PgliteThread> {
  // Resolved as Node resolves the package (its CommonJS build: the worker's source is a script).
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const endDeferral = deferTierUp();
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...options, migratedTemplate: options.migratedTemplate ?? null, pglite } });
  } catch (error) {
    endDeferral();
    throw error;
  }
  const waiting = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>();
  let next = 1;
  let gone: Error | null = null;
  const fail = (error: Error): void => {
    gone ??= error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  let copied = false;
  worker.on('message', (reply: Reply) => {
    if (reply.id === 0) copied = reply.copied ?? false;
    const caller = waiting.get(reply.id);
    if (!caller) return;
    waiting.delete(reply.id);
    // An idle thread does not keep the process alive (as PGlite on the main thread did not); a
    // query waited for does.
    if (waiting.size === 0) worker.unref();
    if (reply.error) caller.reject(reply.id === 0 && copied ? Object.assign(rebuilt(reply.error), { [FROM_TEMPLATE]: true }) : rebuilt(reply.error));
    else caller.resolve(reply.rows ?? []);
  });
  worker.on('error', (error) => fail(error instanceof Error ? error : new Error(String(error))));
  worker.on('exit', (code) => fail(new Error(`The embedded database's thread ended (exit code ${code}).`)));
  const ask = (message: { kind: 'run' | 'close'; sql?: string; params?: unknown[] }): Promise<unknown[]> => {
    if (gone) return Promise.reject(gone);
    const id = next++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.ref();
      try {
        worker.postMessage({ id, ...message });
      } catch (error) {
        // A parameter that cannot be copied to the thread: this query fails, the thread stays as it was.
        waiting.delete(id);
        if (waiting.size === 0) worker.unref();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  };
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const opened = new Promise<unknown[]>((resolve, reject) => waiting.set(0, { resolve, reject }));
  // Instantiated (or failed) by now: the module's budgets are set.
  opened.then(endDeferral, endDeferral);
  return opened.then(
    (): PgliteThread => ({
      copied,
      exited,
      run: async <T>(sql: string, params?: unknown[]) => (await ask({ kind: 'run', sql, params })) as T[],
      async close() {
        if (gone) return;
        try {
          await ask({ kind: 'close' });
        } finally {
          // A close PGlite refused still ends the thread (its error is the caller's).
          await endGracefully(worker, exited);
        }
      },
    }),
    async (error: unknown) => {
      // The thread closes its port after an open that failed (or it is already gone).
      await endGracefully(worker, exited);
      throw error;
    },
  );
}

/** How long a closed thread gets to end by itself before it is terminated. */
const EXIT_GRACE_MS = 5_000;

/**
 * Waits for a thread that was told to close to end on its own; terminates it only if it has
 * not after EXIT_GRACE_MS (a thread stuck in PGlite), the one case left for terminate().
 */
async function endGracefully(worker: Worker, ended: Promise<number>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), EXIT_GRACE_MS);
  });
  // The wait keeps the process up until the thread has ended (an idle thread is unref'd).
  worker.ref();
  try {
    if ((await Promise.race([ended, late])) === 'late') await worker.terminate();
  } finally {
    clearTimeout(timer);
  }
}
