/**
 * `npm run web` — the browser host. Runs the main-process services and the embedded local
 * service, serves the renderer build on 127.0.0.1 and prints the one URL to open.
 *   --port N (default 5178; 0 = free port)  --data-dir DIR  --pace-ms N
 *
 * This entry imports only Node built-ins: it starts the local service's process first, then
 * loads the rest of the host (run-host.ts), so the service reads its corpus while the host
 * loads its code, on the second core.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../data-dir';
import { PrestartedService, serviceArgs } from '../services/local-service-supervisor';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.CLARITY_WEB_PORT ?? '5178' },
    'data-dir': { type: 'string' },
    'pace-ms': { type: 'string' },
    renderer: { type: 'string' },
    // Passed through to the embedded local service; for tests.
    'service-arg': { type: 'string', multiple: true },
  },
});

// Built (`npm run web`: out/main/browser-host.js) or from source under tsx (tests): the
// renderer build and the service entry sit at different places relative to this file.
const fromSource = import.meta.url.endsWith('.ts');
const rendererDir = values.renderer ?? fileURLToPath(new URL(fromSource ? '../../../out/renderer' : '../renderer', import.meta.url));
if (!existsSync(rendererDir)) {
  console.error(`No renderer build at ${rendererDir}. Run \`npm run build\` first (npm run web does it for you).`);
  process.exit(1);
}

const dataDir = values['data-dir'] ?? defaultDataDir();
const paceMs = values['pace-ms'] !== undefined ? Number(values['pace-ms']) : undefined;
const extraServiceArgs = values['service-arg'] ?? [];
// The local service runs in its own Node process: built JS beside us, or its source under the
// same TypeScript loader as us.
const serviceLaunch = { command: process.execPath, args: [...process.execArgv, fileURLToPath(new URL(fromSource ? '../../service/cli.ts' : './service.js', import.meta.url))] };

/** Whether the saved settings choose a remote service (then no local one is started early). */
function remoteChosen(): boolean {
  try {
    return (JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { service?: { mode?: string } }).service?.mode === 'remote';
  } catch {
    return false;
  }
}

// The arguments composeMainServices and the supervisor will ask for (compose-services.ts adds
// the data directory and the extra flags, the supervisor the port and pace); if they differ,
// the supervisor starts another process and says so on stderr.
const prestart = remoteChosen()
  ? null
  : new PrestartedService(serviceLaunch.command, serviceArgs([...serviceLaunch.args, '--data-dir', join(dataDir, 'local-service'), ...extraServiceArgs], paceMs));

const { runBrowserHost } = await import('./run-host');
await runBrowserHost({
  dataDir,
  rendererDir,
  port: Number(values.port),
  paceMs,
  serviceArgs: extraServiceArgs,
  serviceLaunch: prestart ? { ...serviceLaunch, start: prestart.starter(serviceLaunch.command) } : serviceLaunch,
  prestart,
});
