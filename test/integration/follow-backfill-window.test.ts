/**
 * A new follow's feed starts with the matching signals of the last 30 days (its backfill), read
 * from the store's signals by date (follows/signals-by-date.ts) rather than a walk over all of
 * them: a signal that arrived a moment ago, one taken in without an announcement (another
 * process's, read by the feed's sync) and a fetched item whose corrected version moved its date
 * into or out of the window are all where a walk over every signal would put them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FollowTarget } from '../../src/shared/surface-schemas';
import type { CorpusSignal } from '../../src/service/corpus/generator';
import { BACKFILL_DAYS, BACKFILL_MAX, FollowStore } from '../../src/service/follows/follow-store';
import { targetMatcher } from '../../src/service/follows/signal-query';
import { SignalStore } from '../../src/service/signal-store';
import type { Database } from '../../src/service/store/database';
import { openMemoryDatabase } from '../../src/service/store/embedded';
import { migrate } from '../../src/service/store/migrations';

const DAY_MS = 86_400_000;
let db: Database;
let store: SignalStore;
let follows: FollowStore;
let clock: number;
let owners = 0;

beforeAll(async () => {
  db = await openMemoryDatabase();
  await migrate(db);
  store = new SignalStore({ signalCount: 4_000, seed: 49 });
  clock = store.anchor.getTime() + 2 * DAY_MS;
  follows = new FollowStore(store, () => clock, db);
});
afterAll(async () => {
  await follows.close();
  await db.close();
});

/** The backfill as the store defines it, from every signal it holds: newest 50 matches of the window. */
function expectedBackfill(target: FollowTarget): string[] {
  const matches = targetMatcher(target);
  const since = new Date(clock - BACKFILL_DAYS * DAY_MS).toISOString();
  const until = new Date(clock).toISOString();
  return [...store.allSignals()]
    .filter((signal) => signal.published_at >= since && signal.published_at <= until && matches(signal))
    .sort((a, b) => b.published_at.localeCompare(a.published_at) || b.id.localeCompare(a.id))
    .slice(0, BACKFILL_MAX)
    .map((signal) => signal.id)
    .sort();
}

/** A new caller follows the target; the ids their feed then lists (its backfill: nothing else matched yet). */
async function followAndRead(target: FollowTarget): Promise<string[]> {
  owners += 1;
  const owner = `reader${owners}@example.com`;
  clock += 1_000;
  await follows.add(owner, target, 100);
  const ids: string[] = [];
  let page = { items: [] as Array<{ signal: { id: string } }>, nextCursor: 0, hasMore: true };
  while (page.hasMore) {
    page = await follows.feed(owner, page.nextCursor);
    ids.push(...page.items.map((item) => item.signal.id));
  }
  return ids.sort();
}

/** A fetched item's new version: the same id, another date (its source corrected it). */
const redated = (signal: CorpusSignal, publishedAt: number): CorpusSignal => ({ ...signal, published_at: new Date(publishedAt).toISOString() });

describe('a new follow backfills from the signals by date', () => {
  it('lists the window’s matching signals, with those that arrived, were taken in or were re-dated since the first follow', async () => {
    const grocery: FollowTarget = { type: 'segment', value: 'grocery' };
    const first = await followAndRead(grocery);
    expect(first.length).toBeGreaterThan(0);
    expect(first).toEqual(expectedBackfill(grocery));

    // Arrivals after the first follow (the date order already built): a live signal, and one
    // taken in without an announcement, both published now.
    const live = store.addLiveSignal(new Date(clock));
    const quiet = { ...redated(store.addLiveSignal(new Date(clock)), clock), id: 'sig_00000000000000aa', slug: 'taken-in-quietly' };
    store.addSignal(quiet, false);
    // A signal of the window re-dated out of it, and an old one re-dated into it.
    const inWindow = [...store.allSignals()].find((signal) => Date.parse(signal.published_at) > clock - 5 * DAY_MS && signal.entities.segments.includes('grocery'))!;
    const old = [...store.allSignals()].find((signal) => Date.parse(signal.published_at) < clock - 90 * DAY_MS && signal.entities.segments.includes('grocery'))!;
    store.updateSignal(redated(inWindow, clock - 60 * DAY_MS));
    store.updateSignal(redated(old, clock - 1_000));

    for (const target of [grocery, { type: 'segment', value: live.entities.segments[0]! }, { type: 'query', value: live.title.split(' ').slice(0, 2).join(' ') }] as FollowTarget[]) {
      const listed = await followAndRead(target);
      expect(listed).toEqual(expectedBackfill(target));
    }
    const groceryAgain = await followAndRead(grocery);
    expect(groceryAgain).toContain(old.id);
    expect(groceryAgain).not.toContain(inWindow.id);
    const liveFollow = await followAndRead({ type: 'query', value: live.title });
    expect(liveFollow).toContain(live.id);
    if (quiet.entities.segments.includes('grocery')) expect(groceryAgain).toContain(quiet.id);
    expect(await followAndRead({ type: 'query', value: quiet.title })).toContain(quiet.id);
  }, 60_000);
});
