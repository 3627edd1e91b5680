/**
 * The browser host once its entry (cli.ts) has parsed the command line and started the local
 * service's process: composes the main-process services, serves the renderer, prints the URL.
 */
import { composeMainServices } from '../compose-services';
import { startBrowserHost } from './browser-host';
import { persistentSessionSecret } from './host-session';
import { loadPolicy } from '../desktop/admin-policy';
import { createNodeDesktopHost } from '../desktop/desktop-host';
import { startLogFiles } from '../logging/log-files';
import { createNetworkFetch } from '../network/network-fetch';
import type { LocalServiceLaunch, PrestartedService } from '../services/local-service-supervisor';

export interface BrowserHostOptions {
  dataDir: string;
  rendererDir: string;
  port: number;
  paceMs: number | undefined;
  serviceArgs: string[];
  serviceLaunch: LocalServiceLaunch;
  /** The service process cli.ts started early; stopped here if nothing adopted it. */
  prestart: PrestartedService | null;
}

export async function runBrowserHost(options: BrowserHostOptions): Promise<void> {
  const { dataDir } = options;
  const logFiles = await startLogFiles(dataDir);
  // Service requests honour HTTPS_PROXY / HTTP_PROXY / NO_PROXY and NODE_EXTRA_CA_CERTS.
  const network = createNetworkFetch(process.env);
  for (const warning of network.certificates.warnings) console.warn(`Network: ${warning}`);
  const policy = await loadPolicy();
  if (policy.state === 'invalid') console.warn(`Administrator policy ${policy.path} ignored: ${policy.problem}`);
  const services = await composeMainServices({
    dataDir,
    fetch: network.fetch,
    desktop: createNodeDesktopHost({ network, policy, logsDir: logFiles.dir }),
    serviceLaunch: options.serviceLaunch,
    // A browser host has no shell to open links with; the renderer opens them in a new tab
    // after this process has allow-listed them.
    openExternal: async () => false,
    paceMs: options.paceMs,
    serviceArgs: options.serviceArgs,
  });
  // An open tab reconnects to a restarted host on the same port (the cookie stays valid).
  const web = await startBrowserHost({ host: services.host, rendererDir: options.rendererDir, port: options.port, session: await persistentSessionSecret(dataDir) });
  // The page can load while the service starts (as the Electron window does); the benchmark's
  // cold start opens it from here. Tests and people wait for browser-host-ready below.
  console.log(JSON.stringify({ event: 'browser-host-listening', url: web.launchUrl }));
  console.log(services.credentialBackendLine);
  console.log('Starting the local Retail Signal service (synthetic sample data)…');
  await services.host.start();
  // Settings chose a remote service after all: the early local one is not needed.
  options.prestart?.discard();
  const status = services.host.serviceStatus();
  console.log(status.state === 'ready' ? `Service: ${status.baseUrl} (${status.synthetic ? 'local, synthetic sample data' : 'remote'})` : `Service: ${status.state} — ${status.detail ?? ''}`);
  console.log(`\nClarity Desktop (browser host) is ready. Open this URL in Chromium:\n\n  ${web.launchUrl}\n`);
  console.log(JSON.stringify({ event: 'browser-host-ready', url: web.launchUrl, origin: web.origin }));

  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    void Promise.allSettled([web.close(), services.host.dispose(), network.close()]).finally(() => {
      logFiles.close();
      process.exit(0);
    });
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
