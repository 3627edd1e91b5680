/**
 * `npm run web` — the browser host. Runs the main-process services and the embedded local
 * service, serves the renderer build on 127.0.0.1 and prints the one URL to open.
 *   --port N (default 5178; 0 = free port)  --data-dir DIR  --pace-ms N
 *   --open clarity-desktop://… (a link to open once the page loads, as the desktop app does)
 *   --service-start-timeout-ms N (how long the local service's start may show no progress — no CPU time used, no line written — before it is given up; 60,000 by default; a start that keeps working may take up to 10 min)
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { composeMainServices, defaultDataDir } from '../compose-services';
import { startBrowserHost } from './browser-host';
import { persistentSessionSecret } from './host-session';
import { loadPolicy } from '../desktop/admin-policy';
import { browserHostCapabilities } from '../desktop/host-capabilities';
import { startLogFiles } from '../logging/log-files';
import { createNetworkFetch } from '../network/network-fetch';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.CLARITY_WEB_PORT ?? '5178' },
    'data-dir': { type: 'string' },
    'pace-ms': { type: 'string' },
    renderer: { type: 'string' },
    // Passed through to the embedded local service; for tests.
    'service-arg': { type: 'string', multiple: true },
    open: { type: 'string', multiple: true },
    // Tests on a loaded machine: how long the local service's start may show no progress.
    'service-start-timeout-ms': { type: 'string' },
    // Tests: how often the service's research schedules are checked (default once a minute).
    'schedule-check-ms': { type: 'string' },
  },
});

// Built (`npm run web`: out/main/browser-host.js) or from source under tsx (tests): the
// renderer build and the service entry sit at different places relative to this file.
const fromSource = import.meta.url.endsWith('.ts');
const rendererDir = values.renderer ?? fileURLToPath(new URL(fromSource ? '../../../out/renderer' : '../renderer', import.meta.url));
const serviceEntry = fileURLToPath(new URL(fromSource ? '../../service/cli.ts' : './service.js', import.meta.url));
if (!existsSync(rendererDir)) {
  console.error(`No renderer build at ${rendererDir}. Run \`npm run build\` first (npm run web does it for you).`);
  process.exit(1);
}

const dataDir = values['data-dir'] ?? defaultDataDir();
const logFiles = await startLogFiles(dataDir);
// Service requests honour HTTPS_PROXY / HTTP_PROXY / NO_PROXY and NODE_EXTRA_CA_CERTS.
const network = createNetworkFetch(process.env);
for (const warning of network.certificates.warnings) console.warn(`Network: ${warning}`);
const policy = await loadPolicy();
if (policy.state === 'invalid') console.warn(`Administrator policy ${policy.path} ignored: ${policy.problem}`);
const services = await composeMainServices({
  dataDir,
  logFilesProblem: logFiles.problem,
  // No dialogs, system notifications or system browser: the page does those (host-capabilities.ts).
  capabilities: browserHostCapabilities({ network, policy, logsDir: logFiles.dir, links: values.open ?? [], warn: (line) => console.warn(line) }),
  // The local service runs in its own Node process: built JS beside us, or its source under
  // the same TypeScript loader as us.
  serviceLaunch: { command: process.execPath, args: [...process.execArgv, serviceEntry] },
  paceMs: values['pace-ms'] !== undefined ? Number(values['pace-ms']) : undefined,
  serviceArgs: values['service-arg'] ?? [],
  ...(values['service-start-timeout-ms'] !== undefined ? { serviceStartTimeoutMs: Number(values['service-start-timeout-ms']) } : {}),
  ...(values['schedule-check-ms'] !== undefined ? { scheduleCheckMs: Number(values['schedule-check-ms']) } : {}),
});
// An open tab reconnects to a restarted host on the same port (the cookie stays valid).
const web = await startBrowserHost({ host: services.host, rendererDir, port: Number(values.port), session: await persistentSessionSecret(dataDir) });
// Supervisors (npm start, tests, the benchmark) read JSON lines from a pipe; a person at a
// terminal gets the launch URL once, in the ready message below, not also as JSON.
const machineLines = !process.stdout.isTTY;
// The page can load while the service starts (as the Electron window does); the benchmark's
// cold start opens it from here. Tests and people wait for browser-host-ready below.
if (machineLines) console.log(JSON.stringify({ event: 'browser-host-listening', url: web.launchUrl }));
console.log(services.credentialBackendLine);
// Stopping is set up before the service starts: a host stopped mid-start stops its service too
// (the default SIGTERM would end only this process, leaving the service to finish its start
// with the data folder's database locked against the next start).
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
console.log('Starting the local Retail Signal service (synthetic sample data)…');
await services.host.start();
const status = services.host.serviceStatus();
console.log(status.state === 'ready' ? `Service: ${status.baseUrl} (${status.synthetic ? 'local, synthetic sample data' : 'remote'})` : `Service: ${status.state} — ${status.detail ?? ''}`);
console.log(`\nClarity Desktop (browser host) is ready. Open this URL in Chromium:\n\n  ${web.launchUrl}\n`);
if (machineLines) console.log(JSON.stringify({ event: 'browser-host-ready', url: web.launchUrl, origin: web.origin }));

