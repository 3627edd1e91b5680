/** Where the service keeps its state when no --data-dir is given (the CLI and the process entry agree on it). */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultServiceDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLARITY_SERVICE_DATA_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Clarity Desktop', 'local-service');
}
