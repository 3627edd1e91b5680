/**
 * The built service's process entry (`out/main/service.js`, what the app forks). It imports
 * nothing of the service's own until Node's on-disk compile cache is on, so every module after
 * it (the early start's, then the ~500 files of the CLI, fastify, zod and the rest) is read as
 * cached code at a later start instead of compiled again. Then `early-start.ts` starts opening the
 * embedded database on its own thread and reading the data directory's packed files, and the CLI
 * (`cli.ts`) runs as before, taking that database when it opens the same data directory.
 */
import { mkdirSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

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
// Dynamic imports: a static one would be loaded (and compiled) before the line above runs.
await import('./early-start');
await import('./cli');
// Written now rather than at exit: the app's utility process may be ended without a normal exit.
module.flushCompileCache?.();
