/**
 * Where the feed keeps what must outlive a fetch: sources, each source's state and fetch history,
 * the signals it produced, and proposals. One small interface so the storage layer (the service's
 * database, issue 27) can implement it; until it lands, this in-memory implementation is the one in
 * use and nothing survives a restart of the service. Persistence across restart arrives with the
 * storage layer.
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

export interface FeedRepository {
  listSources(): FeedSourceRecord[];
  putSource(source: FeedSourceRecord): void;
  deleteSource(id: string): void;
  getState(id: string): SourceState;
  putState(id: string, state: SourceState): void;
  appendFetch(id: string, record: FetchRecord): void;
  history(id: string, limit: number): FetchRecord[];
  listSignals(): FeedSignal[];
  putSignal(signal: FeedSignal): void;
  listProposals(): ProposalRecord[];
  getProposal(id: string): ProposalRecord | undefined;
  putProposal(proposal: ProposalRecord): void;
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

const HISTORY_KEPT = 50;

export class InMemoryFeedRepository implements FeedRepository {
  private readonly sources = new Map<string, FeedSourceRecord>();
  private readonly states = new Map<string, SourceState>();
  private readonly fetches = new Map<string, FetchRecord[]>();
  private readonly signals = new Map<string, FeedSignal>();
  private readonly proposals = new Map<string, ProposalRecord>();

  listSources(): FeedSourceRecord[] {
    return [...this.sources.values()];
  }
  putSource(source: FeedSourceRecord): void {
    this.sources.set(source.id, source);
  }
  deleteSource(id: string): void {
    this.sources.delete(id);
    this.states.delete(id);
    this.fetches.delete(id);
  }
  getState(id: string): SourceState {
    return this.states.get(id) ?? emptyState();
  }
  putState(id: string, state: SourceState): void {
    this.states.set(id, state);
  }
  appendFetch(id: string, record: FetchRecord): void {
    const list = this.fetches.get(id) ?? [];
    list.push(record);
    if (list.length > HISTORY_KEPT) list.splice(0, list.length - HISTORY_KEPT);
    this.fetches.set(id, list);
  }
  history(id: string, limit: number): FetchRecord[] {
    return (this.fetches.get(id) ?? []).slice(-limit).reverse();
  }
  listSignals(): FeedSignal[] {
    return [...this.signals.values()];
  }
  putSignal(signal: FeedSignal): void {
    this.signals.set(signal.id, signal);
  }
  listProposals(): ProposalRecord[] {
    return [...this.proposals.values()];
  }
  getProposal(id: string): ProposalRecord | undefined {
    return this.proposals.get(id);
  }
  putProposal(proposal: ProposalRecord): void {
    this.proposals.set(proposal.id, proposal);
  }
}
