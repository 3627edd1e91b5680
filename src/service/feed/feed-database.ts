/**
 * The feed in the service's database (migration 4): sources with their state, fetch history,
 * feed signals, oracle items and proposals survive a restart, and the processes of a team server
 * (several services on one PostgreSQL) share them.
 *
 * Fetch leases: a source is fetched by one process at a time. Before fetching, a process takes
 * the source's lease with one conditional UPDATE (no live lease, and the source is due); PostgreSQL
 * row locking makes exactly one of two racing processes match. The lease is renewed while a long
 * fetch runs and freed in the transaction that stores the fetch, and the next fetch time is
 * written there, so the other process finds the source no longer due. A lease whose process died
 * runs out (LEASE_MS in feed-service.ts) and another process takes the source.
 *
 * Host slots (migration 7, decision 0040): on a shared database a host's turn is a lease too, a
 * row of feed_host_slots (holder, until), so one request per host is in flight for the whole team
 * server, and the host's next allowed request (`next_ms`: the politeness interval after the last
 * one, or its Retry-After) holds for every process.
 *
 * The feed's signals are rows of the service's `signals` table (origin 'feed', written through
 * SignalRepository) before the fetch's state: a crash between the two leaves signals whose fetch
 * is done again (a full GET, the same ids), never a kept ETag whose signals were lost.
 */
import type { Database } from '../store/database';
import { SIGNAL_BATCH, SignalRepository } from '../store/signal-repository';
import { emptyState, HISTORY_KEPT, type FeedRepository, type FetchOutcome, type FetchRecord, type OracleItem, type ProposalRecord, type SourceState, type StoredSource } from './feed-repository';
import type { FeedSignal } from './signal-extraction';
import type { FeedKind, FeedSourceRecord } from './source-registry';

interface SourceRow {
  id: string;
  name: string;
  kind: string;
  url: string;
  cadence_s: number;
  role: string;
  item_selector: string | null;
  paused: boolean;
  created_at: string;
  state: SourceState;
}

const SOURCE_COLUMNS = 'id, name, kind, url, cadence_s, role, item_selector, paused, created_at, state';

function stored(row: SourceRow): StoredSource {
  return {
    source: {
      id: row.id,
      name: row.name,
      kind: row.kind as FeedKind,
      url: row.url,
      cadence_s: row.cadence_s,
      role: row.role === 'oracle' ? 'oracle' : 'primary',
      ...(row.item_selector ? { item_selector: row.item_selector } : {}),
      paused: row.paused,
      created_at: row.created_at,
    },
    // A state written by an older shape gains the fields added since.
    state: { ...emptyState(), ...row.state },
  };
}

const nextFetchMs = (state: SourceState): number | null => (state.next_fetch_at ? Date.parse(state.next_fetch_at) : null);

export class DatabaseFeedRepository implements FeedRepository {
  readonly shared: boolean;
  private readonly signals: SignalRepository;

  constructor(private readonly db: Database) {
    this.signals = new SignalRepository(db);
    // An embedded database belongs to one process; a PostgreSQL one may be shared.
    this.shared = db.kind === 'postgres';
  }

  /** At start of the one process of an embedded database: leases left by a crash are void. */
  async releaseStaleLeases(): Promise<void> {
    if (!this.shared) await this.db.query('UPDATE feed_sources SET lease_owner = NULL, lease_until_ms = NULL WHERE lease_owner IS NOT NULL');
  }

  async loadSources(): Promise<StoredSource[]> {
    const rows = await this.db.query<SourceRow>(`SELECT ${SOURCE_COLUMNS} FROM feed_sources ORDER BY created_at, id`);
    return rows.map(stored);
  }

  async loadSource(id: string): Promise<StoredSource | null> {
    const [row] = await this.db.query<SourceRow>(`SELECT ${SOURCE_COLUMNS} FROM feed_sources WHERE id = $1`, [id]);
    return row ? stored(row) : null;
  }

  async insertSource(source: FeedSourceRecord): Promise<boolean> {
    const state = emptyState();
    const rows = await this.db.query(
      `INSERT INTO feed_sources (id, name, kind, url, cadence_s, role, item_selector, paused, created_at, state, next_fetch_ms, changed_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $11) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [source.id, source.name, source.kind, source.url, source.cadence_s, source.role, source.item_selector ?? null, source.paused, source.created_at, JSON.stringify(state), Date.now()],
    );
    return rows.length > 0;
  }

  async updateSource(source: FeedSourceRecord, state?: SourceState): Promise<StoredSource | null> {
    const params: unknown[] = [source.id, source.name, source.kind, source.url, source.cadence_s, source.role, source.item_selector ?? null, source.paused, Date.now()];
    let stateSql = '';
    if (state) {
      params.push(JSON.stringify(state), nextFetchMs(state));
      stateSql = ', state = $10, next_fetch_ms = $11';
    }
    const [row] = await this.db.query<SourceRow>(
      `UPDATE feed_sources SET name = $2, kind = $3, url = $4, cadence_s = $5, role = $6, item_selector = $7, paused = $8, changed_ms = $9${stateSql}
       WHERE id = $1 RETURNING ${SOURCE_COLUMNS}`,
      params,
    );
    return row ? stored(row) : null;
  }

  async deleteSource(id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM feed_sources WHERE id = $1 RETURNING id', [id])).length > 0;
  }

  async claim(id: string, owner: string, nowMs: number, leaseUntilMs: number, force: boolean): Promise<SourceState | null> {
    const [row] = await this.db.query<{ state: SourceState }>(
      `UPDATE feed_sources SET lease_owner = $2, lease_until_ms = $3
       WHERE id = $1 AND (lease_until_ms IS NULL OR lease_until_ms < $5)
         AND ($6 OR (NOT paused AND (next_fetch_ms IS NULL OR next_fetch_ms <= $4)))
       RETURNING state`,
      [id, owner, leaseUntilMs, nowMs, Date.now(), force],
    );
    return row ? { ...emptyState(), ...row.state } : null;
  }

  async renewLease(id: string, owner: string, leaseUntilMs: number): Promise<boolean> {
    return (await this.db.query('UPDATE feed_sources SET lease_until_ms = $3 WHERE id = $1 AND lease_owner = $2 RETURNING id', [id, owner, leaseUntilMs])).length > 0;
  }

  /**
   * A host's fetch slot: one atomic upsert takes it when it is free (no holder, or one whose lease
   * ran out) and the host's next request may start; of two racing processes, PostgreSQL's row
   * lock lets one through and re-checks the condition for the other. An embedded database has one
   * process, whose scheduler keeps the host's turn itself: no round trip.
   */
  async claimHost(host: string, holder: string, nowMs: number, untilMs: number, ignoreNext: boolean): Promise<boolean> {
    if (!this.shared) return true;
    const rows = await this.db.query(
      `INSERT INTO feed_host_slots AS slot (host, holder, until_ms, next_ms) VALUES ($1, $2, $3, 0)
       ON CONFLICT (host) DO UPDATE SET holder = EXCLUDED.holder, until_ms = EXCLUDED.until_ms
       WHERE (slot.holder IS NULL OR slot.until_ms < $4) AND ($5 OR slot.next_ms <= $4)
       RETURNING host`,
      [host, holder, untilMs, nowMs, ignoreNext],
    );
    return rows.length > 0;
  }

  async renewHost(host: string, holder: string, untilMs: number): Promise<boolean> {
    if (!this.shared) return true;
    return (await this.db.query('UPDATE feed_host_slots SET until_ms = $3 WHERE host = $1 AND holder = $2 RETURNING host', [host, holder, untilMs])).length > 0;
  }

  async releaseHost(host: string, holder: string, nextMs: number): Promise<void> {
    if (!this.shared) return;
    // The host's rest holds whoever has the slot now (a lease that ran out may have passed on).
    await this.db.query(
      `UPDATE feed_host_slots SET next_ms = GREATEST(next_ms, $3),
         holder = CASE WHEN holder = $2 THEN NULL ELSE holder END,
         until_ms = CASE WHEN holder = $2 THEN NULL ELSE until_ms END
       WHERE host = $1`,
      [host, holder, nextMs],
    );
  }

  async finishFetch(id: string, owner: string, outcome: FetchOutcome): Promise<boolean> {
    const storedMs = Date.now();
    await this.signals.put(outcome.signals);
    return this.db.transaction(async (tx) => {
      for (const item of outcome.oracleItems) {
        const { source_id: sourceId, ...kept } = item;
        await tx.query(
          `INSERT INTO feed_oracle_items (canonical_url, source_id, item, stored_ms) VALUES ($1, $2, $3, $4)
           ON CONFLICT (canonical_url) DO UPDATE SET item = EXCLUDED.item, stored_ms = EXCLUDED.stored_ms`,
          [item.canonical, sourceId, JSON.stringify(kept), storedMs],
        );
      }
      const updated = await tx.query(
        `UPDATE feed_sources SET state = $3, next_fetch_ms = $4, changed_ms = $5,
           lease_owner = CASE WHEN lease_owner = $2 THEN NULL ELSE lease_owner END,
           lease_until_ms = CASE WHEN lease_owner = $2 THEN NULL ELSE lease_until_ms END
         WHERE id = $1 RETURNING id`,
        [id, owner, JSON.stringify(outcome.state), nextFetchMs(outcome.state), storedMs],
      );
      // A source removed while its fetch ran leaves no state or history behind (its signals stay).
      if (updated.length === 0) return false;
      await tx.query('INSERT INTO feed_fetches (source_id, record) VALUES ($1, $2)', [id, JSON.stringify(outcome.record)]);
      await tx.query(
        `DELETE FROM feed_fetches WHERE source_id = $1 AND seq < (SELECT min(seq) FROM (SELECT seq FROM feed_fetches WHERE source_id = $1 ORDER BY seq DESC LIMIT $2) AS kept)`,
        [id, HISTORY_KEPT],
      );
      return true;
    });
  }

  async history(id: string, limit: number): Promise<FetchRecord[]> {
    const rows = await this.db.query<{ record: FetchRecord }>('SELECT record FROM feed_fetches WHERE source_id = $1 ORDER BY seq DESC LIMIT $2', [id, limit]);
    return rows.map((row) => row.record);
  }

  /** Feed signals first seen or updated since then (a fetch stamps both with its time), and oracle items stored since. */
  async signalsSince(sinceMs: number): Promise<{ signals: FeedSignal[]; oracleItems: OracleItem[] }> {
    const since = new Date(sinceMs).toISOString();
    const ids = await this.db.query<{ id: string }>("SELECT id FROM signals WHERE origin = 'feed' AND (first_seen_at >= $1 OR updated_at >= $1) ORDER BY first_seen_at, id", [since]);
    const signals: FeedSignal[] = [];
    for (let at = 0; at < ids.length; at += SIGNAL_BATCH) {
      signals.push(...((await this.signals.getMany(ids.slice(at, at + SIGNAL_BATCH).map((row) => row.id))) as FeedSignal[]));
    }
    return { signals, oracleItems: await this.oracleItemsSince(sinceMs) };
  }

  async oracleItemsSince(sinceMs: number): Promise<OracleItem[]> {
    const items = await this.db.query<{ item: OracleItem }>('SELECT item FROM feed_oracle_items WHERE stored_ms >= $1 ORDER BY stored_ms', [sinceMs]);
    return items.map((row) => row.item);
  }

  async listProposals(): Promise<ProposalRecord[]> {
    return this.db.query<ProposalRecord>('SELECT * FROM source_proposals ORDER BY proposed_at DESC, id');
  }

  async getProposal(id: string): Promise<ProposalRecord | null> {
    const [row] = await this.db.query<ProposalRecord>('SELECT * FROM source_proposals WHERE id = $1', [id]);
    return row ?? null;
  }

  async insertProposal(proposal: ProposalRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO source_proposals (id, url, name, kind, note, proposed_by, proposed_at, status, decided_at, reason, source_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [proposal.id, proposal.url, proposal.name, proposal.kind, proposal.note, proposal.proposed_by, proposal.proposed_at, proposal.status, proposal.decided_at, proposal.reason, proposal.source_id],
    );
  }

  async decideProposal(decided: ProposalRecord): Promise<ProposalRecord | null> {
    // Only a pending proposal is decided: of two administrators deciding at once, one wins.
    const [row] = await this.db.query<ProposalRecord>(
      "UPDATE source_proposals SET status = $2, decided_at = $3, reason = $4, source_id = $5 WHERE id = $1 AND status = 'pending' RETURNING *",
      [decided.id, decided.status, decided.decided_at, decided.reason, decided.source_id],
    );
    return row ?? null;
  }
}
