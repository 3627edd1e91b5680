/**
 * What the user is told about their data: unreadable files set aside at start (settings,
 * conversations, saved items) and where they are, and a data folder that cannot be written.
 * Main keeps the list (the renderer may connect after start-up) and pushes each new notice.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BridgeError, DataNotice } from '../../../shared/bridge-contract';

/** Error codes meaning "the disk refused the write", as opposed to a bug. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

export function isUnwritableError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNWRITABLE.has(code);
}

/**
 * Makes a private folder for the app's data. A data directory the user may not write to is not
 * an error at start: false is returned, what is there stays readable, and the first write that
 * fails tells the user (writeFailure). Other errors (a bug, a path that is a file) still throw.
 */
export async function ensureDataFolder(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return true;
  } catch (error) {
    if (isUnwritableError(error)) return false;
    throw error;
  }
}

const REASON: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the disk is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
};

export class DataNotices {
  private readonly notices: DataNotice[] = [];
  private listener: ((notice: DataNotice) => void) | null = null;

  constructor(private readonly dataDir: string) {}

  list(): DataNotice[] {
    return [...this.notices];
  }

  /** Each new notice is pushed to the renderer; main keeps them all for a renderer that connects later. */
  onNotice(listener: (notice: DataNotice) => void): void {
    this.listener = listener;
  }

  /** Logs could not be written to files (logging/log-files.ts): they go to stderr only. */
  reportLogFilesProblem(problem: string): void {
    this.add({ kind: 'unwritable', path: join(this.dataDir, 'logs'), text: problem });
  }

  /** The embedded service runs on a temporary folder: its data lasts this run only. */
  reportServiceDataProblem(problem: string): void {
    this.add({ kind: 'unwritable', path: join(this.dataDir, 'local-service'), text: problem });
  }

  /** What the stores set aside or skipped while opening. */
  reportStartup(found: { settingsSetAside: string | null; conversationsSetAside: string[]; librarySkipped: string[] }): void {
    if (found.settingsSetAside) {
      this.add({ kind: 'set_aside', path: found.settingsSetAside, text: `Your settings file could not be read, so default settings are in use. The unreadable file was kept as ${found.settingsSetAside}.` });
    }
    if (found.conversationsSetAside.length > 0) {
      const folder = join(this.dataDir, 'conversations');
      const n = found.conversationsSetAside.length;
      this.add({ kind: 'set_aside', path: folder, text: `${n} conversation file${n === 1 ? '' : 's'} could not be read and ${n === 1 ? 'was' : 'were'} set aside (renamed *.corrupt) in ${folder}: ${found.conversationsSetAside.join(', ')}.` });
    }
    if (found.librarySkipped.length > 0) {
      const folder = join(this.dataDir, 'library');
      const n = found.librarySkipped.length;
      this.add({ kind: 'set_aside', path: folder, text: `${n} saved item${n === 1 ? '' : 's'} in ${folder} could not be read and ${n === 1 ? 'is' : 'are'} skipped: ${found.librarySkipped.join(', ')}.` });
    }
  }

  /**
   * A write failed. If the disk refused it, the user is told plainly (once) and the caller gets
   * an error saying so; otherwise null (a bug: the caller reports it generically).
   */
  writeFailure(error: unknown): BridgeError | null {
    if (!isUnwritableError(error)) return null;
    const code = (error as { code: string }).code;
    const message = `Clarity cannot write to its data folder ${this.dataDir} (${REASON[code] ?? code}). Nothing new can be saved until it can: check the folder's permissions and free space.`;
    this.add({ kind: 'unwritable', path: this.dataDir, text: message });
    return { code: 'internal', message };
  }

  private add(notice: Omit<DataNotice, 'id'>): void {
    const id = `${notice.kind}:${notice.path}`;
    if (this.notices.some((n) => n.id === id)) return;
    const full = { id, ...notice };
    this.notices.push(full);
    this.listener?.(full);
  }
}
