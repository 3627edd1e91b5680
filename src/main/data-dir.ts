/**
 * The app's data directory when none is given. Its own module (node built-ins only) so the
 * browser host can find it before it loads the rest of the app.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Same place Electron's userData resolves to on Linux, so both hosts share settings. */
export function defaultDataDir(): string {
  if (process.env.CLARITY_DATA_DIR) return process.env.CLARITY_DATA_DIR;
  const base = process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return join(base, 'Clarity Desktop');
}
