/**
 * The Electron host's capabilities (desktop/host-capabilities.ts), built once in main.ts:
 * Chromium's network stack, the system dialogs and notifications, and the system browser.
 */
import { app, BrowserWindow, dialog, net, Notification, shell } from 'electron';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DesktopHost } from '../desktop/desktop-host';
import type { HostCapabilities } from '../desktop/host-capabilities';
import { safeExternalUrl } from '../services/links/external-links';

/** SECURITY: the one path to the system browser; http(s) and mailto only. */
export async function openExternal(url: string): Promise<boolean> {
  const safe = safeExternalUrl(url);
  if (!safe) return false;
  await shell.openExternal(safe);
  return true;
}

export function electronCapabilities(desktop: DesktopHost): HostCapabilities {
  return {
    kind: 'electron',
    // Every service request goes through Chromium's network stack: system proxy, PAC,
    // NTLM/Kerberos and the operating system's certificate store.
    fetch: net.fetch as unknown as typeof fetch,
    desktop,
    openExternal,
    saveFile: async (filename, data) => {
      const window = BrowserWindow.getFocusedWindow();
      const options = { defaultPath: join(app.getPath('documents'), filename) };
      const result = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
      if (result.canceled || !result.filePath) return null;
      await writeFile(result.filePath, data);
      return result.filePath;
    },
    pickFolder: async () => {
      const window = BrowserWindow.getFocusedWindow();
      const options = { title: 'Choose the team library folder', properties: ['openDirectory' as const, 'createDirectory' as const] };
      const result = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
      return result.canceled ? null : (result.filePaths[0] ?? null);
    },
    notify: (title, body) => {
      if (Notification.isSupported()) new Notification({ title, body }).show();
    },
  };
}
