/**
 * How the app waits for its embedded service to start (analyst defect 3), with real processes:
 * a start that works silently for longer than the stall limit (as a cold start building the sample
 * does) is waited for and said in words each second; a process that sleeps without progress, one
 * that exits, and one that works past the ceiling each fail with a clear reason, and the process
 * given up on is not left running.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { startingInWords } from '../../src/main/services/local-service/start-progress';

/** A stand-in service: runs `body` (JavaScript) under Node, with the supervisor's arguments after it. */
const launch = (body: string) => ({ command: process.execPath, args: ['-e', body, '--'] });

/** Busy for `ms` (CPU time grows, nothing written), then listens and says so as the service does. */
const BUSY_THEN_LISTEN = (ms: number) => `
  const end = Date.now() + ${ms};
  while (Date.now() < end) Math.sqrt(Math.random());
  const server = require('node:http').createServer((req, res) => { res.statusCode = 404; res.end(); });
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ event: 'listening', url: 'http://127.0.0.1:' + server.address().port })));
`;

const alive = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let supervisor: LocalServiceSupervisor | null = null;
afterEach(async () => {
  await supervisor?.stop();
  supervisor = null;
});

describe('waiting for the embedded service to start', () => {
  it('waits past the stall limit while the process keeps working, saying what it does each second', async () => {
    const progress: Array<[number, string]> = [];
    supervisor = new LocalServiceSupervisor(launch(BUSY_THEN_LISTEN(4_000)), { startTimeoutMs: 1_500, onStartProgress: (elapsed, phase) => progress.push([elapsed, phase]) });
    const url = await supervisor.start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(supervisor.running).toBe(true);
    // It was told for longer than the stall limit, in words the status bar shows.
    const last = progress.at(-1)!;
    expect(last[0]).toBeGreaterThan(1_500);
    expect(last[1]).toBe('Preparing the sample data…');
    expect(startingInWords(2_000, last[1])).toBe('Preparing the sample data…');
    expect(startingInWords(41_500, last[1])).toBe('Preparing the sample data… (41 s; the first start on this computer can take a minute or more)');
  }, 30_000);

  it('a phase the service writes while it starts is said instead', async () => {
    const phases: string[] = [];
    const body = `console.log(JSON.stringify({ event: 'warming', phase: 'Building the search index…' })); ${BUSY_THEN_LISTEN(2_500)}`;
    supervisor = new LocalServiceSupervisor(launch(body), { startTimeoutMs: 5_000, onStartProgress: (_, phase) => phases.push(phase) });
    await supervisor.start();
    expect(phases).toContain('Building the search index…');
  }, 30_000);

  it('gives up on a process that makes no progress, says so, and stops it', async () => {
    supervisor = new LocalServiceSupervisor(launch('setTimeout(() => {}, 60_000)'), { startTimeoutMs: 1_500 });
    const started = Date.now();
    await expect(supervisor.start()).rejects.toThrow(/stopped making progress while starting \(nothing for 2 s, at “Preparing the sample data…”\)/);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect.poll(() => alive(supervisor!.pid)).toBe(false);
  }, 30_000);

  it('says at once that the process exited, with the end of what it wrote', async () => {
    supervisor = new LocalServiceSupervisor(launch('console.error("database is locked"); process.exit(3)'), { startTimeoutMs: 60_000 });
    const started = Date.now();
    await expect(supervisor.start()).rejects.toThrow(/exited \(code 3\)\. database is locked/);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);

  it('still fails at the ceiling when the process works on and never listens', async () => {
    supervisor = new LocalServiceSupervisor(launch('for (;;) Math.sqrt(Math.random())'), { startTimeoutMs: 1_000, startCeilingMs: 3_000 });
    await expect(supervisor.start()).rejects.toThrow(/did not start within 3 s, though it was still working/);
    await expect.poll(() => alive(supervisor!.pid)).toBe(false);
  }, 30_000);
});
