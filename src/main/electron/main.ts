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
import type { ServiceProcess } from '../services/local-service-supervisor';
import { attachIpcTransport } from '../transports/ipc-transport';
import { electronCapabilities, openExternal } from './electron-capabilities';
import { createElectronDesktopHost } from './electron-desktop-host';
import { setUpUpdates, type Updates } from './updates';
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

  // Crash dumps always stay on this machine; upload only with the user's opt-in to the
  // endpoint the administrator configured.
  const dumpsDir = join(dataDir, 'crashes');
  app.setPath('crashDumps', dumpsDir);
  const crashPolicy = policy.policy.crashReports;
  const uploadAllowed = Boolean(crashPolicy?.allowUpload && crashPolicy.submitUrl);
  crashReporter.start({ submitURL: uploadAllowed ? crashPolicy!.submitUrl! : '', uploadToServer: uploadAllowed && state.get().crashUpload, compress: true });

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

  let updates: Updates | null = null;
  const desktop = createElectronDesktopHost({ policy, state, logsDir: logFiles.dir, dumpsDir, updates: () => updates! });
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
  updates = setUpUpdates(decision, (update) => services.host.push('desktop.update', update));

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
              else if (command === 'check-for-updates') void updates?.check();
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
