/**
 * Which code the tests run as processes: the build (`npm run build` writes out/main: the service
 * and the browser host, bundled, as the app runs them) when it is at least as new as every source
 * file, else the source under the TypeScript loader, as before. The build starts faster and costs
 * less CPU per process (no TypeScript loader resolving and transforming ~600 modules, and the
 * service's own compile cache and early reads: src/service/main.ts), which the e2e and
 * integration suites pay at every app or service they start (issue 49 item 3). A source file
 * edited after the build makes the tests run the source, so they never test stale code;
 * CLARITY_TEST_CODE=source forces the source.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT_SERVICE_FILE = join(ROOT, 'out', 'main', 'service.js');
const BUILT_HOST_FILE = join(ROOT, 'out', 'main', 'browser-host.js');
/** What the main build is made from: the sources, and the files that decide how they are bundled. */
const BUILD_INPUTS = ['src', 'package.json', 'package-lock.json', 'electron.vite.config.ts', 'tsconfig.base.json', 'tsconfig.node.json'];

/** The newest modification time (ms) of a file or of any file under a folder. */
function newestMtime(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) newest = Math.max(newest, newestMtime(join(path, entry.name)));
  return newest;
}

let fresh: boolean | null = null;
/** True when out/main holds a build made after the last change to any of its inputs (checked once per process). */
export function buildIsFresh(): boolean {
  if (fresh !== null) return fresh;
  if (process.env.CLARITY_TEST_CODE === 'source' || !existsSync(BUILT_SERVICE_FILE) || !existsSync(BUILT_HOST_FILE)) return (fresh = false);
  const built = Math.min(statSync(BUILT_SERVICE_FILE).mtimeMs, statSync(BUILT_HOST_FILE).mtimeMs);
  fresh = BUILD_INPUTS.every((input) => newestMtime(join(ROOT, input)) <= built);
  return fresh;
}

/** Node's arguments that run the service's CLI (then its own arguments): the built entry, or the CLI's source under tsx. */
export function serviceEntry(): readonly string[] {
  return buildIsFresh() ? [BUILT_SERVICE_FILE] : ['--import', 'tsx', join(ROOT, 'src', 'service', 'cli.ts')];
}

/** Node's arguments that run the browser host (then its own arguments): the built one, or its source under tsx. */
export function browserHostEntry(): readonly string[] {
  return buildIsFresh() ? [BUILT_HOST_FILE] : ['--import', 'tsx', join(ROOT, 'src', 'main', 'browser-host', 'cli.ts')];
}

/** Whether a process's command line (/proc/<pid>/cmdline) runs the service, built or from source. */
export function runsTheService(cmdline: string): boolean {
  return cmdline.includes('src/service/cli.ts') || cmdline.includes('out/main/service.js');
}

/** One line for a suite's log: which code its processes run. */
export function codeInUse(): string {
  return buildIsFresh() ? 'the build in out/main (newer than every source file)' : 'the source under tsx (no build, or a source file is newer than it)';
}
