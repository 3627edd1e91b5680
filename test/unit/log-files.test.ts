/** Main's log lines reach a file in the data directory, with credentials already removed. */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startLogFiles } from '../../src/main/logging/log-files';
import { loggerFor } from '../../src/main/logging/logger';

it('writes redacted lines to <data>/logs, readable only by the user', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'clarity-logs-'));
  try {
    const files = await startLogFiles(dataDir, { alsoStderr: false });
    loggerFor('test').warn('Request failed with Authorization: Bearer ck_abcdefghijklmnopqrstuvwxyz012345', { headers: { 'x-api-key': 'ck_zyxwvutsrqponmlkjihgfedcba543210' } });
    files.close();
    expect(files.dir).toBe(join(dataDir, 'logs'));
    const logsDir = files.dir!;
    expect(files.problem).toBeNull();
    const names = await readdir(logsDir);
    expect(names.some((name) => /^clarity\.\d{4}-\d{2}-\d{2}\.1\.log$|^clarity\.1\.log$/.test(name))).toBe(true);
    const logFile = join(logsDir, names.find((name) => name.endsWith('.log'))!);
    const text = await readFile(logFile, 'utf8');
    expect(text).toContain('Request failed with Authorization');
    expect(text).not.toContain('ck_abcdefghijklmnop');
    expect(text).not.toContain('ck_zyxwvutsrqponml');
    if (process.platform !== 'win32') expect((await stat(logFile)).mode & 0o077).toBe(0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

it('keeps logging to stderr, and says why, when the data directory cannot take log files', async () => {
  // A file where the logs folder should be: mkdir fails for any user, root included.
  const dataDir = await mkdtemp(join(tmpdir(), 'clarity-logs-'));
  try {
    await writeFile(join(dataDir, 'logs'), 'not a folder');
    const files = await startLogFiles(dataDir, { alsoStderr: false });
    expect(files.dir).toBeNull();
    expect(files.problem).toMatch(/^Clarity cannot write its log files in .*logs \(EEXIST\); log lines go to standard error only\.$/);
    expect(() => loggerFor('test').info('still logging')).not.toThrow();
    files.close();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
