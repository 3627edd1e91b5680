/**
 * What the service's process entry (main.ts) starts before the service's modules load, once the
 * compile cache is on: the embedded database opening on its own thread (store/pglite-thread.ts)
 * and the packed files of the data directory read on a worker (retrieval/early-reads.ts). The
 * CLI (`cli.ts`), loaded next, takes that database when it opens the same data directory.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultServiceDataDir, namesNoFolder } from './data-dir';
import { startEarlyReads } from './retrieval/early-reads';
import { DATABASE_FOLDER, openEmbeddedDatabaseEarly } from './store/embedded';

/**
 * The value of `--name value` or `--name=value` among the arguments (the CLI parses them properly
 * later); the last one given, as the CLI's parseArgs takes it, so both open the same directory.
 */
function argument(name: string): string | undefined {
  const args = process.argv.slice(2);
  for (let at = args.length - 1; at >= 0; at -= 1) {
    if (args[at] === `--${name}`) return args[at + 1];
    if (args[at]!.startsWith(`--${name}=`)) return args[at]!.slice(name.length + 3);
  }
  return undefined;
}

/**
 * The packed files the start will read from the data directory (the sample's corpus cache, and
 * the stored signals' snapshot of an embedded database), read and checksummed on a worker thread
 * meanwhile (retrieval/early-reads.ts). The names are the readers' (corpus/corpus-cache.ts,
 * stored-signals.ts); a file the start does not take is read for nothing, no more.
 */
function readPackedFilesEarly(dir: string, embedded: boolean): void {
  try {
    const names = readdirSync(dir).filter((name) => /^corpus-cache-[0-9a-f]{32}\.bin$/.test(name) || (embedded && name === 'signal-index-snapshot.bin'));
    // The corpus cache first: it is read first, and is the smaller.
    names.sort((a, b) => Number(b.startsWith('corpus-cache-')) - Number(a.startsWith('corpus-cache-')));
    if (names.length > 0) startEarlyReads(names.map((name) => join(dir, name)));
  } catch {
    // No data directory yet (a first start): nothing to read early.
  }
}

const serving = !process.argv.slice(2).includes('token');
// Only the embedded database uses PGlite (not a team server's --database, nor the token command).
const embedded = argument('database') === undefined;
// The CLI opens the embedded database in the same directory (its --data-dir, else the default).
// Only a database already made: a first start creates it after the CLI has checked its arguments,
// so a start it refuses (and exits) never leaves a half-made database folder behind.
// A --data-dir that names no folder ("undefined") is the CLI's to refuse: nothing is read early.
const named = argument('data-dir');
const dataDir = named !== undefined && namesNoFolder(named) ? null : (named ?? defaultServiceDataDir());
if (serving && embedded && dataDir && existsSync(join(dataDir, DATABASE_FOLDER, 'PG_VERSION'))) openEmbeddedDatabaseEarly(dataDir);
if (serving && dataDir) readPackedFilesEarly(dataDir, embedded);
