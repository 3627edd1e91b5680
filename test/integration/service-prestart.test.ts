/**
 * The browser host starts the local service's process before composing the supervisor; the
 * supervisor adopts it only when it asks for exactly that launch, else runs its own. Real
 * processes: a few lines of Node that report a URL the way the service does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LocalServiceSupervisor, PrestartedService, serviceArgs } from '../../src/main/services/local-service-supervisor';

// Prints its pid as the URL's port stand-in, and stays up until its stdin closes (as the service does).
const FAKE_SERVICE = `process.stdout.write(JSON.stringify({ event: 'listening', url: 'http://127.0.0.1:1/' + process.pid + '/' + process.argv.slice(1).join(',') }) + '\\n'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;
const launchArgs = ['-e', FAKE_SERVICE, '--', '--data-dir', '/tmp/x'];

const running: Array<{ stop(): Promise<void> } | PrestartedService> = [];
afterEach(async () => {
  for (const item of running.splice(0)) await ('discard' in item ? item.discard() : item.stop());
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('prestarted local service', () => {
  it('is adopted by the supervisor that asks for the same launch: no second process', async () => {
    const prestart = new PrestartedService(process.execPath, serviceArgs(launchArgs, 12));
    running.push(prestart);
    const supervisor = new LocalServiceSupervisor({ command: process.execPath, args: launchArgs, start: prestart.starter(process.execPath) }, { paceMs: 12 });
    running.push(supervisor);
    const url = await supervisor.start();
    expect(url).toContain('--port,0,--pace-ms,12');
    expect(supervisor.pid).toBe(prestart.pid);
    expect(url).toContain(`/${prestart.pid}/`);
  });

  it('is stopped, and another process started, when the supervisor asks for something else', async () => {
    const prestart = new PrestartedService(process.execPath, serviceArgs(launchArgs, 12));
    running.push(prestart);
    const supervisor = new LocalServiceSupervisor({ command: process.execPath, args: launchArgs, start: prestart.starter(process.execPath) }, { paceMs: 5 });
    running.push(supervisor);
    const url = await supervisor.start();
    // The service runs with the arguments the supervisor asked for, in a process of its own.
    expect(url).toContain('--pace-ms,5');
    expect(supervisor.pid).not.toBe(prestart.pid);
    for (let i = 0; i < 50 && alive(prestart.pid!); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(prestart.pid!)).toBe(false);
  });

  it('is stopped by discard() when nothing adopted it', async () => {
    const prestart = new PrestartedService(process.execPath, serviceArgs(launchArgs, undefined));
    const pid = prestart.pid!;
    expect(alive(pid)).toBe(true);
    prestart.discard();
    for (let i = 0; i < 50 && alive(pid); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(pid)).toBe(false);
  });
});
