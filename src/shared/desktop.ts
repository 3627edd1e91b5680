/**
 * What the desktop shell tells the renderer: the network path in use and its test, logs, and
 * commands from the menu or a `clarity-desktop://` link. Pure types.
 */

/** Commands from the application menu. */
export type AppCommand =
  | 'new-conversation'
  | 'open-ask'
  | 'open-research'
  | 'open-health'
  | 'open-library'
  | 'open-settings'
  | 'open-logs-folder'
  | 'check-for-updates';

/** A validated `clarity-desktop://` link. */
export type DeepLink =
  | { kind: 'conversation'; id: string }
  | { kind: 'saved'; id: string }
  | { kind: 'report'; id: string }
  | { kind: 'ask'; question: string };

export type DesktopCommand = { command: AppCommand } | { command: 'open-link'; link: DeepLink };

export type ConnectionHopName = 'dns' | 'connect' | 'proxy' | 'tls' | 'http';

export interface ConnectionHopResult {
  hop: ConnectionHopName;
  ok: boolean;
  detail: string;
}

export interface ConnectionTestReport {
  url: string;
  proxy: string;
  ok: boolean;
  failedHop: ConnectionHopName | null;
  hops: ConnectionHopResult[];
  summary: string;
}

export interface NetworkInfo {
  /** The service URL the proxy was resolved for (null while the local service starts). */
  serviceUrl: string | null;
  /** The proxy for that URL, password hidden; "none (direct connection)" when direct. */
  proxy: string;
  /** Where the proxy setting comes from (environment, system settings, administrator policy). */
  proxySource: string;
  /** Where trusted certificates come from. */
  certificates: string[];
  /** Settings that could not be honoured, in plain words. */
  warnings: string[];
}

export interface DesktopInfo {
  network: NetworkInfo;
  logsDir: string | null;
  /** Whether this host can open a folder in the file manager (Electron yes, browser host no). */
  canOpenFolders: boolean;
  policy: { state: 'absent' | 'applied' | 'invalid'; path: string; problem?: string };
}
