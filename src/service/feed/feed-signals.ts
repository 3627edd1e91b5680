/**
 * Storing what a fetch read: the feed's signals and oracle items this process answers from, their
 * near-duplicate clusters (corroboration, confidence), and the entities learned from them (issue 43).
 * The store (signal-store.ts) is handed each signal; the database write is the fetch's (feed-service.ts).
 */
import type { SignalStore } from '../signal-store';
import { canonicalUrl } from './canonical-url';
import { EntityLearner } from './entity-learning';
import type { OracleItem } from './feed-repository';
import type { LearnedEntityStore } from './learned-entity-store';
import { NearDuplicateIndex } from './near-duplicate';
import { extractSignal, type ExtractInput, type FeedSignal } from './signal-extraction';
import type { FeedSourceRecord } from './source-registry';

/** Up to this many stored signals are clustered before start; more, after it (clusterInSlices). */
const CLUSTER_AT_LOAD = 2_000;
const CLUSTER_SLICE = 250;

export interface Ingested {
  items: number;
  newItems: number;
  /** Signals new or changed by this fetch (stored with it). */
  signals: FeedSignal[];
  oracleItems: Array<OracleItem & { source_id: string }>;
}

export class FeedSignals {
  readonly signals = new Map<string, FeedSignal>();
  readonly oracleItems = new Map<string, OracleItem>();
  readonly duplicates = new NearDuplicateIndex(0.7);
  /** The stored signals' near-duplicate index being built after start; fetches wait for it. */
  private clustering: Promise<void> = Promise.resolve();
  /** Stored signals to cluster once the service is up (not before: the slices would slow its start). */
  private toCluster: string[] | null = null;

  constructor(
    private readonly store: SignalStore,
    readonly learner: EntityLearner,
    private readonly learnedStore: LearnedEntityStore,
    private readonly isClosed: () => boolean,
    private readonly learnEntities = true,
  ) {}

  /** Stored signals read at start: few are clustered now, many after start (clustered()). */
  load(signals: FeedSignal[], inStore: boolean): void {
    if (signals.length <= CLUSTER_AT_LOAD) {
      for (const signal of signals) this.remember(signal, false);
      return;
    }
    // Many stored signals: answerable at once with the corroboration they were stored with;
    // their near-duplicate index (new arrivals are clustered against it) is built after start.
    for (const signal of signals) this.signals.set(signal.id, signal);
    // Read by stored-signals.ts, they are in the store already (a lookup each, 100,000 at a restart).
    if (!inStore) for (const signal of signals) this.store.addSignal(signal, false);
    this.toCluster = signals.map((signal) => signal.id);
  }

  /**
   * Adds stored signals to the near-duplicate index a slice at a time, yielding between slices
   * so requests are served meanwhile (100,000 synthetic signals take tens of seconds).
   */
  private async clusterInSlices(ids: string[]): Promise<void> {
    for (let at = 0; at < ids.length && !this.isClosed(); at += CLUSTER_SLICE) {
      for (const id of ids.slice(at, at + CLUSTER_SLICE)) {
        const signal = this.signals.get(id);
        if (signal && this.duplicates.cluster(id) === undefined) this.duplicates.add(id, `${signal.title} ${signal.summary}`);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Starts clustering the stored signals (once), and what to wait for before clustering new ones. */
  clustered(): Promise<void> {
    if (this.toCluster && !this.isClosed()) {
      const ids = this.toCluster;
      this.toCluster = null;
      // Its first slice too runs after the caller's own work (start: the service's listening line).
      this.clustering = new Promise((resolve) => setImmediate(resolve)).then(() => this.clusterInSlices(ids));
    }
    return this.clustering;
  }

  /** What close waits for. */
  settling(): Promise<void> {
    return this.clustering;
  }

  ingest(source: FeedSourceRecord, inputs: ExtractInput[], fetchedAt: Date): Ingested {
    const seen = new Set<string>();
    let newItems = 0;
    const changed: FeedSignal[] = [];
    const oracleItems: Ingested['oracleItems'] = [];
    for (const input of inputs) {
      const signal = extractSignal({ ...input, fetchedAt });
      if (!signal || seen.has(signal.id)) continue;
      seen.add(signal.id);
      if (source.role === 'oracle') {
        if (!this.oracleItems.has(signal.canonical_url)) newItems += 1;
        const item: OracleItem = { title: signal.title, url: signal.url, canonical: signal.canonical_url, published_at: signal.published_at, text: `${signal.title} ${signal.summary}` };
        this.oracleItems.set(signal.canonical_url, item);
        oracleItems.push({ ...item, source_id: source.id });
        continue;
      }
      const existing = this.signals.get(signal.id);
      if (existing) {
        if (existing.source_id !== source.id || (existing.title === signal.title && existing.body === signal.body)) continue;
        const updated: FeedSignal = {
          ...signal,
          first_seen_at: existing.first_seen_at,
          published_at: signal.published_at_source === 'item' ? signal.published_at : existing.published_at,
          published_at_source: signal.published_at_source === 'item' ? 'item' : existing.published_at_source,
          updated_at: fetchedAt.toISOString(),
          corroborated_by: existing.corroborated_by,
          confidence: existing.confidence,
        };
        this.learnFrom(updated, changed);
        this.remember(updated, true);
        changed.push(updated);
        continue;
      }
      newItems += 1;
      this.learnFrom(signal, changed);
      this.remember(signal, true);
      changed.push(signal);
    }
    return { items: inputs.length, newItems, signals: changed, oracleItems };
  }

  /**
   * Learns the names a new signal marks or repeats (issue 43) and gives the signal the learned
   * entities it names; a name learned now is given to the earlier signals it waited in too
   * (they are stored again with this fetch).
   */
  private learnFrom(signal: FeedSignal, changed: FeedSignal[]): void {
    if (!this.learnEntities) return;
    const { names, earlier } = this.learner.learn(signal);
    for (const name of names) if (!signal.entities.retailers.includes(name)) signal.entities.retailers.push(name);
    for (const id of earlier) {
      const known = this.signals.get(id);
      if (!known) continue;
      const missing = this.learner.namesIn(`${known.title}\n${known.summary}\n${known.body}`).filter((name) => !known.entities.retailers.includes(name));
      if (missing.length === 0) continue;
      const updated: FeedSignal = { ...known, entities: { ...known.entities, retailers: [...known.entities.retailers, ...missing] } };
      this.remember(updated, false);
      changed.push(updated);
    }
  }

  /** Writes what was learned; a database that is down keeps it for the next fetch. */
  async saveLearned(): Promise<void> {
    const changed = this.learner.takeChanged();
    if (changed.length === 0) return;
    try {
      await this.learnedStore.save(changed);
    } catch {
      this.learner.markChanged(changed);
    }
  }

  /**
   * Keeps a signal, clusters it with its near-duplicates, and hands it to the store. `announce`:
   * a new arrival from this process's fetch (follows and webhooks hear of it); a stored signal
   * read back (at start, or another process's on a team server) is answerable but not announced.
   */
  remember(signal: FeedSignal, announce: boolean): void {
    const isNew = !this.signals.has(signal.id);
    this.signals.set(signal.id, signal);
    const cluster = this.duplicates.add(signal.id, `${signal.title} ${signal.summary}`);
    const members = this.duplicates.membersOf(cluster).map((id) => this.signals.get(id)).filter((member): member is FeedSignal => member !== undefined);
    const sources = new Set(members.map((member) => member.source_id));
    for (const member of members) {
      member.corroborated_by = members.filter((other) => other.id !== member.id && other.source_id !== member.source_id).map((other) => other.id);
      // One source: 0.5; each further independent source adds 0.15, up to 0.95.
      member.confidence = Math.min(0.95, 0.5 + 0.15 * (sources.size - 1));
    }
    if (isNew) this.store.addSignal(signal, announce);
    else this.store.updateSignal(signal);
  }

  known(url: string): boolean {
    const canonical = canonicalUrl(url);
    if (!canonical) return false;
    for (const signal of this.signals.values()) if (signal.canonical_url === canonical) return true;
    return false;
  }
}
