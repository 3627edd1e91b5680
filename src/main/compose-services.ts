/**
 * Wires the main-process services together. Used by the Electron entry and the browser host
 * alike, so both run exactly the same services behind the same bridge host.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BridgeHost } from './bridge/bridge-host';
import { ConversationStore } from './services/conversation-store';
import { CredentialStore, KEYCHAIN_SERVICE, probeKeychain } from './services/credential-store';
import { LibraryStore } from './services/library-store';
import { LocalServiceSupervisor, type LocalServiceLaunch } from './services/local-service-supervisor';
import { SettingsStore } from './services/settings-store';
import { loggerFor } from './logging/logger';

const log = loggerFor('startup');

export interface ComposeOptions {
  dataDir: string;
  serviceLaunch: LocalServiceLaunch;
  openExternal: (url: string) => Promise<boolean>;
  /** SSE pace of the embedded local service (ms per delta). */
  paceMs?: number;
  keychainService?: string;
  /** Saves an export through the system dialog (Electron only). */
  saveFile?: (filename: string, data: Buffer) => Promise<string | null>;
  /** A system notification (Electron only). */
  notify?: (title: string, body: string) => void;
  /** Extra flags for the local service (tests: `--enable-faults`, `--research-ms`). */
  serviceArgs?: string[];
}

export interface MainServices {
  host: BridgeHost;
  settings: SettingsStore;
  credentials: CredentialStore;
  /** One line for logs and the user: which credential backend is active and why. */
  credentialBackendLine: string;
}

export async function composeMainServices(options: ComposeOptions): Promise<MainServices> {
  const settings = await SettingsStore.open(options.dataDir);
  // Tests point the app at a keychain entry of their own so they never touch a real one.
  const keychainService = options.keychainService ?? process.env.CLARITY_KEYCHAIN_SERVICE ?? KEYCHAIN_SERVICE;
  const probe = await probeKeychain(keychainService);
  const credentials = new CredentialStore(probe, () => settings.get().credentialPresentation, keychainService);
  let host: BridgeHost | null = null;
  const launch = {
    ...options.serviceLaunch,
    // The embedded service keeps its identity provider key beside the app's data.
    args: [...options.serviceLaunch.args, '--data-dir', join(options.dataDir, 'local-service'), ...(options.serviceArgs ?? [])],
  };
  const localService = new LocalServiceSupervisor(launch, {
    paceMs: options.paceMs,
    onExit: (detail) => host?.localServiceExited(detail),
  });
  const conversations = await ConversationStore.open(options.dataDir);
  if (conversations.corrupt.length > 0) log.warn(`Conversations: ${conversations.corrupt.length} unreadable file(s) set aside as *.corrupt: ${conversations.corrupt.join(', ')}`);
  const library = await LibraryStore.open(options.dataDir);
  if (library.corrupt.length > 0) log.warn(`Library: ${library.corrupt.length} unreadable item(s) skipped: ${library.corrupt.join(', ')}`);
  host = new BridgeHost({
    settings,
    credentials,
    conversations,
    library,
    localService,
    openExternal: options.openExternal,
    saveFile: options.saveFile,
    dataDir: options.dataDir,
    notify: options.notify,
  });
  const credentialBackendLine = probe.keychain
    ? `Credentials: ${probe.detail}`
    : `Credentials: session only — ${probe.detail}`;
  return { host, settings, credentials, credentialBackendLine };
}

/** Same place Electron's userData resolves to on Linux, so both hosts share settings. */
export function defaultDataDir(): string {
  if (process.env.CLARITY_DATA_DIR) return process.env.CLARITY_DATA_DIR;
  const base = process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return join(base, 'Clarity Desktop');
}
