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
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

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

/** The environment every service process gets (the supervisor's start() passes it too). */
export function serviceEnv(launchEnv: Record<string, string> = {}): Record<string, string> {
  return { ...(process.env as Record<string, string>), ...launchEnv, CLARITY_SUPERVISED: '1' };
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item, i) => item === b[i]);
const sameEnv = (a: Record<string, string>, b: Record<string, string>): boolean =>
  sameList(Object.keys(a), Object.keys(b)) && Object.keys(a).every((key) => a[key] === b[key]);

/**
 * The service's first process, started before the app has composed the supervisor that will
 * run it (the browser host does so first thing, so the service loads its corpus while the host
 * loads its own code). The supervisor's first start adopts it if it asks for exactly this
 * command, arguments and environment and the process is still running; otherwise that process
 * is stopped and a new one spawned, so a mismatch costs time, never correctness.
 */
export class PrestartedService {
  private child: ServiceProcess | null;
  private exited = false;
  /** The prestarted process's id (whether or not it was adopted). */
  readonly pid: number | undefined;

  constructor(
    private readonly command: string,
    private readonly args: string[],
    private readonly env: Record<string, string> = serviceEnv(),
  ) {
    this.child = spawnProcess(command, args, env);
    this.pid = this.child.pid;
    this.child.once('exit', () => (this.exited = true));
  }

  /** A LocalServiceLaunch['start'] for `command`: hands the prestarted process over once. */
  starter(command: string): NonNullable<LocalServiceLaunch['start']> {
    return (args, env) => {
      const child = this.child;
      this.child = null;
      if (child && !this.exited && command === this.command && sameList(args, this.args) && sameEnv(env, this.env)) return child;
      if (child && !this.exited) {
        process.stderr.write('The prestarted local service did not match the launch asked for; starting another.\n');
        child.kill('SIGTERM');
      }
      return spawnProcess(command, args, env);
    };
  }

  /** Stops the prestarted process if nothing adopted it (the app uses a remote service). */
  discard(): void {
    if (this.child && !this.exited) this.child.kill('SIGTERM');
    this.child = null;
  }
}

/** The arguments the supervisor starts the service with: a free port, and its pace if set. */
export function serviceArgs(launchArgs: string[], paceMs: number | undefined): string[] {
  return [...launchArgs, '--port', '0', ...(paceMs !== undefined ? ['--pace-ms', String(paceMs)] : [])];
}

export interface SupervisorOptions {
  paceMs?: number;
  startTimeoutMs?: number;
  onExit?: (detail: string) => void;
}

export class LocalServiceSupervisor {
  private child: ServiceProcess | null = null;
  private url: string | null = null;
  private stopping = false;

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

  async start(): Promise<string> {
    if (this.url && this.child) return this.url;
    this.stopping = false;
    const args = serviceArgs(this.launch.args, this.options.paceMs);
    const env = serviceEnv(this.launch.env);
    const child = this.launch.start ? this.launch.start(args, env) : spawnProcess(this.launch.command, args, env);
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2_000);
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('The local service did not start within the time allowed.')), this.options.startTimeoutMs ?? 60_000);
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        try {
          const message = JSON.parse(line) as { event?: string; url?: string };
          if (message.event === 'listening' && message.url) {
            clearTimeout(timer);
            resolve(message.url);
          }
        } catch {
          // Not our status line; ignore.
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`The local service exited (code ${code}). ${stderr.trim().split('\n').slice(-3).join(' ')}`));
      });
    });
    this.url = url;
    child.once('exit', (code, signal) => {
      this.child = null;
      this.url = null;
      if (!this.stopping) this.options.onExit?.(`The local service stopped (${signal ?? `code ${code}`}).`);
    });
    return url;
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
  }
}
