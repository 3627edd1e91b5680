/**
 * Where the feed keeps what must outlive a fetch: sources, each source's state and fetch history,
 * the signals it produced, oracle items, and proposals. The service keeps them in its database
 * (feed-database.ts: embedded or PostgreSQL, so they survive a restart and a team server's
 * processes share them); this in-memory implementation serves a FeedService used on its own
 * (tests of the fetcher, the ingest benchmark).
 */
import type { FailureKind } from './feed-failure';
import type { FeedSignal } from './signal-extraction';
import type { FeedSourceRecord } from './source-registry';
export interface FetchRecord {
  at: string;
  ok: boolean;
  status: number | null;
  not_modified: boolean;
  items: number;
  new_items: number;
  duration_ms: number;
  error: { kind: FailureKind; message: string } | null;
  /** Items the source gave in all, and those not kept with the reason (feeds only). */
  items_total?: number;
  dropped?: Array<{ title: string; id: string | null; reason: string }>;
}

export interface SourceState {
  last_fetch_at: string | null;
  last_success_at: string | null;
  consecutive_failures: number;
  last_error: { kind: FailureKind; message: string; at: string } | null;
  /** The last fetch worked but something in it did not (a corrupt file in a folder). */
  last_partial: { kind: FailureKind; message: string; at: string } | null;
  next_fetch_at: string | null;
  etag: string | null;
  last_modified: string | null;
  fetches: number;
  not_modified: number;
  items_total: number;
  /** Folder sources: each file's mtime and size at its last read. */
  files: Record<string, string>;
}

export interface ProposalRecord {
  id: string;
  url: string;
  name: string | null;
  /** The kind the proposer suggested (free text). */
  kind: string | null;
  note: string | null;
  proposed_by: string;
  proposed_at: string;
  status: 'pending' | 'accepted' | 'rejected';
  decided_at: string | null;
  reason: string | null;
  source_id: string | null;
}

/** An oracle item: a reference feed's story, kept to measure what the primary sources missed. */
export interface OracleItem {
  title: string;
  /** Null for an item without a link of its own. */
  url: string | null;
  canonical: string;
  published_at: string;
  text: string;
}

export interface StoredSource {
  source: FeedSourceRecord;
  state: SourceState;
}

/** What one finished fetch changes, written together (one transaction in the database). */
export interface FetchOutcome {
  state: SourceState;
  record: FetchRecord;
  signals: FeedSignal[];
  oracleItems: Array<OracleItem & { source_id: string }>;
}

export interface FeedRepository {
  /** True when other processes write to the same store (a team server): the feed then re-reads it. */
  readonly shared: boolean;
  loadSources(): Promise<StoredSource[]>;
  loadSource(id: string): Promise<StoredSource | null>;
  /** Adds a source with a fresh state; false when its id is taken. */
  insertSource(source: FeedSourceRecord): Promise<boolean>;
  /** Replaces a source's definition; `state` too when given. Null when there is no such source. */
  updateSource(source: FeedSourceRecord, state?: SourceState): Promise<StoredSource | null>;
  deleteSource(id: string): Promise<boolean>;
  /**
   * Takes the fetch lease of a source for `owner` until `leaseUntilMs` when no live lease is held
   * and the source is due (`force`: due or not, as for "fetch now"). Its state then, or null.
   */
  claim(id: string, owner: string, nowMs: number, leaseUntilMs: number, force: boolean): Promise<SourceState | null>;
  /** Extends a lease this owner holds (a long fetch); false when it is no longer held. */
  renewLease(id: string, owner: string, leaseUntilMs: number): Promise<boolean>;
  /**
   * Takes a host's fetch slot for `holder` until `untilMs`, when no live holder has it and the
   * host's next request may start (`ignoreNext`: a "fetch now", which waits only for a request
   * in flight). True when taken. A team server's processes share the slots (decision 0040).
   */
  claimHost(host: string, holder: string, nowMs: number, untilMs: number, ignoreNext: boolean): Promise<boolean>;
  /** Extends a host slot this holder has (a long fetch); false when it is no longer held. */
  renewHost(host: string, holder: string, untilMs: number): Promise<boolean>;
  /** Frees the holder's slot; no request to the host starts before `nextMs` (interval, Retry-After), whoever holds it. */
  releaseHost(host: string, holder: string, nextMs: number): Promise<void>;
  /** Stores a fetch's signals, oracle items, state and history record, and frees the lease. False when the source is gone. */
  finishFetch(id: string, owner: string, outcome: FetchOutcome): Promise<boolean>;
  history(id: string, limit: number): Promise<FetchRecord[]>;
  /** Feed signals and oracle items stored at or after `sinceMs` (all of them from 0). */
  signalsSince(sinceMs: number): Promise<{ signals: FeedSignal[]; oracleItems: OracleItem[] }>;
  /** Oracle items stored at or after `sinceMs` (a start whose signals were read by stored-signals.ts). */
  oracleItemsSince(sinceMs: number): Promise<OracleItem[]>;
  listProposals(): Promise<ProposalRecord[]>;
  getProposal(id: string): Promise<ProposalRecord | null>;
  insertProposal(proposal: ProposalRecord): Promise<void>;
  /** Records a decision on a pending proposal; null when it is not pending (any more). */
  decideProposal(decided: ProposalRecord): Promise<ProposalRecord | null>;
}

export function emptyState(): SourceState {
  return {
    last_fetch_at: null,
    last_success_at: null,
    consecutive_failures: 0,
    last_error: null,
    last_partial: null,
    next_fetch_at: null,
    etag: null,
    last_modified: null,
    fetches: 0,
    not_modified: 0,
    items_total: 0,
    files: {},
  };
}

/** Fetch records kept per source (the newest). */
export const HISTORY_KEPT = 50;

export class InMemoryFeedRepository implements FeedRepository {
  readonly shared = false;
  private readonly sources = new Map<string, StoredSource & { lease: { owner: string; until: number } | null }>();
  private readonly fetches = new Map<string, FetchRecord[]>();
  private readonly signals = new Map<string, FeedSignal>();
  private readonly oracle = new Map<string, OracleItem>();
  private readonly proposals = new Map<string, ProposalRecord>();

  async loadSources(): Promise<StoredSource[]> {
    return [...this.sources.values()].map(({ source, state }) => ({ source, state }));
  }
  async loadSource(id: string): Promise<StoredSource | null> {
    const stored = this.sources.get(id);
    return stored ? { source: stored.source, state: stored.state } : null;
  }
  async insertSource(source: FeedSourceRecord): Promise<boolean> {
    if (this.sources.has(source.id)) return false;
    this.sources.set(source.id, { source, state: emptyState(), lease: null });
    return true;
  }
  async updateSource(source: FeedSourceRecord, state?: SourceState): Promise<StoredSource | null> {
    const stored = this.sources.get(source.id);
    if (!stored) return null;
    stored.source = source;
    if (state) stored.state = state;
    return { source: stored.source, state: stored.state };
  }
  async deleteSource(id: string): Promise<boolean> {
    this.fetches.delete(id);
    return this.sources.delete(id);
  }
  async claim(id: string, owner: string, nowMs: number, leaseUntilMs: number, force: boolean): Promise<SourceState | null> {
    const stored = this.sources.get(id);
    if (!stored || (stored.lease && stored.lease.until >= Date.now())) return null;
    if (!force && (stored.source.paused || (stored.state.next_fetch_at && Date.parse(stored.state.next_fetch_at) > nowMs))) return null;
    stored.lease = { owner, until: leaseUntilMs };
    return stored.state;
  }
  async renewLease(id: string, owner: string, leaseUntilMs: number): Promise<boolean> {
    const stored = this.sources.get(id);
    if (!stored?.lease || stored.lease.owner !== owner) return false;
    stored.lease.until = leaseUntilMs;
    return true;
  }
  /** One process: its own scheduler keeps one request per host (hostBusy, hostLastAt in feed-service.ts). */
  async claimHost(): Promise<boolean> {
    return true;
  }
  async renewHost(): Promise<boolean> {
    return true;
  }
  async releaseHost(): Promise<void> {}
  async finishFetch(id: string, owner: string, outcome: FetchOutcome): Promise<boolean> {
    for (const signal of outcome.signals) this.signals.set(signal.id, signal);
    for (const { source_id: _source, ...item } of outcome.oracleItems) this.oracle.set(item.canonical, item);
    const stored = this.sources.get(id);
    if (!stored) return false;
    stored.state = outcome.state;
    if (stored.lease?.owner === owner) stored.lease = null;
    const list = this.fetches.get(id) ?? [];
    list.push(outcome.record);
    if (list.length > HISTORY_KEPT) list.splice(0, list.length - HISTORY_KEPT);
    this.fetches.set(id, list);
    return true;
  }
  async history(id: string, limit: number): Promise<FetchRecord[]> {
    return (this.fetches.get(id) ?? []).slice(-limit).reverse();
  }
  async signalsSince(): Promise<{ signals: FeedSignal[]; oracleItems: OracleItem[] }> {
    return { signals: [...this.signals.values()], oracleItems: [...this.oracle.values()] };
  }
  async oracleItemsSince(): Promise<OracleItem[]> {
    return [...this.oracle.values()];
  }
  async listProposals(): Promise<ProposalRecord[]> {
    return [...this.proposals.values()];
  }
  async getProposal(id: string): Promise<ProposalRecord | null> {
    return this.proposals.get(id) ?? null;
  }
  async insertProposal(proposal: ProposalRecord): Promise<void> {
    this.proposals.set(proposal.id, proposal);
  }
  async decideProposal(decided: ProposalRecord): Promise<ProposalRecord | null> {
    if (this.proposals.get(decided.id)?.status !== 'pending') return null;
    this.proposals.set(decided.id, decided);
    return decided;
  }
}
