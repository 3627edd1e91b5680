/**
 * Wires the main-process services together. Used by the Electron entry and the browser host
 * alike, so both run exactly the same services behind the same bridge host.
 */
import { mkdtemp } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AskStreamRunner } from './bridge/ask-stream';
import type { AnswerLimits } from './services/conversations/answer-limits';
import { DataNotices, ensureDataFolder } from './services/data-folder/data-notices';
import { folderWritable } from './services/library/library-files';
import { BridgeHost } from './bridge/bridge-host';
import { createHandlers } from './bridge/handlers';
import { credentialStatus } from './bridge/handlers/credentials';
import { PushHub } from './bridge/push-hub';
import { ServiceConnection } from './bridge/service-connection';
import { ConversationStore } from './services/conversations/conversation-store';
import { CredentialStore, KEYCHAIN_SERVICE, probeKeychain } from './services/credentials/credential-store';
import { HealthMonitor } from './services/health/health-monitor';
import { LibraryHub } from './services/library/library-hub';
import type { LibraryStore } from './services/library/library-store';
import { LocalServiceSupervisor, type LocalServiceLaunch } from './services/local-service/local-service-supervisor';
import { startingInWords } from './services/local-service/start-progress';
import { composerLaunch } from './services/local-service/answer-composer-launch';
import { ModelKeyStore } from './services/credentials/model-key-store';
import { ResearchService } from './services/research/research-service';
import { ScheduledRuns } from './services/research/scheduled-runs';
import { RESEARCH_V1, ServiceNoticeStore } from './services/service-client/service-notices';
import { SettingsStore } from './services/settings/settings-store';
import { SourceAdmin } from './services/sources/source-admin';
import { sourceHostArgs } from './services/sources/private-hosts';
import { Watchlist } from './services/watchlist/watchlist';
import { loggerFor } from './logging/logger';
import { browserHostCapabilities, type HostCapabilities } from './desktop/host-capabilities';
import { resolveZone } from '../shared/format';

const log = loggerFor('startup');

export interface ComposeOptions {
  dataDir: string;
  /** Why main's log lines could not go to files (startLogFiles), to tell the user. */
  logFilesProblem?: string | null;
  serviceLaunch: LocalServiceLaunch;
  /** SSE pace of the embedded local service (ms per delta). */
  paceMs?: number;
  keychainService?: string;
  /** Extra flags for the local service (tests: `--enable-faults`, `--research-ms`). */
  serviceArgs?: string[];
  /** How long the local service may take to start (the supervisor's default: 60 s). */
  serviceStartTimeoutMs?: number;
  /** What the host can do (network, desktop shell, dialogs): Electron's or the browser host's. */
  capabilities: HostCapabilities;
  /** How often the service's research schedules are checked (default once a minute; tests shorten it). */
  scheduleCheckMs?: number;
}

export interface MainServices {
  host: BridgeHost;
  settings: SettingsStore;
  credentials: CredentialStore;
  /** One line for logs and the user: which credential backend is active and why. */
  credentialBackendLine: string;
}

/**
 * Where the embedded service keeps its state: `<data>/local-service`, or, when the data
 * directory cannot be written, a temporary folder for this run (and the user is told), so a
 * read-only data directory still gives a working app.
 */
async function embeddedServiceDataDir(dataDir: string): Promise<{ dir: string; problem: string | null }> {
  const dir = join(dataDir, 'local-service');
  if ((await ensureDataFolder(dir)) && (await folderWritable(dir))) return { dir, problem: null };
  const temporary = await mkdtemp(join(tmpdir(), 'clarity-local-service-'));
  return {
    dir: temporary,
    problem: `The local service cannot keep its data in ${dir} (the folder cannot be written), so it uses ${temporary} for this run: its API keys, shared answers and research runs last until the app closes.`,
  };
}

export async function composeMainServices(options: ComposeOptions): Promise<MainServices> {
  const settings = await SettingsStore.open(options.dataDir);
  // Tests point the app at a keychain entry of their own so they never touch a real one.
  const keychainService = options.keychainService ?? process.env.CLARITY_KEYCHAIN_SERVICE ?? KEYCHAIN_SERVICE;
  const probe = await probeKeychain(keychainService);
  const credentials = new CredentialStore(probe, () => settings.get().credentialPresentation, keychainService);
  // Settings › Answers (issue 28): the model key is read before the embedded service starts with it.
  const modelKeys = new ModelKeyStore(probe, keychainService);
  if (settings.get().answers?.backend === 'model') await modelKeys.load().catch((error: unknown) => log.warn(`Model API key: the keychain did not answer (${error instanceof Error ? error.message.split('\n')[0] : 'unknown error'}).`));
  let host: BridgeHost | null = null;
  const serviceData = await embeddedServiceDataDir(options.dataDir);
  const launch = {
    ...options.serviceLaunch,
    // The embedded service keeps its identity provider key beside the app's data.
    args: [...options.serviceLaunch.args, '--data-dir', serviceData.dir, ...(options.serviceArgs ?? [])],
  };
  const localService = new LocalServiceSupervisor(launch, {
    paceMs: options.paceMs,
    ...(options.serviceStartTimeoutMs !== undefined ? { startTimeoutMs: options.serviceStartTimeoutMs } : {}),
    onExit: (detail) => host?.localServiceExited(detail),
    // The status bar says what a long first start is doing, and for how long (start-progress.ts).
    onStartProgress: (elapsedMs, phase) => host?.localServiceStarting(startingInWords(elapsedMs, phase)),
    // Listening but still loading its index: the status bar says how far (it answers meanwhile).
    onIndexProgress: (progress) => host?.localServiceIndexing(progress),
    // Shared pages' links stay valid across restarts: the same port when it is free (issue 47).
    preferredPort: () => settings.get().localServicePort ?? null,
    onPort: (port) => {
      if (settings.get().localServicePort !== port) void settings.update({ localServicePort: port }).catch(() => undefined);
    },
    launchExtras: () => {
      const composer = composerLaunch(settings.get().answers, modelKeys.current);
      // Issue 47: the intranet hosts the analyst allowed, and only those.
      return { ...composer, args: [...composer.args, ...sourceHostArgs(settings.get().sourceHosts ?? [])] };
    },
    // Started in the zone the app shows dates in; each ask also names it (decision 0036).
    timeZone: () => resolveZone(settings.get().display.timeZone),
  });
  const conversations = await ConversationStore.open(options.dataDir);
  if (conversations.corrupt.length > 0) log.warn(`Conversations: ${conversations.corrupt.length} unreadable file(s) set aside as *.corrupt: ${conversations.corrupt.join(', ')}`);
  // Never blocks start-up: libraries open in the background and tell the renderer when they change.
  const library = await LibraryHub.open({ dataDir: options.dataDir, timeZone: () => resolveZone(settings.get().display.timeZone) });
  // The user is told too, in the app, with where the files are.
  const notices = new DataNotices(options.dataDir);
  notices.reportStartup({ settingsSetAside: settings.recoveredFrom, conversationsSetAside: conversations.corrupt, librarySkipped: [] });
  if (options.logFilesProblem) notices.reportLogFilesProblem(options.logFilesProblem);
  if (serviceData.problem) notices.reportServiceDataProblem(serviceData.problem);
  void library.personal.ready.then(() => {
    const skipped = library.personal.corrupt;
    if (skipped.length === 0) return;
    log.warn(`Library: ${skipped.length} unreadable item(s) skipped: ${skipped.join(', ')}`);
    notices.reportStartup({ settingsSetAside: null, conversationsSetAside: [], librarySkipped: [...skipped] });
  });
  host = await createBridgeHost({
    privateSourcesAllowed: (options.serviceArgs ?? []).includes('--allow-private-sources'),
    settings,
    credentials,
    conversations,
    library,
    localService,
    modelKeys,
    dataDir: options.dataDir,
    notices,
    capabilities: options.capabilities,
    ...(options.scheduleCheckMs !== undefined ? { research: { scheduleCheckMs: options.scheduleCheckMs } } : {}),
  });
  const credentialBackendLine = probe.keychain
    ? `Credentials: ${probe.detail}`
    : `Credentials: session only — ${probe.detail}`;
  return { host, settings, credentials, credentialBackendLine };
}

export interface BridgeHostDeps {
  settings: SettingsStore;
  credentials: CredentialStore;
  /** Starts the embedded local service; null where the host runs remote-only. */
  localService: LocalServiceSupervisor | null;
  /** The model API key of Settings › Answers; default: kept for the session only (tests). */
  modelKeys?: ModelKeyStore;
  conversations: ConversationStore;
  /** Every library (a bare LibraryStore is taken as the personal one: tests). */
  library: LibraryHub | LibraryStore;
  /** Where research runs and reports are kept (`<dataDir>/research`). */
  dataDir: string;
  stallTimeoutMs?: number;
  /** Interval over which stream deltas are coalesced into one message (see stream-coalescer). */
  coalesceMs?: number;
  /** What the user is told about their data; compose-services fills it while opening the stores. */
  notices?: DataNotices;
  /** Bounds on one answer; tests lower them (answer-limits.ts). */
  answerLimits?: AnswerLimits;
  /** Research polling pace and limit (tests shorten them). */
  research?: { pollMinMs?: number; pollLimitMs?: number; scheduleCheckMs?: number };
  /** What the host can do; default: the browser host's (tests). */
  capabilities?: HostCapabilities;
  /** The embedded service was started with --allow-private-sources: no consent to ask (issue 47). */
  privateSourcesAllowed?: boolean;
}

/**
 * Builds the bridge host and every service behind it: the service connection, research,
 * health, the ask stream runner and the handlers. `host.start()` then connects the service.
 */
export async function createBridgeHost(deps: BridgeHostDeps): Promise<BridgeHost> {
  const { settings, credentials, conversations } = deps;
  const capabilities = deps.capabilities ?? browserHostCapabilities();
  const hub = new PushHub();
  const push = hub.push;
  const library = deps.library instanceof LibraryHub ? deps.library : await LibraryHub.open({ dataDir: deps.dataDir, personal: deps.library });
  library.onChange(() => push('library.changed', { locations: library.locations() }));
  const notices = deps.notices ?? new DataNotices(deps.dataDir);
  notices.onNotice((notice) => push('data.notice', notice));
  let watchlist: Watchlist | null = null;
  let scheduledRuns: ScheduledRuns | null = null;
  let watchingUrl: string | null = null;
  let health: HealthMonitor | null = null;
  const serviceNotices = await ServiceNoticeStore.open(deps.dataDir);
  const connection: ServiceConnection = new ServiceConnection({
    initial: settings.get().service,
    credentials,
    localService: deps.localService,
    fetch: capabilities.fetch,
    stallTimeoutMs: deps.stallTimeoutMs,
    onStatus: (status) => {
      push('service.status', status);
      // Back after being away (by Retry or on its own): the health view's failed refresh is tried now.
      if (status.state === 'ready') health?.serviceReady();
      // The watchlist (re)starts on each service that becomes ready.
      if (status.state === 'ready' && status.baseUrl !== watchingUrl) {
        watchingUrl = status.baseUrl;
        void watchlist?.start();
        scheduledRuns?.start();
        // A new service (or the local one restarted): whether the app calls it as its owner (issue 47).
        void credentialStatus(credentials, connection).then((credentialState) => push('credentials.status', credentialState));
      }
    },
    trustedHosts: () => settings.get().trustedHosts,
    // The analyst's day (decision 0036): the zone the app shows dates in, sent with each ask and report.
    timeZone: () => resolveZone(settings.get().display.timeZone),
    onCredentialRejected: () => void credentialStatus(credentials, connection).then((status) => push('credentials.status', status)),
    // Told once (the renderer shows it until dismissed), kept under Settings › Service notices.
    onDeprecation: (observed) => {
      const notice = serviceNotices.record(connection.serviceKey, connection.serviceLabel, observed);
      if (notice) push('service.notice', notice);
    },
  });
  const { scheduleCheckMs, ...researchPace } = deps.research ?? {};
  const research = await ResearchService.open({
    dataDir: deps.dataDir,
    client: () => connection.client,
    onUpdate: (run) => push('research.updated', run),
    notify: capabilities.notify ?? undefined,
    prefersQueued: () => serviceNotices.isDeprecated(connection.serviceKey, RESEARCH_V1.method, RESEARCH_V1.path),
    ...researchPace,
  });
  // Runs the service's research schedules started (issue 46), checked from each ready service on.
  const scheduled = new ScheduledRuns({ research, client: () => connection.client, serviceUrl: () => (connection.status.state === 'ready' ? connection.status.baseUrl : null), intervalMs: scheduleCheckMs });
  scheduledRuns = scheduled;
  health = await HealthMonitor.open({
    dataDir: deps.dataDir,
    client: () => connection.client,
    onUpdate: (view) => push('health.updated', view),
  });
  connection.onServiceChanged(() => health.reset());
  watchlist = await Watchlist.open({
    dataDir: deps.dataDir,
    client: () => connection.client,
    serviceUrl: () => connection.client?.resolve('/') ?? null,
    onUpdate: (view) => push('watchlist.updated', view),
    notify: capabilities.notify ?? undefined,
  });
  const sources = new SourceAdmin({
    service: () => ({ mode: connection.status.mode, baseUrl: connection.client?.baseUrl ?? null }),
    // SECURITY: the embedded service's admin token stays in main (supervisor → this client's header).
    localAdminToken: () => deps.localService?.adminToken ?? null,
    // The analyst's credential, else the owner token of the embedded service (issue 47).
    userCredential: () => connection.credential(),
    trustedOrigins: () => settings.get().trustedHosts,
    // A service started with --allow-private-sources (tests, a developer's run) fetches every
    // private address already: nothing to ask.
    ...(deps.privateSourcesAllowed ? {} : { allowedHosts: () => settings.get().sourceHosts ?? [] }),
    fetch: capabilities.fetch,
  });
  const streams = new AskStreamRunner({ conversations, connection, coalesceMs: deps.coalesceMs, answerLimits: deps.answerLimits, onSaveFailure: (error) => notices.writeFailure(error) });
  const modelKeys = deps.modelKeys ?? new ModelKeyStore({ keychain: null, detail: 'No keychain was given to this host.' });
  const handlers = createHandlers({ modelKeys, settings, credentials, conversations, library, research, scheduledRuns: scheduled, health, watchlist, connection, streams, push, notices, serviceNotices, capabilities, sources });
  return new BridgeHost({ settings, handlers, hub, connection, streams, research, health, notices, watchlist, library, serviceNotices, conversations, scheduledRuns: scheduled });
}

/** Same place Electron's userData resolves to on Linux, so both hosts share settings. */
export function defaultDataDir(): string {
  if (process.env.CLARITY_DATA_DIR) return process.env.CLARITY_DATA_DIR;
  const base = process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return join(base, 'Clarity Desktop');
}
