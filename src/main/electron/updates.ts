/**
 * Updates through electron-updater from the generic feed the administrator policy names (off
 * otherwise). The update downloads in the background and installs when the user next quits;
 * main.ts tells them so (docs/decisions/0012-no-crash-upload-or-update-restart-prompt.md).
 */
import electronUpdater from 'electron-updater';
import type { UpdateDecision, UpdateState } from '../desktop/update-policy';
import { releaseNotesText } from '../desktop/update-policy';
import { loggerFor } from '../logging/logger';

const log = loggerFor('updates');

export interface Updates {
  /** Checks the feed now (the menu's "Check for Updates…"); resolves with where the updater is. */
  check(): Promise<UpdateState>;
}

export function setUpUpdates(decision: UpdateDecision, onChange: (state: UpdateState) => void): Updates {
  if (!decision.enabled) {
    const off: UpdateState = { state: 'off', detail: decision.reason };
    return { check: async () => off };
  }
  const { autoUpdater } = electronUpdater;
  let current: UpdateState = { state: 'idle' };
  const set = (next: UpdateState): void => {
    current = next;
    onChange(next);
  };
  autoUpdater.logger = { info: (m: unknown) => log.info(String(m)), warn: (m: unknown) => log.warn(String(m)), error: (m: unknown) => log.error(String(m)), debug: (m: unknown) => log.debug(String(m)) };
  autoUpdater.setFeedURL({ provider: 'generic', url: decision.feedUrl, channel: decision.channel });
  autoUpdater.autoDownload = true;
  // Never a forced restart: installs when the user chooses, or when they quit.
  autoUpdater.autoInstallOnAppQuit = true;
  autoUpdater.on('checking-for-update', () => set({ state: 'checking' }));
  autoUpdater.on('update-not-available', () => set({ state: 'none', detail: 'Clarity Desktop is up to date.' }));
  autoUpdater.on('update-available', (info) => set({ state: 'downloading', version: info.version, notes: releaseNotesText(info.releaseNotes) }));
  autoUpdater.on('update-downloaded', (info) => set({ state: 'ready', version: info.version, notes: releaseNotesText(info.releaseNotes) }));
  autoUpdater.on('error', (error) => set({ state: 'error', detail: `The update check failed: ${error.message}` }));
  const check = async (): Promise<UpdateState> => {
    try {
      await autoUpdater.checkForUpdates();
    } catch (error) {
      set({ state: 'error', detail: `The update check failed: ${(error as Error).message}` });
    }
    return current;
  };
  if (decision.checkOnStart) void check();
  return { check };
}
