/**
 * The application menu as plain data: Electron's standard roles (so copy/paste, zoom, window
 * handling and the macOS app menu behave natively) plus the app's own commands with shortcuts.
 * Reload and DevTools exist only in development builds. The Electron entry turns `command`
 * into a click handler; nothing here imports electron.
 */

import type { AppCommand } from '../../shared/desktop';

export type { AppCommand };

export interface MenuItemSpec {
  label?: string;
  role?: string;
  type?: 'separator';
  accelerator?: string;
  command?: AppCommand;
  submenu?: MenuItemSpec[];
}

export interface MenuOptions {
  platform: NodeJS.Platform;
  appName: string;
  /** A packaged build: no Reload, no DevTools. */
  packaged: boolean;
  /** Updates allowed by policy: shows "Check for Updates…". */
  updatesEnabled: boolean;
}

const separator: MenuItemSpec = { type: 'separator' };

export function buildMenuTemplate(options: MenuOptions): MenuItemSpec[] {
  const mac = options.platform === 'darwin';
  const updates: MenuItemSpec[] = options.updatesEnabled ? [{ label: 'Check for Updates…', command: 'check-for-updates' }] : [];
  const settings: MenuItemSpec = { label: mac ? 'Settings…' : 'Settings', accelerator: 'CmdOrCtrl+,', command: 'open-settings' };
  const appMenu: MenuItemSpec[] = mac
    ? [
        {
          label: options.appName,
          submenu: [{ role: 'about' }, ...updates, separator, settings, separator, { role: 'services' }, separator, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, separator, { role: 'quit' }],
        },
      ]
    : [];
  const file: MenuItemSpec = {
    label: 'File',
    submenu: [
      { label: 'New Conversation', accelerator: 'CmdOrCtrl+N', command: 'new-conversation' },
      separator,
      { label: 'Open Logs Folder', command: 'open-logs-folder' },
      ...(mac ? [] : [separator, settings, separator, { role: 'quit' }]),
      ...(mac ? [separator, { role: 'close' }] : []),
    ],
  };
  const edit: MenuItemSpec = {
    label: 'Edit',
    submenu: [{ role: 'undo' }, { role: 'redo' }, separator, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: mac ? 'pasteAndMatchStyle' : 'delete' }, { role: 'selectAll' }],
  };
  const development: MenuItemSpec[] = options.packaged ? [] : [separator, { role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }];
  const view: MenuItemSpec = {
    label: 'View',
    submenu: [
      { label: 'Ask', accelerator: 'CmdOrCtrl+1', command: 'open-ask' },
      { label: 'Research', accelerator: 'CmdOrCtrl+2', command: 'open-research' },
      { label: 'Sources Health', accelerator: 'CmdOrCtrl+3', command: 'open-health' },
      { label: 'Library', accelerator: 'CmdOrCtrl+4', command: 'open-library' },
      separator,
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      separator,
      { role: 'togglefullscreen' },
      ...development,
    ],
  };
  const windowMenu: MenuItemSpec = { role: 'windowMenu' };
  const help: MenuItemSpec = { role: 'help', submenu: [...(mac ? [] : [{ role: 'about' }, ...updates, separator]), { label: 'Open Logs Folder', command: 'open-logs-folder' }] };
  return [...appMenu, file, edit, view, windowMenu, help];
}

/** Every command in a template, depth first (for tests and for wiring click handlers). */
export function commandsIn(template: readonly MenuItemSpec[]): AppCommand[] {
  return template.flatMap((item) => [...(item.command ? [item.command] : []), ...commandsIn(item.submenu ?? [])]);
}

/** Every role in a template, depth first. */
export function rolesIn(template: readonly MenuItemSpec[]): string[] {
  return template.flatMap((item) => [...(item.role ? [item.role] : []), ...rolesIn(item.submenu ?? [])]);
}
