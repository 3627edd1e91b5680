/**
 * The browser host's session secret, kept in `<data dir>/browser-host-session` so that a
 * restarted host accepts the cookie an open tab already has, and the tab reconnects by itself
 * (issue #16). SECURITY: the launch token stays one-time and per launch; the session secret is
 * a random 32 bytes, written 0600 in the 0700 data directory (like a browser's cookie jar), and
 * replaced whenever the file is missing or not one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

const SESSION_FILE = 'browser-host-session';

export async function persistentSessionSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, SESSION_FILE);
  try {
    const kept = (await readFile(file, 'utf8')).trim();
    if (/^[A-Za-z0-9_-]{43}$/.test(kept)) return kept;
  } catch {
    // first start: make one below
  }
  const secret = randomBytes(32).toString('base64url');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${secret}\n`, { mode: 0o600, fsync: true });
  return secret;
}
