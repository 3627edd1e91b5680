/**
 * The embedded service's index progress reaches the status the app shows: the supervisor reads
 * the listening service's `index_progress` lines and its `index_ready` line, and the connection
 * puts them in the service status (ServiceStatus.indexing) until the index is whole or the
 * process ends. A process stand-in writes the lines as the CLI does (src/service/cli.ts). A remote
 * service's responses say only whether it is warming (`x-index-state`): the status says that much.
 */
import { EventEmitter, once } from 'node:events';
import { createServer } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IndexProgress, ServiceStatus } from '../../src/shared/bridge-contract';
import { LocalServiceSupervisor, type ServiceProcess } from '../../src/main/services/local-service/local-service-supervisor';
import { ServiceConnection } from '../../src/main/bridge/service-connection';
import type { CredentialStore } from '../../src/main/services/credentials/credential-store';

/** A process that writes what the test gives it on stdout and exits when killed. */
function standIn(): ServiceProcess & { say(line: object): void; gone: boolean } {
  const events = new EventEmitter();
  const stdout = new PassThrough();
  const process = {
    pid: undefined,
    stdout,
    stderr: new PassThrough(),
    gone: false,
    kill() {
      process.gone = true;
      stdout.end();
      setImmediate(() => events.emit('exit', 0, null));
      return true;
    },
    once: (event: 'exit', listener: (code: number | null) => void) => events.once(event, listener),
    say: (line: object) => stdout.write(`${JSON.stringify(line)}\n`),
  };
  return process;
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
};

describe('the local service index progress in the service status', () => {
  it('is passed on from the lines until index_ready, and ends with the process', async () => {
    const child = standIn();
    const told: Array<IndexProgress | null> = [];
    let connection: ServiceConnection | null = null;
    const supervisor = new LocalServiceSupervisor(
      // Port 9 refuses the admin-token exchange at once: the app then runs without the admin token.
      { command: 'unused', args: [], start: () => (setImmediate(() => child.say({ event: 'listening', url: 'http://127.0.0.1:9', index: 'warming' })), child) },
      { cpuTimeProbe: async () => null, onIndexProgress: (progress) => (told.push(progress), connection?.localServiceIndexing(progress)) },
    );
    const statuses: ServiceStatus[] = [];
    connection = new ServiceConnection({ initial: { mode: 'local' }, credentials: {} as CredentialStore, localService: supervisor, onStatus: (status) => statuses.push(status), fetch: async () => new Response('{}') });
    await connection.apply({ mode: 'local' });
    expect(statuses.at(-1)).toMatchObject({ state: 'ready', baseUrl: 'http://127.0.0.1:9' });
    expect(statuses.at(-1)!.indexing).toBeUndefined();

    child.say({ event: 'index_progress', held: 20_000, total: null });
    await until(() => statuses.at(-1)?.indexing?.held === 20_000);
    expect(statuses.at(-1)).toMatchObject({ state: 'ready', indexing: { held: 20_000, total: null } });
    child.say({ event: 'index_progress', held: 60_000, total: 120_000 });
    await until(() => statuses.at(-1)?.indexing?.held === 60_000);
    expect(statuses.at(-1)!.indexing).toEqual({ held: 60_000, total: 120_000 });
    child.say({ event: 'index_ready', signals: 120_000 });
    await until(() => statuses.at(-1)?.indexing === undefined);
    expect(told).toEqual([{ held: 20_000, total: null }, { held: 60_000, total: 120_000 }, null]);

    // A process that ends while warming leaves no progress behind.
    child.say({ event: 'index_progress', held: 70_000, total: 120_000 });
    await until(() => statuses.at(-1)?.indexing?.held === 70_000);
    await supervisor.stop();
    await until(() => told.at(-1) === null);
    expect(statuses.at(-1)!.indexing).toBeUndefined();
  });

  it("from a remote service's x-index-state: warming until a response says ready", async () => {
    let state = 'warming';
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json', 'x-index-state': state }).end('{}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const statuses: ServiceStatus[] = [];
    const connection = new ServiceConnection({ initial: { mode: 'remote', baseUrl }, credentials: { credential: async () => null } as unknown as CredentialStore, localService: null, onStatus: (status) => statuses.push(status) });
    try {
      await connection.apply({ mode: 'remote', baseUrl });
      expect(statuses.at(-1)).toMatchObject({ mode: 'remote', state: 'ready', indexing: { held: null, total: null } });
      state = 'ready';
      await connection.retry();
      expect(statuses.at(-1)).toMatchObject({ state: 'ready' });
      expect(statuses.at(-1)!.indexing).toBeUndefined();
      // A header that is neither (an older service sends none) changes nothing.
      state = 'unknown';
      await connection.retry();
      expect(statuses.at(-1)!.indexing).toBeUndefined();
    } finally {
      await connection.dispose();
      server.close();
    }
  });
});
