/**
 * Follow feed pages are one stable order (decision 0040): read page by page while signals arrive
 * and new follows bring their backfills in, the pages never repeat a signal and never skip one; a
 * signal several follows matched (live, or in two follows' backfills) is listed once, naming all
 * of them; `has_more` is true only when another item is there. Ties on purpose: every live signal
 * is published at one instant and the arrivals between two follows share one arrival time.
 * Before, the same caller's feed listed a signal again when another follow's backfill row of it
 * came (issue 48: 51 repeats in 449 items). Real storage: the embedded database (PGlite) and
 * Debian's PostgreSQL in a throw-away cluster.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { FeedItem, FollowTarget } from '../../src/shared/surface-schemas';
import type { CorpusSignal } from '../../src/service/corpus/generator';
import { BACKFILL_DAYS, BACKFILL_MAX, FEED_PAGE_SIZE, FollowStore, type FollowRecord } from '../../src/service/follows/follow-store';
import { targetMatcher } from '../../src/service/follows/signal-query';
import { SignalStore } from '../../src/service/signal-store';
import type { Database } from '../../src/service/store/database';
import { openMemoryDatabase } from '../../src/service/store/embedded';
import { migrate } from '../../src/service/store/migrations';
import { openPostgresDatabase } from '../../src/service/store/postgres';
import { postgresBinDir, sharedPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';

const OWNER = 'reader@example.com';
/** Overlapping targets: many signals match two or three of them. */
const TARGETS: FollowTarget[] = [
  { type: 'segment', value: 'grocery' },
  { type: 'city', value: 'Mumbai' },
  { type: 'segment', value: 'fashion' },
  { type: 'city', value: 'Pune' },
  { type: 'query', value: 'stores' },
];

interface Page {
  items: FeedItem[];
  nextCursor: number;
  hasMore: boolean;
}

function contract(name: string, open: () => Promise<Database>): void {
  describe(name, () => {
    it('pages through arrivals and backfills without a repeat or a gap, each signal once naming all its follows', async () => {
      const db = await open();
      await migrate(db);
      const store = new SignalStore({ signalCount: 4_000, seed: 48 });
      // The clock moves only when a follow is made: the arrivals between two follows tie.
      let clock = store.anchor.getTime();
      const follows = new FollowStore(store, () => clock, db);
      const made: FollowRecord[] = [];
      /** Expected, computed apart from the store: signal id → the follows that should name it. */
      const expected = new Map<string, Set<string>>();
      const expect1 = (signal: CorpusSignal, followId: string): void => {
        const named = expected.get(signal.id) ?? new Set<string>();
        named.add(followId);
        expected.set(signal.id, named);
      };
      const follow = async (target: FollowTarget): Promise<void> => {
        clock += 1;
        const added = await follows.add(OWNER, target, 100);
        made.push(added!.follow);
        // Its backfill, as the store defines it: the newest matching signals of the last 30 days.
        const matches = targetMatcher(added!.follow.target);
        const since = new Date(clock - BACKFILL_DAYS * 86_400_000).toISOString();
        const until = new Date(clock).toISOString();
        [...store.allSignals()]
          .filter((signal) => signal.published_at >= since && signal.published_at <= until && matches(signal))
          .sort((a, b) => b.published_at.localeCompare(a.published_at) || b.id.localeCompare(a.id))
          .slice(0, BACKFILL_MAX)
          .forEach((signal) => expect1(signal, added!.follow.id));
        clock += 1;
      };
      /** Live signals, all published at one instant; each expected under every follow made before it that matches. */
      const arrive = (count: number): void => {
        for (let i = 0; i < count; i += 1) {
          const signal = store.addLiveSignal(new Date(store.anchor.getTime()));
          for (const record of made) if (targetMatcher(record.target)(signal)) expect1(signal, record.id);
        }
      };
      try {
        await follow(TARGETS[0]!);
        await follow(TARGETS[1]!);
        arrive(40);
        const read: FeedItem[] = [];
        const pages: Page[] = [];
        let cursor = 0;
        let step = 0;
        for (;;) {
          // Arrivals and new follows while the pages are read, some while a read runs.
          if (step < 8) arrive(15);
          const during: Promise<unknown>[] = [];
          if (step < TARGETS.length - 2) during.push(follow(TARGETS[step + 2]!));
          const [page] = await Promise.all([follows.feed(OWNER, cursor), ...during]);
          pages.push(page);
          read.push(...page.items);
          cursor = page.nextCursor;
          step += 1;
          if (!page.hasMore && step >= 8) break;
        }
        // Nothing came after the last page: it said so, and the next read is empty.
        expect((await follows.feed(OWNER, cursor)).items).toEqual([]);

        const ids = read.map((item) => item.signal.id);
        expect(ids.length).toBeGreaterThan(3 * FEED_PAGE_SIZE);
        expect(ids.length - new Set(ids).size).toBe(0);
        expect(new Set(ids)).toEqual(new Set(expected.keys()));
        // has_more is exact: a page that says more is full and the next one is not empty.
        for (let n = 0; n < pages.length - 1; n += 1) {
          if (pages[n]!.hasMore) {
            expect(pages[n]!.items).toHaveLength(FEED_PAGE_SIZE);
            expect(pages[n + 1]!.items.length).toBeGreaterThan(0);
          }
        }

        // Read again from the start, with every row written: the same order, and each signal
        // names every follow that matched it (a backfill row written after a page was read
        // adds its follow to the listing, never a second listing).
        const again: FeedItem[] = [];
        let page: Page = { items: [], nextCursor: 0, hasMore: true };
        while (page.hasMore) {
          page = await follows.feed(OWNER, page.nextCursor);
          again.push(...page.items);
        }
        expect(again.map((item) => item.signal.id)).toEqual(ids);
        const order = made.map((record) => record.id);
        for (const item of again) {
          expect({ id: item.signal.id, matched: item.matched }).toEqual({ id: item.signal.id, matched: order.filter((id) => expected.get(item.signal.id)!.has(id)) });
        }
        expect(again.some((item) => item.matched.length >= 2)).toBe(true);
      } finally {
        await follows.close();
        await db.close();
      }
    }, 120_000);
  });
}

contract('embedded', openMemoryDatabase);

let cluster: PostgresCluster | null = null;
afterAll(() => cluster?.destroy());
// Without Debian's server binaries (scripts/bootstrap.sh installs them) there is no cluster to start.
describe.skipIf(postgresBinDir() === null)('on PostgreSQL', () => {
  contract('postgres', async () => {
    cluster = await sharedPostgresCluster();
    return openPostgresDatabase(await cluster.createDatabase('feed_paging'));
  });
});
