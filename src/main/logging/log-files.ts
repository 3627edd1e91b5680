/**
 * Main's log lines in rotated files in the data directory (`<data>/logs/clarity.N.log`), as well
 * as on stderr: a new file each day or at 5 MB, the last 7 kept. The redacting logger
 * (logger.ts) removes credentials before a line reaches either. pino-roll writes in this
 * process (no worker thread), so it works the same inside Electron's asar.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import roll from 'pino-roll';
import { loggerFor, setLogDestination } from './logger';

export interface LogFiles {
  /** The folder the files are in, or null when they could not be written. */
  dir: string | null;
  /** Why there are no log files, in words for the user; null when there are. */
  problem: string | null;
  /** Flushes and closes the current file (at quit). */
  close(): void;
}

export const LOG_FILE_LIMITS = { size: '5m', frequency: 'daily', keep: 7 } as const;

export async function startLogFiles(dataDir: string, options: { alsoStderr?: boolean } = {}): Promise<LogFiles> {
  const dir = join(dataDir, 'logs');
  let file: Awaited<ReturnType<typeof roll>>;
  try {
    file = await openRolledFile(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const problem = `Clarity cannot write its log files in ${dir} (${code}); log lines go to standard error only.`;
    setLogDestination(pino.destination({ dest: 2, sync: true }));
    loggerFor('logs').warn(problem);
    return { dir: null, problem, close: () => {} };
  }
  const streams: pino.StreamEntry[] = [{ stream: file }];
  if (options.alsoStderr !== false) streams.push({ stream: pino.destination({ dest: 2, sync: true }) });
  setLogDestination(pino.multistream(streams));
  loggerFor('logs').info(`Writing logs to ${dir}`);
  return {
    dir,
    problem: null,
    close: () => {
      file.flushSync();
      file.end();
    },
  };
}

async function openRolledFile(dir: string) {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return roll({
    file: join(dir, 'clarity'),
    extension: '.log',
    size: LOG_FILE_LIMITS.size,
    frequency: LOG_FILE_LIMITS.frequency,
    limit: { count: LOG_FILE_LIMITS.keep },
    mkdir: true,
    // Logs are the user's own: not readable by other accounts on the machine.
    mode: 0o600,
    // Written synchronously: the lines before a crash are the ones that matter.
    sync: true,
  });
}
