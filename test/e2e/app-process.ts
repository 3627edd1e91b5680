/**
 * The app as a process: a browser host with its own data directory and keychain entry name,
 * the real local service behind it. The `app` fixture (fixtures.ts) uses these; tests that need
 * two apps or a restart on the same data directory call them directly.
 */
import type { Page } from '@playwright/test';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { browserHostEntry, runsTheService, serviceEntry } from '../support/built-code';
import { seedCorpusCache } from './warm-corpus';

export interface StartOptions {
  /** Delay between streamed chunks of an answer (the browser host's --pace-ms); 12 unless set. */
  paceMs?: number;
  /** An existing data directory (a restart); a fresh temporary one unless set. */
  dataDir?: string;
  /** Arguments for the embedded local service, e.g. `--research-ms=500`, `--enable-faults`. */
  serviceArgs?: string[];
  /** The keychain entry name; a unique one per app unless set. */
  keychainService?: string;
  /** The browser host's port (e.g. the same one again after a restart); any free one unless set. */
  port?: number;
  /**
   * Runs the host as this system user (via runuser; the tests run as root, which ignores file
   * permissions), e.g. to try a data directory the user may not write to.
   */
  runAsUser?: string;
  /** `clarity-desktop://` links the host is launched with (its `--open`), as a clicked link launches the desktop app. */
  links?: string[];
  /** How long the host may take to be ready (its local service included); 60 s unless set. */
  startTimeoutMs?: number;
  /** How often the host checks the service's research schedules (its --schedule-check-ms); once a minute unless set. */
  scheduleCheckMs?: number;
}

export interface RunningApp {
  launchUrl: string;
  origin: string;
  dataDir: string;
  keychainService: string;
  process: ChildProcess;
  logs: () => string;
  /** The session cookie, once a page has used the one-time launch link. */
  session?: { name: string; value: string };
}

/** A cold start (sample generated, database created) can pass a minute on a loaded machine. */
const START_TIMEOUT_MS = Number(process.env.CLARITY_E2E_START_TIMEOUT_MS) || 150_000;

export async function startApp(options: StartOptions = {}): Promise<RunningApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'clarity-e2e-')));
  // A fresh app starts with the suite's sample corpus built and its database made, as after its first start.
  if (!options.dataDir) await seedCorpusCache(join(dataDir, 'local-service'), { database: !options.runAsUser });
  const keychainService = options.keychainService ?? `Clarity Desktop e2e ${process.pid} ${Date.now()}`;
  const hostArgs = [
    // The build when it is fresh (it starts with less CPU), else the source under tsx (test/support/built-code.ts).
    ...browserHostEntry(),
    '--port',
    String(options.port ?? 0),
    '--data-dir',
    dataDir,
    '--pace-ms',
    String(options.paceMs ?? 12),
    ...(options.serviceArgs ?? []).map((arg) => `--service-arg=${arg}`),
    ...(options.links ?? []).map((link) => `--open=${link}`),
    ...(options.startTimeoutMs !== undefined ? ['--service-start-timeout-ms', String(options.startTimeoutMs)] : []),
    ...(options.scheduleCheckMs !== undefined ? ['--schedule-check-ms', String(options.scheduleCheckMs)] : []),
  ];
  const env = { ...process.env, CLARITY_KEYCHAIN_SERVICE: keychainService };
  let child: ChildProcess;
  if (options.runAsUser) {
    // The other user gets a HOME of its own, so nothing of root's (keychain, caches) is reached.
    const home = await mkdtemp(join(tmpdir(), 'clarity-e2e-home-'));
    execFileSync('chown', [options.runAsUser, home]);
    child = spawn('runuser', ['-u', options.runAsUser, '--', 'env', `HOME=${home}`, process.execPath, ...hostArgs], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  } else {
    child = spawn(process.execPath, hostArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  }
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ready = await new Promise<{ url: string; origin: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A host that did not come up is stopped, with its local service, not left running.
      child.kill('SIGTERM');
      reject(new Error(`browser host did not start:\n${output}`));
    }, options.startTimeoutMs ?? START_TIMEOUT_MS);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      if (!line.startsWith('{')) return;
      const message = JSON.parse(line) as { event: string; url: string; origin: string };
      if (message.event === 'browser-host-ready') {
        clearTimeout(timer);
        resolve(message);
      }
    });
    child.once('exit', (code) => reject(new Error(`browser host exited with ${code}:\n${output}`)));
  });
  return { launchUrl: ready.url, origin: ready.origin, dataDir, keychainService, process: child, logs: () => output };
}

export async function stopApp(app: RunningApp, options: { keepData?: boolean } = {}): Promise<void> {
  // Stopping twice is harmless: an exited process (by code or by signal) is not waited for again.
  if (app.process.exitCode === null && app.process.signalCode === null) {
    await new Promise<void>((resolve) => {
      app.process.once('exit', () => resolve());
      app.process.kill('SIGTERM');
    });
  }
  if (!options.keepData) await rm(app.dataDir, { recursive: true, force: true });
}

/**
 * A JWT from the embedded service's own identity provider (its key lives in the app's data dir),
 * optionally with a tier claim (`team`, …).
 */
export async function tokenFor(app: RunningApp, email: string, options: { tier?: string } = {}): Promise<string> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const tier = options.tier ? ['--tier', options.tier] : [];
  const { stdout } = await promisify(execFile)(process.execPath, [...serviceEntry(), 'token', '--user', email, ...tier, '--data-dir', join(app.dataDir, 'local-service')]);
  return stdout.trim();
}

/** The URL of the embedded local service, as the status bar shows it. */
export async function serviceUrlOf(page: Page): Promise<string> {
  return (await page.getByTestId('service-label').innerText()).match(/\((http:\/\/127\.0\.0\.1:\d+)\)/)![1]!;
}

/** Kills this app's embedded local service (found by its data directory), as a crash would. */
export async function killLocalService(app: RunningApp): Promise<void> {
  await signalLocalService(app, 'SIGKILL');
}

/** Sends a signal to this app's embedded local service (SIGSTOP freezes it: unreachable, alive). */
export async function signalLocalService(app: RunningApp, signal: NodeJS.Signals): Promise<void> {
  for (const pid of await localServicePids(app)) process.kill(pid, signal);
}

/** The processes of this app's embedded local service, found by its data directory. */
export async function localServicePids(app: RunningApp): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const marker = join(app.dataDir, 'local-service');
  const pids: number[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (runsTheService(cmdline) && cmdline.includes(marker)) pids.push(Number(pid));
  }
  return pids;
}

