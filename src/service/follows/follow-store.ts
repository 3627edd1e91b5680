/**
 * Follows and the follow feed. A follow matches live signals that arrive after it was made;
 * arrivals are kept in an append-only log (sequence numbers are the feed's cursor), so a
 * new signal is in every matching feed the moment it arrives. A new follow also brings the
 * matching signals of the last BACKFILL_DAYS into its owner's feed at once (newest
 * BACKFILL_MAX), so it does not start empty; they come after the owner's cursor, so the feed
 * marks them new like any arrival, and later arrivals are new after they are read. Follows are
 * kept in the service's database; the log lives in memory beside the generated corpus it points
 * into (a restart starts a new feed).
 */
import { randomBytes } from 'node:crypto';
import type { FeedItem, FollowTarget } from '../../shared/surface-schemas';
import type { CorpusSignal } from '../corpus/generator';
import type { SignalStore } from '../signal-store';
import type { Database } from '../store/database';
import { discoverItem, matchesTarget } from './signal-query';

export interface FollowRecord {
  id: string;
  owner: string;
  target: FollowTarget;
  createdAt: string;
}

interface Arrival {
  seq: number;
  signal: CorpusSignal;
  at: number;
  /** A recent signal brought in when this follow was made: in that follow's feed only, no webhook. */
  backfillFor?: string;
}

/** A new follow shows the matching signals published in the last 30 days, at most 50. */
export const BACKFILL_DAYS = 30;
export const BACKFILL_MAX = 50;

/** Arrivals kept for feeds; a reader further behind than this starts at the oldest kept. */
const LOG_CAPACITY = 20_000;
export const FEED_PAGE_SIZE = 50;

interface FollowRow {
  id: string;
  owner: string;
  target: FollowTarget;
  created_at: string;
}
const followRecord = (row: FollowRow): FollowRecord => ({ id: row.id, owner: row.owner, target: row.target, createdAt: row.created_at });

export class FollowStore {
  private readonly log: Arrival[] = [];
  private nextSeq = 1;
  private readonly matchListeners = new Set<(owner: string, follows: FollowRecord[], signal: CorpusSignal) => void>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: SignalStore,
    private readonly now: () => number,
    private readonly db: Database,
  ) {
    this.unsubscribe = store.onSignalAdded((signal) => this.arrive(signal));
  }

  close(): void {
    this.unsubscribe();
  }

  /** Called with the owner's matched follows for each new signal (webhook `follow.matched`). */
  onMatch(listener: (owner: string, follows: FollowRecord[], signal: CorpusSignal) => void): () => void {
    this.matchListeners.add(listener);
    return () => this.matchListeners.delete(listener);
  }

  async list(owner: string): Promise<FollowRecord[]> {
    return (await this.db.query<FollowRow>('SELECT id, owner, target, created_at FROM follows WHERE owner = $1 ORDER BY created_at, id', [owner])).map(followRecord);
  }

  async find(owner: string, target: FollowTarget): Promise<FollowRecord | undefined> {
    return (await this.list(owner)).find((follow) => follow.target.type === target.type && follow.target.value.toLowerCase() === target.value.toLowerCase());
  }

  /** Adds a follow; resolves once it is stored. */
  async add(owner: string, target: FollowTarget): Promise<FollowRecord> {
    const record: FollowRecord = { id: `fol_${randomBytes(8).toString('hex')}`, owner, target, createdAt: new Date(this.now()).toISOString() };
    await this.db.query('INSERT INTO follows (id, owner, target, created_at) VALUES ($1, $2, $3, $4)', [record.id, owner, JSON.stringify(target), record.createdAt]);
    this.backfill(record);
    return record;
  }

  private backfill(follow: FollowRecord): void {
    const since = new Date(this.now() - BACKFILL_DAYS * 86_400_000).toISOString();
    const until = new Date(this.now()).toISOString();
    const recent = [...this.store.allSignals()]
      .filter((signal) => signal.published_at >= since && signal.published_at <= until && matchesTarget(signal, follow.target))
      .sort((a, b) => b.published_at.localeCompare(a.published_at) || b.id.localeCompare(a.id))
      .slice(0, BACKFILL_MAX)
      .reverse();
    for (const signal of recent) {
      this.log.push({ seq: this.nextSeq, signal, at: Date.parse(signal.published_at), backfillFor: follow.id });
      this.nextSeq += 1;
    }
    if (this.log.length > LOG_CAPACITY) this.log.splice(0, this.log.length - LOG_CAPACITY);
  }

  async remove(owner: string, id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM follows WHERE id = $1 AND owner = $2 RETURNING id', [id, owner])).length > 0;
  }

  /**
   * New signals matching any of the owner's follows, oldest first, after `cursor` (an
   * arrival sequence number). `nextCursor` moves past everything examined, matched or not.
   */
  async feed(owner: string, cursor: number): Promise<{ items: FeedItem[]; nextCursor: number; hasMore: boolean }> {
    const follows = await this.list(owner);
    const items: FeedItem[] = [];
    let nextCursor = Math.max(cursor, this.nextSeq - 1 - this.log.length);
    if (follows.length === 0) return { items, nextCursor: this.nextSeq - 1, hasMore: false };
    for (const arrival of this.log) {
      if (arrival.seq <= cursor) continue;
      if (items.length === FEED_PAGE_SIZE) return { items, nextCursor, hasMore: true };
      nextCursor = arrival.seq;
      const matched = arrival.backfillFor
        ? follows.filter((follow) => follow.id === arrival.backfillFor)
        : follows.filter((follow) => Date.parse(follow.createdAt) <= arrival.at && matchesTarget(arrival.signal, follow.target));
      if (matched.length > 0) {
        items.push({ signal: discoverItem(this.store, arrival.signal), matched: matched.map((f) => f.id), arrived_at: new Date(arrival.at).toISOString() });
      }
    }
    return { items, nextCursor: Math.max(nextCursor, cursor), hasMore: false };
  }

  private arrive(signal: CorpusSignal): void {
    const arrival: Arrival = { seq: this.nextSeq, signal, at: this.now() };
    this.nextSeq += 1;
    this.log.push(arrival);
    if (this.log.length > LOG_CAPACITY) this.log.splice(0, this.log.length - LOG_CAPACITY);
    if (this.matchListeners.size === 0) return;
    void this.notifyMatches(signal).catch(() => undefined);
  }

  /** Tells the listeners whose follows a new signal matches (a database outage skips this signal's webhooks). */
  private async notifyMatches(signal: CorpusSignal): Promise<void> {
    const all = (await this.db.query<FollowRow>('SELECT id, owner, target, created_at FROM follows ORDER BY created_at, id')).map(followRecord);
    const byOwner = new Map<string, FollowRecord[]>();
    for (const follow of all) {
      if (!matchesTarget(signal, follow.target)) continue;
      byOwner.set(follow.owner, [...(byOwner.get(follow.owner) ?? []), follow]);
    }
    for (const [owner, matched] of byOwner) for (const listener of this.matchListeners) listener(owner, matched, signal);
  }

}
