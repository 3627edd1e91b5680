/**
 * What main keeps in the data folder is on disk when a service's dispose/stop/close resolves,
 * and nothing is written there afterwards: at quit nothing is lost, and a test's afterAll can
 * remove the folder at once (CI failed on a write that outlived a dispose: ENOTEMPTY).
 * Real files in a temp directory, real HTTP on 127.0.0.1.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBridgeHost } from '../../src/main/compose-services';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { ResearchService } from '../../src/main/services/research/research-service';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import { Watchlist } from '../../src/main/services/watchlist/watchlist';
import type { WatchlistItem } from '../../src/shared/watchlist';
import { fileSnapshot } from '../support/data-files';
import { waitFor } from '../support/wait-for';

const dirs: string[] = [];
const servers: Server[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-dispose-writes-'));
  dirs.push(dir);
  return dir;
}

/** A service that takes requests and never answers them (until the test ends); it counts the requests a client gave up on. */
async function silentService(): Promise<{ url: string; requests: () => number; abandoned: () => number }> {
  let requests = 0;
  let abandoned = 0;
  const server = createServer((request: IncomingMessage, _response: ServerResponse) => {
    requests += 1;
    request.socket.once('close', () => (abandoned += 1));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests, abandoned: () => abandoned };
}

afterEach(async () => {
  vi.useRealTimers();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('writes finish before dispose resolves', () => {
  it('research: a run under way at dispose is recorded as stopped, in runs.json, before dispose resolves', async () => {
    const dataDir = await tempDir();
    const service = await silentService();
    const client = new RetailSignalClient({ baseUrl: service.url });
    const research = await ResearchService.open({ dataDir, client: () => client, onUpdate: () => undefined });
    const run = research.start('Quick commerce in Pune', 'standard', 'wait', service.url);
    await expect.poll(service.requests).toBe(1);

    await research.dispose();
    // Before the fix dispose resolved with the run still 'running' on disk; the abort's
    // 'failed' was written afterwards, into a folder the caller may already have removed.
    const stored = JSON.parse(await readFile(join(dataDir, 'research', 'runs.json'), 'utf8')) as Array<{ id: string; state: string; error: string | null }>;
    expect(stored).toEqual([expect.objectContaining({ id: run.id, state: 'failed', error: expect.stringContaining('The app stopped before the report arrived') })]);
    const before = await fileSnapshot(dataDir);
    // The late write came from the aborted request: wait until the abort has reached the
    // service's end of the connection (after the client's rejection ran), then look again.
    await waitFor(() => service.abandoned() === 1, { what: 'the aborted request\'s connection to close at the service' });
    expect(await fileSnapshot(dataDir)).toEqual(before);
  });

  it('watchlist: an item marked read is saved when stop() resolves', async () => {
    const dataDir = await tempDir();
    const item: WatchlistItem = {
      signal: { id: 'sig_0123456789abcdef', title: 'Zudio opens in Pune' } as WatchlistItem['signal'],
      matched: ['fol_1'],
      arrivedAt: '2026-11-01T00:00:00.000Z',
      read: false,
    };
    await writeFile(join(dataDir, 'watchlist.json'), JSON.stringify({ serviceUrl: null, cursor: null, items: [item] }));
    const watchlist = await Watchlist.open({ dataDir, client: () => null, serviceUrl: () => null, onUpdate: () => undefined });
    expect(watchlist.markRead().unread).toBe(0);

    // Before the fix stop() did not wait for markRead's save: at quit the read mark could be lost.
    await watchlist.stop();
    const stored = JSON.parse(await readFile(join(dataDir, 'watchlist.json'), 'utf8')) as { items: WatchlistItem[] };
    expect(stored.items.map((kept) => kept.read)).toEqual([true]);
  });

  it('host: dispose closes the library (its index cache is written) and writes nothing after it resolves', async () => {
    // Time is the subject (the cache is written a few seconds after a change): every timer the
    // host sets is a fake one, so after dispose every timer left can be run at once.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const dataDir = await tempDir();
    const library = await LibraryStore.open(dataDir);
    const saved = await library.save({ kind: 'answer', title: 'Zudio in Pune', markdown: 'Stores opened', citations: [], createdAt: '2026-11-01T00:00:00Z', meta: {} });
    const settings = await SettingsStore.open(dataDir);
    const host = await createBridgeHost({
      settings,
      conversations: await ConversationStore.open(dataDir),
      library,
      dataDir,
      credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'x-api-key'),
      localService: null,
    });

    await host.dispose();
    // The cache is written a few seconds after a change, "and on close": before the fix the
    // host never closed its libraries, so at quit the cache missed the last changes.
    const cached = await readFile(join(dataDir, 'library-cache', 'personal.entries.json'), 'utf8');
    expect(cached).toContain(saved.id);
    const before = await fileSnapshot(dataDir);
    // Whatever a timer left behind would write, it writes now.
    await vi.runAllTimersAsync();
    expect(await fileSnapshot(dataDir)).toEqual(before);
  });
});
