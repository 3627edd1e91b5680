/**
 * Runs the embedded local Retail Signal service in its own process on a free port, so its
 * corpus and streaming never compete with the main process's event loop. The process reports
 * its URL as one JSON line on stdout.
 *
 * How the process starts depends on the host: the browser host spawns Node (child_process);
 * Electron passes `start`, which uses utilityProcess.fork, so the packaged app never needs
 * ELECTRON_RUN_AS_NODE (its RunAsNode fuse is off).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { LaunchExtras } from './answer-composer-launch';
import type { IndexProgress } from '../../../shared/bridge-settings';
import { ENDPOINTS } from '../../../shared/endpoints/table';
import { watchStart, type CpuTimeProbe } from './start-progress';

/** What the supervisor needs of a process: a ChildProcess or an Electron UtilityProcess fit. */
export interface ServiceProcess {
  readonly pid?: number;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  kill(signal?: NodeJS.Signals): boolean;
  once(event: 'exit', listener: (code: number | null, signal?: NodeJS.Signals | null) => void): unknown;
}

export interface LocalServiceLaunch {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Starts the process (Electron: utilityProcess.fork); default: spawn `command args`. */
  start?: (args: string[], env: Record<string, string>) => ServiceProcess;
}

function spawnProcess(command: string, args: string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  // A failure to spawn (missing binary) arrives as 'error'; report it as an exit.
  child.once('error', (error) => {
    child.stderr?.emit('data', Buffer.from(error.message));
    child.emit('exit', null, null);
  });
  return child;
}

export interface SupervisorOptions {
  paceMs?: number;
  /**
   * How long a start may show no progress (no CPU time used, no line written) before it is given
   * up (start-progress.ts); 60 s by default. A start that keeps working may take up to
   * `startCeilingMs` (10 min by default, never less than this).
   */
  startTimeoutMs?: number;
  startCeilingMs?: number;
  /** Told once a second while the service starts: the time so far and what it is doing. */
  onStartProgress?: (elapsedMs: number, phase: string) => void;
  /**
   * Told while the listening service still loads its index (its `index_progress` lines: signals
   * held, of how many), and null once it holds every signal (`index_ready`) or the process ends.
   */
  onIndexProgress?: (progress: IndexProgress | null) => void;
  /** Tests: how the process's CPU time is read. */
  cpuTimeProbe?: CpuTimeProbe;
  onExit?: (detail: string) => void;
  /** Flags and environment the app's settings add at each start (issue 28: the answer composer). */
  launchExtras?: () => LaunchExtras;
  /**
   * Issue 47: the port of the previous start, tried first so links the service gave out (shared
   * pages) stay valid across restarts; a free one is taken when it is in use. `onPort` keeps it.
   */
  preferredPort?: () => number | null;
  onPort?: (port: number) => void;
  /** The analyst's IANA time zone, passed as `--time-zone` at each start (decision 0036). */
  timeZone?: () => string;
}

export class LocalServiceSupervisor {
  private child: ServiceProcess | null = null;
  private url: string | null = null;
  private stopping = false;
  private admin: string | null = null;

  constructor(
    private readonly launch: LocalServiceLaunch,
    private readonly options: SupervisorOptions = {},
  ) {}

  get running(): boolean {
    return this.child !== null && this.url !== null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * The running service's administrator token (claim role "admin"), obtained at start with a
   * one-time secret (see exchangeAdminSecret); null when the service did not grant it.
   * SECURITY: kept in memory only, never logged, never sent to the renderer.
   */
  get adminToken(): string | null {
    return this.url ? this.admin : null;
  }

  /**
   * The analyst's credential as owner of this service (issue 47): the same token, which also
   * carries the tier "team". The app presents it for every call that needs a caller (research,
   * follows, webhooks, keys) when the analyst has set no credential of their own; each start
   * brings a new one, and its subject (the local administrator) stays the same, so follows and
   * research runs carry on across restarts.
   */
  get ownerToken(): string | null {
    return this.adminToken;
  }

  async start(): Promise<string> {
    if (this.url && this.child) return this.url;
    const preferred = this.options.preferredPort?.() ?? null;
    if (preferred) {
      try {
        return await this.startOn(preferred);
      } catch {
        // The port is taken (or the start failed for another reason): a free port, below, says which.
      }
    }
    return this.startOn(0);
  }

  private async startOn(port: number): Promise<string> {
    this.stopping = false;
    const args = [...this.launch.args, '--port', String(port)];
    if (this.options.paceMs !== undefined) args.push('--pace-ms', String(this.options.paceMs));
    const zone = this.options.timeZone?.();
    if (zone) args.push('--time-zone', zone);
    // SECURITY: a fresh one-time secret per start, traded for the admin token once the service listens.
    const adminSecret = randomBytes(32).toString('base64url');
    this.admin = null;
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...this.launch.env, CLARITY_SUPERVISED: '1', CLARITY_ADMIN_SECRET: adminSecret };
    const extras = this.options.launchExtras?.();
    if (extras) {
      args.push(...extras.args);
      for (const [name, value] of Object.entries(extras.env)) {
        if (value === null) delete env[name];
        else env[name] = value;
      }
    }
    const child = this.launch.start ? this.launch.start(args, env) : spawnProcess(this.launch.command, args, env);
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2_000);
    });
    const stallMs = this.options.startTimeoutMs ?? 60_000;
    const wait = watchStart({
      pid: child.pid,
      stallMs,
      ceilingMs: Math.max(this.options.startCeilingMs ?? 10 * 60_000, stallMs),
      ...(this.options.cpuTimeProbe ? { probe: this.options.cpuTimeProbe } : {}),
      ...(this.options.onStartProgress ? { onProgress: this.options.onStartProgress } : {}),
    });
    // Anything the process writes while it starts is a sign of life (its log goes to stderr).
    child.stderr?.on('data', () => wait.noteLine());
    const url = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        wait.noteLine();
        try {
          const message = JSON.parse(line) as { event?: string; url?: string; phase?: string; held?: unknown; total?: unknown };
          if (message.event === 'listening' && message.url) resolve(message.url);
          // After listening: how far its index is (the status bar says it until index_ready).
          else if (message.event === 'index_progress' && typeof message.held === 'number') this.indexProgress(child, { held: message.held, total: typeof message.total === 'number' ? message.total : null });
          else if (message.event === 'index_ready') this.indexProgress(child, null);
          // A service that says what it is doing while it starts (a warming or progress line).
          else if ((message.event === 'warming' || message.event === 'progress') && typeof message.phase === 'string') wait.noteLine(message.phase);
        } catch {
          // Not our status line; ignore.
        }
      });
      child.once('exit', (code) => {
        reject(new Error(`The local service exited (code ${code}). ${stderr.trim().split('\n').slice(-3).join(' ')}`));
      });
      wait.failed.catch((error: unknown) => {
        // Given up: the process is stopped, not left running beside the next attempt.
        child.kill('SIGKILL');
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    })
      .catch((error: unknown) => {
        // A start that failed leaves no process to stop later (stop() would wait for an exit that came).
        if (this.child === child) this.child = null;
        throw error;
      })
      .finally(() => wait.stop());
    this.admin = await exchangeAdminSecret(url, adminSecret);
    this.url = url;
    const listening = Number(new URL(url).port);
    if (listening) this.options.onPort?.(listening);
    child.once('exit', (code, signal) => {
      this.indexProgress(child, null);
      this.child = null;
      this.url = null;
      this.admin = null;
      if (!this.stopping) this.options.onExit?.(`The local service stopped (${signal ?? `code ${code}`}).`);
    });
    return url;
  }

  /** Passes on the index progress of the process in use (never of one replaced since). */
  private indexProgress(child: ServiceProcess, progress: IndexProgress | null): void {
    if (this.child === child) this.options.onIndexProgress?.(progress);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.stopping = true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
    this.child = null;
    this.url = null;
    this.admin = null;
  }
}

/**
 * Trades the one-time secret for the administrator token (the service's
 * POST /api/v1/dev/admin-token). A service without that route, or any failure, gives null: the
 * app then runs without the admin controls and says why. A plain fetch rather than the client's
 * `call`: it runs before the service is handed to any client, carries its own one-time header
 * and no credential, and must fail rather than follow a redirect.
 */
async function exchangeAdminSecret(url: string, secret: string): Promise<string | null> {
  try {
    const response = await fetch(new URL(ENDPOINTS.issueAdministratorToken.path, url), {
      method: 'POST',
      headers: { 'x-clarity-admin-secret': secret, accept: 'application/json', 'content-type': 'application/json' },
      body: '{}',
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
    if (response.status !== 201) {
      await response.body?.cancel().catch(() => undefined);
      return null;
    }
    const body = (await response.json()) as { token?: unknown };
    return typeof body.token === 'string' && body.token.length > 0 ? body.token : null;
  } catch {
    return null;
  }
}
