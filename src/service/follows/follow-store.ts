/**
 * Follows and the follow feed. A follow matches live signals that arrive after it was made;
 * arrivals are rows of `signal_arrivals` (migration 6) whose sequence numbers are the feed's
 * cursor, so a cursor one process of a team server issued is good on every other, and after a
 * restart. A new follow also brings the matching signals of the last BACKFILL_DAYS into its
 * owner's feed at once (newest BACKFILL_MAX), so it does not start empty; they come after the
 * owner's cursor, so the feed marks them new like any arrival, and later arrivals are new after
 * they are read. A signal can have several rows (its live arrival and other follows' backfills):
 * a feed lists it once, at the first of them one of the owner's follows matched (decision 0040).
 *
 * The process that takes a signal in (its feed fetched it, or the sample's replay made it) writes
 * its arrival; a feed signal's row is claimed by its id, so when two processes announce the same
 * signal one row is written and only its writer tells the match listeners (webhooks are sent
 * once). Rows are written in order under a lock on PostgreSQL, so sequence numbers become
 * visible in order and no reader's cursor can pass one still being written.
 */
import { randomBytes } from 'node:crypto';
import type { DiscoverItem, FeedItem, FollowTarget } from '../../shared/surface-schemas';
import type { CorpusSignal, SignalType } from '../world/signal-types';
import type { SignalStore } from '../signal-store';
import type { Database, Queryable } from '../store/database';
import { discoverItem, lazyWords, targetMatcher } from './signal-query';
import { SignalsByDate } from './signals-by-date';

export interface FollowRecord {
  id: string;
  owner: string;
  target: FollowTarget;
  createdAt: string;
}

/** An arrival waiting to be written (in the order it came). */
interface PendingArrival {
  item: DiscoverItem;
  /** The signal, for the match listeners (null: a backfill, which tells none). */
  signal: CorpusSignal | null;
  atMs: number;
  /** A recent signal brought in when this follow was made: in that follow's feed only, no webhook. */
  backfillFor: string | null;
  /** A feed signal's id: its arrival is written once across processes (null: always written). */
  claimKey: string | null;
}

interface ArrivalRow {
  seq: string | number;
  signal_id: string;
  item: DiscoverItem;
  at_ms: number;
  backfill_for: string | null;
}

/** A new follow shows the matching signals published in the last 30 days, at most 50. */
export const BACKFILL_DAYS = 30;
export const BACKFILL_MAX = 50;

/** Arrivals kept for feeds; a reader further behind than this starts at the oldest kept. */
const LOG_CAPACITY = 20_000;
export const FEED_PAGE_SIZE = 50;
/** Arrival rows read at a time while a feed page is filled. */
const READ_CHUNK = 500;
/** Arrivals written per statement. */
const WRITE_BATCH = 500;
/** A write that failed (database away) is tried again after this long; arrivals wait in order. */
const RETRY_MS = 1_000;
/** Serialises arrival writes of a team's processes (pg_advisory_xact_lock key). */
const ARRIVAL_LOCK = 27_0006;
/** With the owner's hash: serialises one caller's follow changes across a team's processes. */
const FOLLOW_LOCK = 27_0007;

interface FollowRow {
  id: string;
  owner: string;
  target: FollowTarget;
  created_at: string;
}
const followRecord = (row: FollowRow): FollowRecord => ({ id: row.id, owner: row.owner, target: row.target, createdAt: row.created_at });

export class FollowStore {
  private readonly queue: PendingArrival[] = [];
  private writing: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  /** Set by close(): a failed write is not tried again later (the database is about to close). */
  private closing = false;
  /** Set once close() has written what was queued: nothing more is written. */
  private closed = false;
  private closeDone: Promise<void> | null = null;
  /** Match notifications under way (each reads the follows); close() waits for them. */
  private readonly notifying = new Set<Promise<void>>();
  private readonly matchListeners = new Set<(owner: string, follows: FollowRecord[], signal: CorpusSignal) => void>();
  private readonly unsubscribe: () => void;
  /** The store's signals by publication date: a backfill reads its window, not every signal. */
  private readonly byDate: SignalsByDate;

  constructor(
    private readonly store: SignalStore,
    private readonly now: () => number,
    private readonly db: Database,
  ) {
    this.unsubscribe = store.onSignalAdded((signal) => this.arrive(signal));
    this.byDate = new SignalsByDate(store);
  }

  /**
   * Stops taking arrivals in and resolves once those queued are written: the caller closes the
   * database after this. Before, close() dropped the queue, so arrivals taken in just before a
   * shutdown (a feed fetch, a replayed sample signal, a new follow's backfill) never reached any
   * feed, and a cursor issued after them could not see them after the restart either. A write
   * that fails here (the database already away) is not retried: those arrivals are lost, as a
   * write cannot outlive the database.
   */
  close(): Promise<void> {
    this.closeDone ??= (async () => {
      this.closing = true;
      this.unsubscribe();
      this.byDate.close();
      if (this.retry) clearTimeout(this.retry);
      this.retry = null;
      // A write under way goes on through everything queued when it started and since.
      await this.writing;
      // Still queued (it waited for a retry, or came as that write ended): written now, once.
      if (this.queue.length > 0) await this.flush();
      this.closed = true;
      // The written arrivals' listeners (webhooks store their deliveries) are told before the database closes.
      await Promise.all(this.notifying);
    })();
    return this.closeDone;
  }

  /** Called with the owner's matched follows for each new signal (webhook `follow.matched`). */
  onMatch(listener: (owner: string, follows: FollowRecord[], signal: CorpusSignal) => void): () => void {
    this.matchListeners.add(listener);
    return () => this.matchListeners.delete(listener);
  }

  async list(owner: string): Promise<FollowRecord[]> {
    return (await this.db.query<FollowRow>('SELECT id, owner, target, created_at FROM follows WHERE owner = $1 ORDER BY created_at, id', [owner])).map(followRecord);
  }

  async find(owner: string, target: FollowTarget, db: Queryable = this.db): Promise<FollowRecord | undefined> {
    // Compared here, not with SQL's lower(): a C-locale database lower-cases ASCII only.
    const wanted = target.value.toLowerCase();
    const rows = await db.query<FollowRow>(
      "SELECT id, owner, target, created_at FROM follows WHERE owner = $1 AND target->>'type' = $2 ORDER BY created_at, id",
      [owner, target.type],
    );
    const row = rows.find((candidate) => candidate.target.value.toLowerCase() === wanted);
    return row ? followRecord(row) : undefined;
  }

  /**
   * Adds a follow unless the owner already follows the target (then that one, `created: false`)
   * or already holds `limit` follows (then `null`); resolves once a new one and its backfill are
   * stored. The test and the insert are one transaction, under a lock on the owner on PostgreSQL,
   * so a team's processes taking the same caller's follows at once cannot pass the limit.
   */
  async add(owner: string, target: FollowTarget, limit: number): Promise<{ follow: FollowRecord; created: boolean } | null> {
    const record: FollowRecord = { id: `fol_${randomBytes(8).toString('hex')}`, owner, target, createdAt: new Date(this.now()).toISOString() };
    const outcome = await this.db.transaction(async (tx) => {
      if (this.db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [FOLLOW_LOCK, owner]);
      const existing = await this.find(owner, target, tx);
      if (existing) return { follow: existing, created: false };
      const [count] = await tx.query<{ n: string | number }>('SELECT count(*) AS n FROM follows WHERE owner = $1', [owner]);
      if (Number(count?.n ?? 0) >= limit) return null;
      await tx.query('INSERT INTO follows (id, owner, target, created_at) VALUES ($1, $2, $3, $4)', [record.id, owner, JSON.stringify(target), record.createdAt]);
      return { follow: record, created: true };
    });
    if (outcome?.created) {
      this.backfill(record);
      await this.settle();
    }
    return outcome;
  }

  private backfill(follow: FollowRecord): void {
    const since = new Date(this.now() - BACKFILL_DAYS * 86_400_000).toISOString();
    const until = new Date(this.now()).toISOString();
    // The signals of the window only (by date), the target tokenized once, each signal's words kept.
    const matches = targetMatcher(follow.target);
    const recent = this.byDate
      .between(since, until)
      .filter((signal) => matches(signal))
      .sort((a, b) => b.published_at.localeCompare(a.published_at) || b.id.localeCompare(a.id))
      .slice(0, BACKFILL_MAX)
      .reverse();
    for (const signal of recent) {
      this.queue.push({ item: discoverItem(this.store, signal), signal: null, atMs: Date.parse(signal.published_at), backfillFor: follow.id, claimKey: null });
    }
    void this.flush();
  }

  async remove(owner: string, id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM follows WHERE id = $1 AND owner = $2 RETURNING id', [id, owner])).length > 0;
  }

  /**
   * New signals matching any of the owner's follows, oldest first, after `cursor` (an arrival
   * sequence number). The order is the arrival sequence the database gave (one number per row,
   * rows of one write in their order), so a page starts exactly where the last ended, also while
   * arrivals are written. A signal with several rows (a live arrival and follows' backfills, or
   * one arrival per process of a sample signal) is listed once, at its first row that one of the
   * owner's follows matched, naming every follow any of its rows matched; a later row of it is
   * passed over. `nextCursor` moves past everything examined, matched or not; `hasMore` is true
   * only when one more item was found after the page.
   */
  async feed(owner: string, cursor: number): Promise<{ items: FeedItem[]; nextCursor: number; hasMore: boolean }> {
    // What this process took in is in its callers' feeds at once.
    await this.settle();
    const follows = await this.list(owner);
    const [bounds] = await this.db.query<{ oldest: string | number | null; newest: string | number | null }>('SELECT min(seq) AS oldest, max(seq) AS newest FROM signal_arrivals');
    const newest = Number(bounds?.newest ?? 0);
    const oldest = bounds?.oldest === null || bounds?.oldest === undefined ? newest + 1 : Number(bounds.oldest);
    const items: FeedItem[] = [];
    if (follows.length === 0) return { items, nextCursor: newest, hasMore: false };
    // A cursor past the newest arrival (not one this database issued) reads from now on.
    const from = Math.min(cursor, newest);
    let nextCursor = Math.max(from, oldest - 1);
    let after = nextCursor;
    const ids = follows.map((follow) => follow.id);
    // Each follow's target made ready once, each row's words computed at most once (a team
    // caller may hold 1,000 follows: not 1,000 tokenizations of every arrival).
    const matchers = follows.map((follow) => ({ follow, createdMs: Date.parse(follow.createdAt), matches: targetMatcher(follow.target) }));
    /** The owner's follows one arrival row matched (a backfill: its follow; live: by target and time). */
    const matchedBy = (row: ArrivalRow): Set<string> => {
      if (row.backfill_for) return new Set(ids.includes(row.backfill_for) ? [row.backfill_for] : []);
      const signal = signalOf(row.item);
      const words = lazyWords(signal);
      return new Set(matchers.filter(({ createdMs, matches }) => createdMs <= row.at_ms && matches(signal, words)).map(({ follow }) => follow.id));
    };
    for (;;) {
      const rows = await this.db.query<ArrivalRow>(
        `SELECT seq, signal_id, item, at_ms, backfill_for FROM signal_arrivals
         WHERE seq > $1 AND (backfill_for IS NULL OR backfill_for = ANY($2::text[])) ORDER BY seq LIMIT $3`,
        [after, ids, READ_CHUNK],
      );
      if (rows.length === 0) break;
      const last = Number(rows[rows.length - 1]!.seq);
      // The same signals' other rows (before this chunk, or written after it): where each is listed.
      const others = await this.db.query<ArrivalRow>(
        `SELECT seq, signal_id, item, at_ms, backfill_for FROM signal_arrivals
         WHERE signal_id = ANY($1::text[]) AND (seq <= $2 OR seq > $3) AND (backfill_for IS NULL OR backfill_for = ANY($4::text[]))`,
        [[...new Set(rows.map((row) => row.signal_id))], after, last, ids],
      );
      const placed = placeSignals([...rows, ...others], matchedBy);
      for (const row of rows) {
        const place = placed.get(row.signal_id);
        if (place?.seq === Number(row.seq)) {
          // One more item than a page holds: there is more, and the page ends before it.
          if (items.length === FEED_PAGE_SIZE) return { items, nextCursor, hasMore: true };
          // Listed as this process holds it now (an update since shows), else as it arrived.
          const held = this.store.getSignal(row.item.id);
          const matched = ids.filter((id) => place.follows.has(id));
          items.push({ signal: held ? discoverItem(this.store, held) : row.item, matched, arrived_at: new Date(row.at_ms).toISOString() });
        }
        nextCursor = Number(row.seq);
      }
      if (rows.length < READ_CHUNK) break;
      after = last;
    }
    return { items, nextCursor: Math.max(nextCursor, from), hasMore: false };
  }

  private arrive(signal: CorpusSignal): void {
    const fromFeed = 'origin' in signal && signal.origin === 'feed';
    this.queue.push({ item: discoverItem(this.store, signal), signal, atMs: this.now(), backfillFor: null, claimKey: fromFeed ? signal.id : null });
    void this.flush();
  }

  /** Waits until the arrivals taken in so far are written (or their write failed and waits to be tried again). */
  private async settle(): Promise<void> {
    await this.flush();
    if (this.queue.length > 0 && !this.retry) await this.flush();
  }

  private flush(): Promise<void> {
    if (this.writing || this.retry || this.closed) return this.writing ?? Promise.resolve();
    this.writing = this.drain().finally(() => {
      this.writing = null;
      // While closing, close() writes what is left itself (a write started here would run beside it).
      if (this.queue.length > 0 && !this.retry && !this.closing && !this.closed) void this.flush();
    });
    return this.writing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.closed) {
      const batch = this.queue.slice(0, WRITE_BATCH);
      let written: Set<string>;
      try {
        written = await this.db.transaction((tx) => this.write(tx, batch));
      } catch {
        // Closing: no later try (the database closes next); close() resolves with them unwritten.
        if (this.closing) return;
        // The database is away: the arrivals wait, in order, and are written when it is back.
        this.retry = setTimeout(() => {
          this.retry = null;
          void this.flush();
        }, RETRY_MS);
        this.retry.unref();
        return;
      }
      this.queue.splice(0, batch.length);
      if (this.matchListeners.size === 0) continue;
      for (const arrival of batch) {
        if (!arrival.signal || (arrival.claimKey !== null && !written.has(arrival.claimKey))) continue;
        const notifying = this.notifyMatches(arrival.signal).catch(() => undefined);
        this.notifying.add(notifying);
        void notifying.finally(() => this.notifying.delete(notifying));
      }
    }
  }

  /** Writes a batch of arrivals in order; returns the claim keys this write won. */
  private async write(tx: Queryable, batch: PendingArrival[]): Promise<Set<string>> {
    if (this.db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [ARRIVAL_LOCK]);
    const rows = batch.map((arrival, n) => ({ n, signal_id: arrival.item.id, item: arrival.item, at_ms: arrival.atMs, backfill_for: arrival.backfillFor, claim_key: arrival.claimKey }));
    const claimed = await tx.query<{ claim_key: string | null }>(
      `INSERT INTO signal_arrivals (signal_id, item, at_ms, backfill_for, claim_key)
       SELECT signal_id, item, at_ms, backfill_for, claim_key
       FROM jsonb_to_recordset($1::jsonb) AS r(n integer, signal_id text, item jsonb, at_ms double precision, backfill_for text, claim_key text)
       WHERE backfill_for IS NULL OR EXISTS (SELECT 1 FROM follows WHERE follows.id = r.backfill_for)
       ORDER BY n
       ON CONFLICT (claim_key) DO NOTHING
       RETURNING claim_key`,
      [JSON.stringify(rows)],
    );
    await tx.query('DELETE FROM signal_arrivals WHERE seq <= (SELECT max(seq) FROM signal_arrivals) - $1', [LOG_CAPACITY]);
    return new Set(claimed.flatMap((row) => (row.claim_key === null ? [] : [row.claim_key])));
  }

  /** Tells the listeners whose follows a new signal matches (a database outage skips this signal's webhooks). */
  private async notifyMatches(signal: CorpusSignal): Promise<void> {
    const all = (await this.db.query<FollowRow>('SELECT id, owner, target, created_at FROM follows ORDER BY created_at, id')).map(followRecord);
    const byOwner = new Map<string, FollowRecord[]>();
    const words = lazyWords(signal);
    for (const follow of all) {
      if (!targetMatcher(follow.target)(signal, words)) continue;
      byOwner.set(follow.owner, [...(byOwner.get(follow.owner) ?? []), follow]);
    }
    for (const [owner, matched] of byOwner) for (const listener of this.matchListeners) listener(owner, matched, signal);
  }
}

/** The signal as matching sees it, from its listed form (its body is not kept with the arrival). */
function signalOf(item: DiscoverItem): CorpusSignal {
  return {
    id: item.id,
    slug: item.slug,
    title: item.title,
    summary: item.summary,
    body: '',
    source_id: item.source.id,
    url: item.url,
    published_at: item.published_at,
    type: (item.type ?? 'market_update') as SignalType,
    entities: item.entities,
    metrics: item.metrics,
  };
}

/**
 * Where each signal of some arrival rows is listed in a feed: its first row (by sequence) that
 * matched one of the owner's follows, with every follow any of its rows matched.
 */
function placeSignals(rows: ArrivalRow[], matchedBy: (row: ArrivalRow) => Set<string>): Map<string, { seq: number; follows: Set<string> }> {
  const placed = new Map<string, { seq: number; follows: Set<string> }>();
  for (const row of [...rows].sort((a, b) => Number(a.seq) - Number(b.seq))) {
    const follows = matchedBy(row);
    if (follows.size === 0) continue;
    const place = placed.get(row.signal_id);
    if (place) for (const id of follows) place.follows.add(id);
    else placed.set(row.signal_id, { seq: Number(row.seq), follows });
  }
  return placed;
}
