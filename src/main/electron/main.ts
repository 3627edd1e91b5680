/**
 * The Electron entry: the only main-process code that imports electron besides the IPC
 * transport and its neighbours in this folder. Order matters: the data directory and the
 * single-instance lock come first (two copies must never run two services on one data
 * directory), then logs and crash reporting, then the services, window and menu.
 */
import { app, crashReporter, dialog, Menu, net, protocol, session, shell, utilityProcess, type MenuItemConstructorOptions } from 'electron';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rendererCsp } from '../../shared/csp';
import type { DesktopCommand } from '../../shared/desktop';
import { composeMainServices } from '../compose-services';
import { electronProxyConfig, loadPolicy } from '../desktop/admin-policy';
import { DEEP_LINK_SCHEME, deepLinkFromArgv, parseDeepLink } from '../desktop/deep-link';
import { DesktopStateStore } from '../desktop/desktop-state-store';
import { buildMenuTemplate, type MenuItemSpec } from '../desktop/menu-template';
import { decideUpdates } from '../desktop/update-policy';
import { startLogFiles } from '../logging/log-files';
import { loggerFor } from '../logging/logger';
import type { ServiceProcess } from '../services/local-service/local-service-supervisor';
import { attachIpcTransport } from '../transports/ipc-transport';
import { electronCapabilities, openExternal } from './electron-capabilities';
import { createElectronDesktopHost } from './electron-desktop-host';
import { setUpUpdates } from './updates';
import { createMainWindow, focusWindow } from './window';

const SCHEME = 'clarity';
const ORIGIN = `${SCHEME}://app`;
const RENDERER_DIR = join(__dirname, '../renderer');
const APP_USER_MODEL_ID = 'app.clarity.desktop';
const log = loggerFor('electron');

// SECURITY: the renderer is served from a privileged custom scheme, never file://.
protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: false } }]);

// SECURITY: no network at all; the bridge is IPC.
const CSP = rendererCsp({ connectSrc: [], delivery: 'header' });

// Tests and portable installs keep their data elsewhere; the single-instance lock follows it.
if (process.env.CLARITY_DATA_DIR) app.setPath('userData', process.env.CLARITY_DATA_DIR);
const dataDir = app.getPath('userData');

/** A link from outside (argv, open-url, second instance): validated, then queued or pushed. */
let deliverLink: (raw: string) => void = (raw) => earlyLinks.push(raw);
const earlyLinks: string[] = [];
const firstLink = deepLinkFromArgv(process.argv);
if (firstLink) earlyLinks.push(firstLink);
// macOS delivers links by event, possibly before ready.
app.on('open-url', (event, url) => {
  event.preventDefault();
  deliverLink(url);
});

if (!app.requestSingleInstanceLock()) {
  // Another Clarity runs on this data directory: it gets our link (second-instance) and focus.
  app.quit();
} else {
  void main().catch((error: unknown) => {
    log.error('Clarity Desktop could not start', error);
    dialog.showErrorBox('Clarity Desktop could not start', String((error as Error).message ?? error));
    app.exit(1);
  });
}

async function main(): Promise<void> {
  if (process.platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);
  // Installers register the scheme (electron-builder `protocols`); a development run does not take it over.
  if (app.isPackaged) app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);

  const logFiles = await startLogFiles(dataDir);
  const policy = await loadPolicy();
  if (policy.state === 'invalid') log.warn(`Administrator policy ${policy.path} ignored: ${policy.problem}`);
  const state = await DesktopStateStore.open(dataDir);

  // Crash dumps stay on this machine, never uploaded (docs/decisions/0012-no-crash-upload-or-update-restart-prompt.md).
  app.setPath('crashDumps', join(dataDir, 'crashes'));
  if (policy.policy.crashReports?.allowUpload) log.warn(`Administrator policy ${policy.path}: crashReports is ignored; this version keeps crash dumps on this machine and uploads none.`);
  crashReporter.start({ submitURL: '', uploadToServer: false, compress: true });

  await app.whenReady();
  await session.defaultSession.setProxy(electronProxyConfig(policy.policy));
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

  const desktop = createElectronDesktopHost({ policy, logsDir: logFiles.dir });
  const capabilities = electronCapabilities(desktop);
  const services = await composeMainServices({
    dataDir,
    logFilesProblem: logFiles.problem,
    // The embedded service runs as an Electron utility process: no ELECTRON_RUN_AS_NODE.
    serviceLaunch: {
      command: process.execPath,
      args: [],
      start: (args, env) => utilityProcess.fork(join(__dirname, 'service.js'), args, { env, stdio: 'pipe', serviceName: 'Clarity local service' }) as unknown as ServiceProcess,
    },
    capabilities,
  });
  log.info(services.credentialBackendLine);
  const decision = decideUpdates(policy, app.isPackaged);
  // A downloaded update installs at the next quit: the user is told, with what changed.
  const updates = setUpUpdates(decision, (update) => {
    if (update.state === 'ready') capabilities.notify?.(update.version ? `Clarity Desktop ${update.version} is ready` : 'A Clarity Desktop update is ready', `It installs when you quit the app.\n${(update.notes ?? '').slice(0, 240)}`);
  });
  /** The menu's check: its outcome is said, since nothing else would show it. */
  const checkFromMenu = async (): Promise<void> => {
    const result = await updates.check();
    if (result.state === 'none' || result.state === 'error' || result.state === 'off') capabilities.notify?.('Clarity Desktop updates', result.detail ?? 'Clarity Desktop is up to date.');
    else if (result.state === 'downloading') capabilities.notify?.('Clarity Desktop updates', `Downloading version ${result.version ?? ''}; it installs when you quit the app.`);
  };

  const send = (command: DesktopCommand): void => {
    if (desktop.ready()) services.host.push('desktop.command', command);
    else desktop.queue(command);
  };
  const window = createMainWindow({ origin: ORIGIN, state, packaged: app.isPackaged, openExternal });
  deliverLink = (raw) => {
    const parsed = parseDeepLink(raw);
    focusWindow(window);
    if (!parsed.ok) {
      log.warn(`Ignored a ${DEEP_LINK_SCHEME}: link (${parsed.reason})`);
      return;
    }
    send({ command: 'open-link', link: parsed.link });
  };
  for (const raw of earlyLinks.splice(0)) deliverLink(raw);
  app.on('second-instance', (_event, argv) => {
    const link = deepLinkFromArgv(argv);
    if (link) deliverLink(link);
    else focusWindow(window);
  });

  const toElectron = (items: MenuItemSpec[]): MenuItemConstructorOptions[] =>
    items.map(({ command, submenu, ...item }) => ({
      ...(item as MenuItemConstructorOptions),
      ...(submenu ? { submenu: toElectron(submenu) } : {}),
      ...(command
        ? {
            click: () => {
              if (command === 'open-logs-folder') {
                if (logFiles.dir) void shell.openPath(logFiles.dir);
              }
              else if (command === 'check-for-updates') void checkFromMenu();
              else send({ command });
            },
          }
        : {}),
    }));
  Menu.setApplicationMenu(Menu.buildFromTemplate(toElectron(buildMenuTemplate({ platform: process.platform, appName: app.name, packaged: app.isPackaged, updatesEnabled: decision.enabled }))));

  const detach = attachIpcTransport({ host: services.host, webContents: () => (window.isDestroyed() ? null : window.webContents), trustedOrigin: ORIGIN });
  window.on('closed', detach);
  await window.loadURL(`${ORIGIN}/index.html`);
  void services.host.start();

  app.on('window-all-closed', () => {
    void services.host.dispose().finally(() => {
      logFiles.close();
      app.quit();
    });
  });
}
