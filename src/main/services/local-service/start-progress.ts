/**
 * How the app waits for the embedded service to start (analyst defect 3). A cold start builds the
 * synthetic sample and its index, which took 36–51 s on a loaded machine: a fixed minute came
 * close to failing a start that was working. So the wait is on progress, not a clock:
 *
 * - the process is **making progress** while it uses CPU time (read from /proc on Linux, `ps`
 *   on macOS) or writes a line (a log line, or a readiness/progress line such as a future
 *   `{"event":"warming"}`);
 * - it **fails** when the process exits (said at once, by the caller), when it has shown no
 *   progress for `stallMs`, or after `ceilingMs` in all, whatever it does;
 * - where CPU time cannot be read (Windows), no progress is seen but lines, so `stallMs` then
 *   bounds the whole wait as before: the old behaviour, not a worse one.
 *
 * Each second the caller is told the elapsed time and the phase, for the status bar's words.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** CPU time (ms) the process has used so far, or null where it cannot be read. */
export type CpuTimeProbe = (pid: number) => Promise<number | null>;

/** Linux: utime + stime from /proc/<pid>/stat, in clock ticks (100 per second on every Linux the app runs on). */
async function linuxCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields count from its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

/** macOS: `ps -o time=` ("[[dd-]hh:]mm:ss.ss"). */
function psCpuMs(pid: number): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'time=', '-p', String(pid)], { timeout: 2_000 }, (error, stdout) => {
      if (error) return resolve(null);
      const parts = stdout.trim().replace('-', ':').split(':').map(Number);
      if (parts.length === 0 || parts.some((part) => !Number.isFinite(part))) return resolve(null);
      resolve(parts.reduce((total, part) => total * 60 + part, 0) * 1000);
    });
  });
}

export const cpuTimeOf: CpuTimeProbe = process.platform === 'linux' ? linuxCpuMs : process.platform === 'darwin' ? psCpuMs : async () => null;

export interface StartWaitOptions {
  pid: number | undefined;
  /** No progress for this long: the start has stalled (default 60 s). */
  stallMs?: number;
  /** The whole wait, progress or not (default 10 min). */
  ceilingMs?: number;
  /** How often CPU time is read and the caller told (default 1 s). */
  everyMs?: number;
  probe?: CpuTimeProbe;
  /** Elapsed ms since the start and the phase in words, once per `everyMs`. */
  onProgress?: (elapsedMs: number, phase: string) => void;
  now?: () => number;
}

export interface StartWait {
  /** A line from the process (stdout or stderr): progress; a `phase` names what it is doing. */
  noteLine(phase?: string): void;
  /** Rejects with the reason when the start stalls or passes the ceiling; never resolves. */
  readonly failed: Promise<never>;
  stop(): void;
}

/** What the process is doing before its first word: the sample and its index (the long part). */
export const FIRST_PHASE = 'Preparing the sample data…';

export function watchStart(options: StartWaitOptions): StartWait {
  const now = options.now ?? Date.now;
  const stallMs = options.stallMs ?? 60_000;
  const ceilingMs = options.ceilingMs ?? 10 * 60_000;
  const probe = options.probe ?? cpuTimeOf;
  const started = now();
  let lastProgress = started;
  let lastCpu: number | null = null;
  let phase = FIRST_PHASE;
  let timer: NodeJS.Timeout | null = null;
  let reject: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, fail) => (reject = fail));
  // Nobody may be listening yet when it fails (the caller races it with the readiness line).
  failed.catch(() => undefined);

  const check = async (): Promise<void> => {
    const cpu = options.pid !== undefined ? await probe(options.pid) : null;
    if (cpu !== null && lastCpu !== null && cpu > lastCpu) lastProgress = now();
    if (cpu !== null) lastCpu = cpu;
    const at = now();
    if (at - started >= ceilingMs) {
      stop();
      const limit = ceilingMs >= 120_000 ? `${Math.round(ceilingMs / 60_000)} minutes` : `${Math.round(ceilingMs / 1000)} s`;
      reject(new Error(`The local service did not start within ${limit}, though it was still working. Try again; if it keeps happening, the log says where it stopped.`));
    } else if (at - lastProgress >= stallMs) {
      stop();
      reject(new Error(`The local service stopped making progress while starting (nothing for ${Math.round(stallMs / 1000)} s, at “${phase}”).`));
    } else {
      options.onProgress?.(at - started, phase);
    }
  };
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  timer = setInterval(() => void check(), options.everyMs ?? 1_000);
  timer.unref?.();
  void check();

  return {
    noteLine(next) {
      lastProgress = now();
      if (next) phase = next;
    },
    failed,
    stop,
  };
}

/** The status bar's words while the service starts: the phase, the time so far, and why it may take a while. */
export function startingInWords(elapsedMs: number, phase: string): string {
  const seconds = Math.floor(elapsedMs / 1000);
  if (seconds < 5) return phase;
  return `${phase} (${seconds} s; the first start on this computer can take a minute or more)`;
}
