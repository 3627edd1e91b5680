/**
 * The shell's own small state beside the app's data (`desktop-state.json`): the window's last
 * bounds. A corrupt file is ignored (defaults apply).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { parseWindowState, type WindowState } from './window-state';

export interface DesktopState {
  window: WindowState | null;
}

export class DesktopStateStore {
  private constructor(
    private readonly file: string,
    private state: DesktopState,
  ) {}

  static async open(dataDir: string): Promise<DesktopStateStore> {
    const file = join(dataDir, 'desktop-state.json');
    let state: DesktopState = { window: null };
    try {
      const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      state = { window: parseWindowState(raw.window) };
    } catch {
      // Missing or unreadable: the defaults.
    }
    return new DesktopStateStore(file, state);
  }

  get(): DesktopState {
    return this.state;
  }

  async update(patch: Partial<DesktopState>): Promise<DesktopState> {
    this.state = { ...this.state, ...patch };
    await writeFileAtomic(this.file, JSON.stringify(this.state, null, 2), { mode: 0o600 });
    return this.state;
  }
}
