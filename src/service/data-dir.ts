/** Where the service keeps its state when no --data-dir is given (the CLI and the process entry agree on it). */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultServiceDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLARITY_SERVICE_DATA_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Clarity Desktop', 'local-service');
}

/**
 * A `--data-dir` value that names no folder: what an unset variable becomes on a command line
 * (`undefined`, `null`, nothing). Taken as a path, it would make a folder of that name in the
 * working directory (a stray `undefined/` database); the CLI refuses it instead.
 */
export function namesNoFolder(value: string): boolean {
  return /^(?:undefined|null)?$/.test(value.trim());
}
