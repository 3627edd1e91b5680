/**
 * The Electron entry: the only main-process code that imports electron besides the IPC
 * transport. It creates the hardened window and wires the shared services to it.
 */
import { app, BrowserWindow, dialog, net, Notification, protocol, session, shell } from 'electron';
import { writeFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rendererCsp } from '../../shared/csp';
import { composeMainServices } from '../compose-services';
import { safeExternalUrl } from '../services/external-links';
import { originOf } from '../transports/ipc-sender';
import { attachIpcTransport } from '../transports/ipc-transport';
import { loggerFor } from '../logging/logger';

const SCHEME = 'clarity';
const ORIGIN = `${SCHEME}://app`;
const RENDERER_DIR = join(__dirname, '../renderer');

// SECURITY: the renderer is served from a privileged custom scheme, never file://.
protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: false } }]);

// SECURITY: no network at all; the bridge is IPC.
const CSP = rendererCsp({ connectSrc: [], delivery: 'header' });

/** SECURITY: the one path to the system browser; http(s) and mailto only. */
async function openExternal(url: string): Promise<boolean> {
  const safe = safeExternalUrl(url);
  if (!safe) return false;
  await shell.openExternal(safe);
  return true;
}

async function main(): Promise<void> {
  await app.whenReady();
  protocol.handle(SCHEME, async (request) => {
    const { pathname } = new URL(request.url);
    const file = normalize(join(RENDERER_DIR, decodeURIComponent(pathname === '/' ? '/index.html' : pathname)));
    if (!file.startsWith(RENDERER_DIR + sep)) return new Response('Not found', { status: 404 });
    const response = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(response.headers);
    headers.set('content-security-policy', CSP);
    return new Response(response.body, { status: response.status, headers });
  });
  // SECURITY: no permission (camera, notifications, geolocation…) is ever granted to web content.
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  const services = await composeMainServices({
    dataDir: process.env.CLARITY_DATA_DIR ?? app.getPath('userData'),
    serviceLaunch: { command: process.execPath, args: [join(__dirname, 'service.js')], env: { ELECTRON_RUN_AS_NODE: '1' } },
    openExternal,
    saveFile: async (filename, data) => {
      const window = BrowserWindow.getFocusedWindow();
      const options = { defaultPath: join(app.getPath('documents'), filename) };
      const result = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
      if (result.canceled || !result.filePath) return null;
      await writeFile(result.filePath, data);
      return result.filePath;
    },
    notify: (title, body) => {
      if (Notification.isSupported()) new Notification({ title, body }).show();
    },
  });
  loggerFor('startup').info(services.credentialBackendLine);

  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Clarity Desktop',
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
      // SECURITY: middle-click must not open links in new windows.
      disableBlinkFeatures: 'Auxclick',
    },
  });
  const detach = attachIpcTransport({ host: services.host, webContents: () => (window.isDestroyed() ? null : window.webContents), trustedOrigin: ORIGIN });
  window.webContents.on('will-navigate', (event, url) => {
    // SECURITY: the window never leaves the app; links go to the system browser via the allow-list.
    if (originOf(url) !== ORIGIN) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    void openExternal(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-attach-webview', (event) => event.preventDefault());
  window.once('ready-to-show', () => window.show());
  window.on('closed', detach);
  await window.loadURL(`${ORIGIN}/index.html`);
  void services.host.start();

  app.on('window-all-closed', () => {
    void services.host.dispose().finally(() => app.quit());
  });
}

void main();
