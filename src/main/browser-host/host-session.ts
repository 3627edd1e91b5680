/**
 * The browser host's session secret, kept in `<data dir>/browser-host-session` so that a
 * restarted host accepts the cookie an open tab already has, and the tab reconnects by itself
 * (issue #16). SECURITY: the launch token stays one-time and per launch; the session secret is
 * a random 32 bytes, written 0600 in the 0700 data directory (like a browser's cookie jar), and
 * replaced whenever the file is missing or not one.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

const SESSION_FILE = 'browser-host-session';

export async function persistentSessionSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, SESSION_FILE);
  try {
    // Reused only while it is private to this user: a file others could read (a restored
    // backup, a shared home) may have leaked the cookie, so it is replaced, and old tabs sign in again.
    if (await isPrivateToUser(file)) {
      const kept = (await readFile(file, 'utf8')).trim();
      if (/^[A-Za-z0-9_-]{43}$/.test(kept)) return kept;
    }
  } catch {
    // first start: make one below
  }
  const secret = randomBytes(32).toString('base64url');
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    // mkdir's mode does not tighten a directory that already exists.
    if (process.platform !== 'win32') await chmod(dataDir, 0o700).catch(() => undefined);
    await writeFileAtomic(file, `${secret}\n`, { mode: 0o600, fsync: true });
  } catch {
    // A data directory that cannot be written: the secret lasts this run only, so an open tab
    // signs in again after a restart (the app tells the user the folder is not writable).
  }
  return secret;
}

/** Owned by this user and readable by nobody else (POSIX; Windows has no mode bits to check). */
async function isPrivateToUser(file: string): Promise<boolean> {
  const info = await stat(file);
  if (process.platform === 'win32') return true;
  return (info.mode & 0o077) === 0 && info.uid === process.getuid?.();
}
