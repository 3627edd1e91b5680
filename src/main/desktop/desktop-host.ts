/**
 * What the desktop shell does for the bridge, by host: Electron (src/main/electron/) or the
 * browser host and tests (the Node implementation below, electron-free). The bridge's
 * `desktop.*` handlers call only this interface.
 */
import type { ConnectionTestReport, DesktopCommand, DesktopInfo } from '../../shared/desktop';
import { testConnection } from '../network/connection-test';
import type { NetworkFetch } from '../network/network-fetch';
import { displayProxy } from '../network/proxy-env';
import type { LoadedPolicy } from './admin-policy';
import { parseDeepLink } from './deep-link';

export interface DesktopHost {
  info(serviceUrl: string | null): Promise<DesktopInfo>;
  testConnection(serviceUrl: string): Promise<ConnectionTestReport>;
  openLogsFolder(): Promise<{ opened: boolean; path: string | null }>;
  /** Commands queued before the renderer was listening; each is returned once. */
  takePendingCommands(): DesktopCommand[];
}

export interface NodeDesktopHostOptions {
  network: NetworkFetch;
  policy: LoadedPolicy;
  logsDir: string | null;
  /** `clarity-desktop://` links given at launch (`--open`): parsed as strictly as Electron's, handed to the renderer once. */
  links?: string[];
  /** Where a rejected link is reported (never to the renderer). */
  warn?: (line: string) => void;
}

/** The browser host's desktop: the environment's proxy and CAs; no folders to open. */
export function createNodeDesktopHost(options: NodeDesktopHostOptions): DesktopHost {
  const { network, policy } = options;
  const pending: DesktopCommand[] = [];
  for (const raw of options.links ?? []) {
    const parsed = parseDeepLink(raw);
    if (parsed.ok) pending.push({ command: 'open-link', link: parsed.link });
    else options.warn?.(`Ignored a link given at launch (${parsed.reason})`);
  }
  const proxySource = network.proxy.httpProxy || network.proxy.httpsProxy ? 'HTTPS_PROXY / HTTP_PROXY / NO_PROXY' : 'none set (HTTPS_PROXY / HTTP_PROXY are empty)';
  return {
    async info(serviceUrl) {
      return {
        network: {
          serviceUrl,
          proxy: displayProxy(serviceUrl ? network.proxyFor(serviceUrl) : null),
          proxySource,
          certificates: network.certificates.sources,
          warnings: network.certificates.warnings,
        },
        logsDir: options.logsDir,
        canOpenFolders: false,
        policy: { state: policy.state, path: policy.path, ...(policy.problem ? { problem: policy.problem } : {}) },
      };
    },
    testConnection: (serviceUrl) => testConnection(serviceUrl, { proxy: network.proxyFor(serviceUrl), ca: network.certificates.ca, fetch: network.fetch }),
    openLogsFolder: async () => ({ opened: false, path: options.logsDir }),
    takePendingCommands: () => pending.splice(0),
  };
}
