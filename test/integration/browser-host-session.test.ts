/**
 * The browser host's session secret survives a restart (issue #16: an open tab reconnects), is
 * private to the user, and is made afresh when the file is missing or not one.
 */
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { persistentSessionSecret } from '../../src/main/browser-host/host-session';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clarity-session-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('browser host session secret', () => {
  it('is 32 random bytes, written 0600, and the same after a restart', async () => {
    const first = await persistentSessionSecret(dir);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(join(dir, 'browser-host-session'))).mode & 0o777).toBe(0o600);
    expect(await persistentSessionSecret(dir)).toBe(first);
    // Another data directory has its own.
    const other = await mkdtemp(join(tmpdir(), 'clarity-session-'));
    expect(await persistentSessionSecret(other)).not.toBe(first);
    await rm(other, { recursive: true, force: true });
  });

  it('is replaced when others could read it (a leaked cookie must not live on), and the data directory is made private', async () => {
    const kept = await persistentSessionSecret(dir);
    await chmod(join(dir, 'browser-host-session'), 0o644);
    await chmod(dir, 0o755);
    const fresh = await persistentSessionSecret(dir);
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(kept);
    expect((await stat(join(dir, 'browser-host-session'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await persistentSessionSecret(dir)).toBe(fresh);
  });

  it('is replaced when the file is not a secret of the right shape', async () => {
    await writeFile(join(dir, 'browser-host-session'), 'short');
    const fresh = await persistentSessionSecret(dir);
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe('short');
  });
});
