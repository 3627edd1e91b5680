/**
 * Arrivals taken in just before the service closes are written before its database closes
 * (FollowStore.close waits for them): after a restart they are in the follow feed, in order, for
 * a cursor issued before them. Before, close() dropped whatever was still queued behind the
 * write under way, so signals that arrived in the last moment never reached any feed.
 * Their `follow.matched` webhooks are not lost either: the close stores their deliveries as
 * pending and the next start sends them (before, the close had already stopped listening, so an
 * arrival written during it was in the feed but never sent to the webhook).
 * Webhooks go to a receiver on 127.0.0.1 (private addresses allowed for the test).
 * Real storage: the embedded database (PGlite) in a temp directory, and Debian's PostgreSQL in a
 * throw-away cluster (test/support/postgres-cluster.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CorpusSignal } from '../../src/service/corpus/generator';
import type { RunningService, ServiceOptions } from '../../src/service/server';
import { Follow } from '../../src/shared/surface-schemas';
import { postJson, readFollowFeedToEnd, startTestService } from '../support/local-service';
import { sharedPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';

const dirs: string[] = [];
let cluster: PostgresCluster | null = null;
/** The webhook receiver: the signal ids of every `follow.matched` delivery it took. */
let receiver: Server;
let receiverUrl: string;
const matchedSignalIds: string[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const delivery = JSON.parse(body) as { type: string; data: { signal: { id: string } } };
      if (delivery.type === 'follow.matched') matchedSignalIds.push(delivery.data.signal.id);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  cluster = await sharedPostgresCluster();
}, 120_000);
afterAll(async () => {
  await cluster?.destroy();
  await new Promise((resolve) => receiver.close(resolve));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const now = Date.parse('2026-11-21T09:00:00Z');

/** Live signals until `count` name the grocery segment (the generator is seeded: the same each run). */
function arriveGrocery(service: RunningService, count: number): CorpusSignal[] {
  const found: CorpusSignal[] = [];
  for (let i = 0; i < 2_000 && found.length < count; i += 1) {
    const signal = service.store.addLiveSignal(new Date(now));
    if (signal.entities.segments.includes('grocery')) found.push(signal);
  }
  if (found.length < count) throw new Error(`only ${found.length} grocery signals in 2,000 arrivals`);
  return found;
}

async function arrivalsQueuedAtCloseSurvive(storage: ServiceOptions): Promise<void> {
  matchedSignalIds.length = 0;
  const options: ServiceOptions = { ...storage, now: () => now, extensions: { allowPrivateWebhooks: true } };
  const before = await startTestService(options);
  let token: string;
  let cursor: string;
  let arrived: CorpusSignal[];
  try {
    token = await before.idp.issueToken('reader@example.com', 3_600, now);
    const follow = await postJson(`${before.url}/api/v1/follow`, { target: { type: 'segment', value: 'Grocery' } }, { authorization: `Bearer ${token}` });
    Follow.parse(await follow.json());
    const hook = await postJson(`${before.url}/api/v1/webhooks`, { url: receiverUrl, events: ['follow.matched'] }, { authorization: `Bearer ${token}` });
    expect(hook.status).toBe(201);
    cursor = (await readFollowFeedToEnd(before, token)).next_cursor;
    // Taken in with nothing read after them: each is queued behind the first one's write.
    arrived = arriveGrocery(before, 5);
  } finally {
    await before.close();
  }

  const after = await startTestService(options);
  try {
    const read = await readFollowFeedToEnd(after, token, cursor);
    expect(read.items.map((item) => item.signal.id)).toEqual(arrived.map((signal) => signal.id));
    // Every arrival's webhook was sent once, by the first service or (stored as it closed) by the
    // second: an attempt under way at the close stored its result, so it is not sent again.
    const expected = arrived.map((signal) => signal.id).sort();
    await expect.poll(() => [...matchedSignalIds].sort(), { timeout: 10_000 }).toEqual(expected);
  } finally {
    await after.close();
  }
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-follow-close-'));
  dirs.push(dir);
  return dir;
}

describe('arrivals queued when the service closes are in the feed after a restart', () => {
  it('embedded database (PGlite)', { timeout: 120_000 }, async () => {
    await arrivalsQueuedAtCloseSurvive({ dataDir: await tempDir() });
  });

  it('PostgreSQL', { timeout: 300_000 }, async () => {
    const databaseUrl = await cluster!.createDatabase('follow_close');
    await arrivalsQueuedAtCloseSurvive({ dataDir: await tempDir(), databaseUrl });
  });
});
