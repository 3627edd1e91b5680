/**
 * The desktop shell for the bridge in Electron: the proxy Chromium resolves (system settings,
 * PAC or the administrator's), a connection test over net.fetch that names the failing hop,
 * the logs folder, and the commands that arrive before the renderer listens.
 */
import { net, session, shell } from 'electron';
import type { ConnectionTestReport, DesktopCommand } from '../../shared/desktop';
import { ENDPOINTS } from '../../shared/endpoints/table';
import type { LoadedPolicy } from '../desktop/admin-policy';
import type { DesktopHost } from '../desktop/desktop-host';
import { HOP_NAMES, hopOfChromiumError, type HopResult } from '../network/connection-test';
import { displayProxy } from '../network/proxy-env';

export interface ElectronDesktopOptions {
  policy: LoadedPolicy;
  /** Null when log files could not be written (lines go to stderr only). */
  logsDir: string | null;
}

/** Chromium's "PROXY host:port; DIRECT" as a URL to show. */
function proxyFromChromium(resolved: string): string | null {
  const first = resolved.split(';')[0]?.trim() ?? 'DIRECT';
  const match = /^(PROXY|HTTPS|SOCKS5?|SOCKS4)\s+(\S+)$/i.exec(first);
  if (!match) return null;
  const scheme = match[1]!.toUpperCase() === 'HTTPS' ? 'https' : match[1]!.toUpperCase().startsWith('SOCKS') ? 'socks' : 'http';
  return `${scheme}://${match[2]}`;
}

async function testWithNet(serviceUrl: string): Promise<ConnectionTestReport> {
  const url = new URL(serviceUrl);
  const proxy = proxyFromChromium(await session.defaultSession.resolveProxy(url.origin));
  const hops: HopResult[] = [];
  try {
    if (!proxy && !/^[\d.]+$|^\[/.test(url.hostname)) {
      const resolved = await session.defaultSession.resolveHost(url.hostname);
      hops.push({ hop: 'dns', ok: true, detail: `${url.hostname} → ${resolved.endpoints[0]?.address ?? '?'}` });
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    const response = await net.fetch(new URL(ENDPOINTS.getSourcesHealth.path, url).toString(), { signal: controller.signal }).finally(() => clearTimeout(timer));
    await response.body?.cancel();
    if (proxy) hops.push({ hop: 'proxy', ok: true, detail: `${displayProxy(proxy)} carried the request.` });
    if (url.protocol === 'https:') hops.push({ hop: 'tls', ok: true, detail: 'certificate trusted by the operating system.' });
    if (response.status >= 500) throw Object.assign(new Error(`the service answered HTTP ${response.status}.`), { hop: 'http' as const });
    hops.push({ hop: 'http', ok: true, detail: `the service answered HTTP ${response.status}.` });
    return { url: url.origin, proxy: displayProxy(proxy), ok: true, failedHop: null, hops, summary: `Connected to ${url.host}${proxy ? ' through the proxy' : ''}.` };
  } catch (error) {
    const message = (error as Error).message;
    const hop = (error as { hop?: 'http' }).hop ?? (/NAME_NOT_RESOLVED|resolve/i.test(message) && hops.length === 0 ? 'dns' : hopOfChromiumError(message));
    hops.push({ hop, ok: false, detail: message });
    return { url: url.origin, proxy: displayProxy(proxy), ok: false, failedHop: hop, hops, summary: `${HOP_NAMES[hop]} failed: ${message}` };
  }
}

export function createElectronDesktopHost(options: ElectronDesktopOptions): DesktopHost & { queue(command: DesktopCommand): void; ready(): boolean } {
  const pending: DesktopCommand[] = [];
  let rendererListening = false;
  const proxySource = options.policy.policy.proxy ? `administrator policy (${options.policy.policy.proxy.mode})` : 'system settings (including PAC)';
  return {
    async info(serviceUrl) {
      const proxy = serviceUrl ? proxyFromChromium(await session.defaultSession.resolveProxy(new URL(serviceUrl).origin)) : null;
      return {
        network: { serviceUrl, proxy: displayProxy(proxy), proxySource, certificates: ['the operating system certificate store'], warnings: [] },
        logsDir: options.logsDir,
        canOpenFolders: true,
        policy: { state: options.policy.state, path: options.policy.path, ...(options.policy.problem ? { problem: options.policy.problem } : {}) },
      };
    },
    testConnection: testWithNet,
    async openLogsFolder() {
      if (!options.logsDir) return { opened: false, path: null };
      const problem = await shell.openPath(options.logsDir);
      return { opened: problem === '', path: options.logsDir };
    },
    takePendingCommands() {
      rendererListening = true;
      return pending.splice(0);
    },
    queue(command) {
      pending.push(command);
    },
    ready: () => rendererListening,
  };
}
