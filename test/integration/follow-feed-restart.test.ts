/**
 * The follow feed's cursor outlives the service (embedded default): arrivals are kept in the
 * database, so after a restart a cursor from before it reads on where it was — what arrived
 * before the restart is still there for a reader behind it, nothing is shown twice to one that
 * read it, and new arrivals follow.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CorpusSignal } from '../../src/service/corpus/generator';
import type { RunningService } from '../../src/service/server';
import { Follow } from '../../src/shared/surface-schemas';
import { postJson, readFollowFeedToEnd, startTestService } from '../support/local-service';
import { seedServiceFolder } from '../support/prepared-service-folder';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const now = Date.parse('2026-11-21T09:00:00Z');

/** Live signals until one names the grocery segment (the generator is seeded: quick and the same each run). */
function arriveGrocery(service: RunningService): CorpusSignal {
  for (let i = 0; i < 500; i += 1) {
    const signal = service.store.addLiveSignal(new Date(now));
    if (signal.entities.segments.includes('grocery')) return signal;
  }
  throw new Error('no grocery signal in 500 arrivals');
}

describe('the follow feed across a restart (embedded database)', () => {
  it('keeps a cursor good: arrivals before the restart are there for a reader behind them, shown once, and new ones follow', async () => {
    // The migrated empty database a first start leaves (the suite's copy): this test is about the restart.
    const dataDir = await seedServiceFolder(await mkdtemp(join(tmpdir(), 'clarity-follow-restart-')), { corpus: false });
    dirs.push(dataDir);
    const before = await startTestService({ dataDir, now: () => now });
    let token: string;
    let beforeArrival: string;
    let afterArrival: string;
    let first: CorpusSignal;
    try {
      token = await before.idp.issueToken('reader@example.com', 3_600, now);
      const follow = Follow.parse(await (await postJson(`${before.url}/api/v1/follow`, { target: { type: 'segment', value: 'Grocery' } }, { authorization: `Bearer ${token}` })).json());
      beforeArrival = (await readFollowFeedToEnd(before, token)).next_cursor;
      first = arriveGrocery(before);
      const read = await readFollowFeedToEnd(before, token, beforeArrival);
      expect(read.items.map((item) => [item.signal.id, item.matched])).toEqual([[first.id, [follow.id]]]);
      afterArrival = read.next_cursor;
    } finally {
      await before.close();
    }

    const after = await startTestService({ dataDir, now: () => now });
    try {
      // Behind the arrival: it is still there. Past it: nothing is new again.
      expect((await readFollowFeedToEnd(after, token, beforeArrival)).items.map((item) => item.signal.id)).toEqual([first.id]);
      expect((await readFollowFeedToEnd(after, token, afterArrival)).items).toEqual([]);
      const second = arriveGrocery(after);
      const next = await readFollowFeedToEnd(after, token, afterArrival);
      expect(next.items.map((item) => item.signal.id)).toEqual([second.id]);
      expect(Number(next.next_cursor)).toBeGreaterThan(Number(afterArrival));
    } finally {
      await after.close();
    }
  }, 120_000);
});
