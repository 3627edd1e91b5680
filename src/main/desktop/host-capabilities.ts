/**
 * What the host the app runs in can do, as one typed object given to the bridge host: the
 * network, the desktop shell, and the Electron-only abilities (system dialogs, notifications,
 * the system browser). Electron builds it once (src/main/electron/electron-capabilities.ts);
 * the browser host and tests build it once here. Handlers and services ask this object, and
 * nothing else, whether an Electron-only path exists: a null ability means "the renderer does
 * it in the page" (a download, a typed path, an in-app notice, a new tab).
 */
import { createNetworkFetch, type NetworkFetch } from '../network/network-fetch';
import type { LoadedPolicy } from './admin-policy';
import { createNodeDesktopHost, type DesktopHost } from './desktop-host';

export interface HostCapabilities {
  /** Which shell this is, for logs only: behaviour follows the abilities below, never this name. */
  readonly kind: 'electron' | 'browser';
  /**
   * The fetch every service request uses. Electron: net.fetch (system proxy, PAC, OS certificate
   * store). Browser host: the environment's proxy and CAs (src/main/network/network-fetch.ts).
   */
  readonly fetch: typeof fetch;
  /** The desktop shell (proxy and connection test, logs folder, launch links). */
  readonly desktop: DesktopHost;
  /** Opens an allow-listed URL in the system browser; false where the host cannot (the page opens a tab). */
  openExternal(url: string): Promise<boolean>;
  /** Saves a file where the user chooses (Electron's save dialog); null: the page downloads it. */
  readonly saveFile: ((filename: string, data: Buffer) => Promise<string | null>) | null;
  /** Picks a folder (Electron's dialog); null: the user types the path. */
  readonly pickFolder: (() => Promise<string | null>) | null;
  /** A system notification (Electron); null: the renderer shows an in-app one. */
  readonly notify: ((title: string, body: string) => void) | null;
}

export interface BrowserHostCapabilityOptions {
  /** The network stack; default: one built from `env`. */
  network?: NetworkFetch;
  /** Proxy and CA settings for a default network (default: none, as tests want). */
  env?: NodeJS.ProcessEnv;
  /** Replaces the network's fetch (tests). */
  fetch?: typeof fetch;
  /** The administrator policy as loaded; default: no policy file. */
  policy?: LoadedPolicy;
  /** Where the log files are; null when lines go to stderr only. */
  logsDir?: string | null;
  /** `clarity-desktop://` links given at launch (`--open`). */
  links?: string[];
  /** Where a rejected launch link is reported (never to the renderer). */
  warn?: (line: string) => void;
}

const NO_POLICY: LoadedPolicy = { policy: {}, path: '', state: 'absent' };

/**
 * The browser host's capabilities (and every test's): the Node network, the Node stand-in for
 * the desktop shell, and none of the Electron-only abilities. The one place that decides them.
 */
export function browserHostCapabilities(options: BrowserHostCapabilityOptions = {}): HostCapabilities {
  const network = options.network ?? createNetworkFetch(options.env ?? {});
  if (options.fetch) network.fetch = options.fetch;
  const desktop = createNodeDesktopHost({ network, policy: options.policy ?? NO_POLICY, logsDir: options.logsDir ?? null, links: options.links, warn: options.warn });
  return {
    kind: 'browser',
    fetch: network.fetch,
    desktop,
    // The renderer opens an allow-listed link in a new tab itself.
    openExternal: async () => false,
    saveFile: null,
    pickFolder: null,
    notify: null,
  };
}
