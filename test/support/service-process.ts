/** The service CLI as its own process (so a test can kill -9 it), started on a free port. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIsFresh, serviceEntry } from './built-code';

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** When (performance.now() in this process) it printed `index_ready`: every signal held (server-warm-up.ts). */
  readyAt: Promise<number>;
  /** SIGKILL: no shutdown code runs, as with a crash or an operator's kill -9. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/** Small corpus and fast research: these tests are about what is kept, not about answers. */
export const FAST_ARGS = ['--port', '0', '--pace-ms', '0', '--no-live', '--signals', '3000', '--research-ms', '300', '--dev-tokens'];

/** The service's CLI from its source, under the TypeScript loader (tests: no build needed). */
export const SOURCE_SERVICE: readonly string[] = ['--import', 'tsx', 'src/service/cli.ts'];
/** What the tests run unless they ask for one: the build when it is fresh, else the source (built-code.ts). */
export const TEST_SERVICE: readonly string[] = serviceEntry();
/** The built service the app runs (`npm run build` writes it; the app forks it). */
export const BUILT_SERVICE: readonly string[] = ['out/main/service.js'];
/** The built service's entry from source (compile cache, PGlite compiled early, then the CLI). */
export const SOURCE_SERVICE_ENTRY: readonly string[] = ['--import', 'tsx', 'src/service/main.ts'];

/**
 * Starts the service (`entry`: Node's arguments before the CLI's, TEST_SERVICE by default; `env`:
 * added to this process's). It listens before its index is warm (server-warm-up.ts) and prints
 * `index_ready` once it is: by default this resolves then, so a test meets the service it always
 * met; `until: 'listening'` resolves as soon as it listens (the warm-up's own tests, the bench).
 */
export async function startServiceProcess(args: string[], timeoutMs = 120_000, entry: readonly string[] = TEST_SERVICE, env: NodeJS.ProcessEnv = {}, until: 'ready' | 'listening' = 'ready'): Promise<ServiceProcess> {
  refuseUnsetArguments(args);
  const child = spawn(process.execPath, [...entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let markReady!: (at: number) => void;
  const readyAt = new Promise<number>((resolve) => (markReady = resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`The service did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const lines = stdout.split('\n');
      const line = lines.find((l) => l.includes('"listening"'));
      // A service of a build before the warm-up prints no index state: it is ready when it listens.
      const indexReady = (line !== undefined && !line.includes('"index":"warming"')) || lines.some((l) => l.includes('"index_ready"'));
      if (indexReady) markReady(performance.now());
      if (line && (indexReady || until === 'listening')) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The service exited (${code}) before listening: ${stderr}`));
    });
  });
  const exited = once(child, 'exit');
  return {
    url,
    child,
    readyAt,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A variable a test had not set yet (a `let dir` assigned in an earlier test, run alone with -t)
 * would reach the CLI as the word "undefined", and the service would make a folder of that name
 * in the working folder: refused here, naming the option.
 */
function refuseUnsetArguments(args: readonly unknown[]): void {
  const at = args.findIndex((arg) => typeof arg !== 'string');
  if (at >= 0) throw new Error(`The service's argument ${at}${at > 0 ? ` (after ${String(args[at - 1])})` : ''} is ${String(args[at])}: a test variable not set yet?`);
}

/** The CLI by absolute paths, so a refused start can run in a folder of its own (`cwd`): the build's, or the source's with tsx's loader found from here. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CLI_ENTRY: readonly string[] = buildIsFresh() ? serviceEntry() : ['--import', TSX_LOADER, fileURLToPath(new URL('../../src/service/cli.ts', import.meta.url))];

/** Runs the CLI expecting it to refuse to start; resolves with its exit code, stderr and how long it took. */
export async function failedStart(args: string[], cwd?: string): Promise<{ code: number | null; stderr: string; ms: number }> {
  refuseUnsetArguments(args);
  const started = Date.now();
  const child = spawn(process.execPath, [...CLI_ENTRY, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr, ms: Date.now() - started };
}

export async function devToken(url: string, email: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  if (response.status !== 201) throw new Error(`dev token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/** Builds the app (`npm run build`), so a benchmark measures the service the app runs, from this code. */
export function buildService(): void {
  console.log('  npm run build (the benchmark measures the built service)…');
  const built = spawnSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) throw new Error(`npm run build failed (${built.status ?? built.signal}); the benchmark needs the built service`);
}
