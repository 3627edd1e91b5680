/**
 * The hardened main window: sandboxed, context-isolated renderer served from clarity://, no
 * navigation away, no new windows, no webviews; DevTools only in development builds. Its size
 * and place are remembered and restored on a display that exists now.
 */
import { BrowserWindow, screen } from 'electron';
import { join } from 'node:path';
import type { DesktopStateStore } from '../desktop/desktop-state-store';
import { MIN_SIZE, restoreBounds, type WindowState } from '../desktop/window-state';
import { originOf } from '../transports/ipc-sender';

export interface MainWindowOptions {
  origin: string;
  state: DesktopStateStore;
  packaged: boolean;
  icon?: string;
  openExternal: (url: string) => Promise<boolean>;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const workAreas = [screen.getPrimaryDisplay(), ...screen.getAllDisplays().filter((d) => d.id !== screen.getPrimaryDisplay().id)].map((d) => d.workArea);
  const bounds = restoreBounds(options.state.get().window, workAreas);
  const window = new BrowserWindow({
    x: bounds.x,
    y: bounds.y,
    width: bounds.width,
    height: bounds.height,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'Clarity Desktop',
    icon: options.icon,
    show: false,
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      // SECURITY: the renderer is an untrusted web page with one bridge.
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      spellcheck: false,
      // SECURITY: no DevTools in an installed build.
      devTools: !options.packaged,
      // SECURITY: middle-click must not open links in new windows.
      disableBlinkFeatures: 'Auxclick',
    },
  });
  if (bounds.maximized) window.maximize();
  window.webContents.on('will-navigate', (event, url) => {
    // SECURITY: the window never leaves the app; links go to the system browser via the allow-list.
    if (originOf(url) !== options.origin) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    void options.openExternal(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-attach-webview', (event) => event.preventDefault());
  window.once('ready-to-show', () => window.show());

  // Remember the normal (unmaximised) bounds, debounced; written once more on close.
  let timer: NodeJS.Timeout | undefined;
  const save = (): void => {
    if (window.isDestroyed() || window.isMinimized() || window.isFullScreen()) return;
    const normal = window.getNormalBounds();
    const state: WindowState = { ...normal, maximized: window.isMaximized() };
    void options.state.update({ window: state }).catch(() => undefined);
  };
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(save, 500);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) window.on(event as 'resize', later);
  window.on('close', () => {
    clearTimeout(timer);
    save();
  });
  return window;
}

/** Brings the window to the front (second launch, deep link). */
export function focusWindow(window: BrowserWindow | null): void {
  if (!window || window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}
