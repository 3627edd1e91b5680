/**
 * The built service's process entry (`out/main/service.js`, what the app forks): before the
 * service's modules load, Node's on-disk compile cache is turned on (a later start skips compiling
 * the ~500 files of fastify, zod, PGlite and the rest: they are read as cached code) and PGlite's
 * WebAssembly starts compiling in the background. Then the CLI (`cli.ts`) runs as before.
 */
import { mkdirSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { preparePgliteArtifacts } from './store/pglite-artifacts';

/**
 * Per user (0700), beside the PGlite template in the user's cache, so nobody else can plant
 * code; Node keys each entry by its version and the source's hash, so builds never mix.
 * Only a speed-up: a directory that cannot be made or written leaves the start as it was.
 */
function enableCompileCache(): void {
  try {
    const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'clarity-desktop', 'node-compile-cache');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    module.enableCompileCache?.(dir);
  } catch {
    // Not fatal: the service starts without the cache.
  }
}

enableCompileCache();
// Only the embedded database uses PGlite (not a team server's --database, nor the token command).
if (!process.argv.some((arg) => arg === '--database' || arg.startsWith('--database=')) && !process.argv.slice(2).includes('token')) void preparePgliteArtifacts();
await import('./cli');
// Written now rather than at exit: the app's utility process may be ended without a normal exit.
module.flushCompileCache?.();
