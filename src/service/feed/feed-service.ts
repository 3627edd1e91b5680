/**
 * The live feed: a scheduler over the registered sources that fetches each at its cadence (with
 * jitter), politely (one request at a time per host, a minimum interval between them — across all
 * processes of a team server, a lease in the database: withHostSlot —, robots.txt,
 * conditional GET, Retry-After, capped exponential backoff), turns items into signals the store
 * answers from at once, and keeps the facts its health and the oracle miss rate are computed from.
 * A failure of any kind lands in that source's state; nothing stops the scheduler or another source.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CorpusSource, SourceKind } from '../world/signal-types';
import type { SignalStore } from '../signal-store';
import type { SourceEntry } from '../../shared/service-schemas';
import { asFeedFailure } from './feed-failure';
import { HEALTH_RULE, healthOf } from './feed-health';
import { emptyState, InMemoryFeedRepository, type FeedRepository, type FetchRecord, type ProposalRecord, type SourceState } from './feed-repository';
import type { FetchLimits } from './http-fetcher';
import { RobotsCache } from './robots';
import { EntityLearner } from './entity-learning';
import { InMemoryLearnedEntityStore, type LearnedEntityStore } from './learned-entity-store';
import type { FeedSignal } from './signal-extraction';
import { cadenceText, type FeedKind, type FeedSourceRecord, type SourceDefinitionInput } from './source-registry';
import { sourceDefinitionOf } from './source-definition';
import { SourceReader } from './source-reader';
import { previewOf, type PreviewResult } from './source-preview';
import { FeedSignals, type Ingested } from './feed-signals';
import { measuredEntry, oracleReport } from './measured-health';
import { ProposalDesk, SourceInputError } from './source-proposals';
import { FetchScheduler } from './fetch-scheduler';
import { backoffMs, recordFailure, recordSuccess } from './fetch-outcome';

export { SourceInputError } from './source-proposals';
export { LEASE_MS } from './fetch-scheduler';
export { retryAfter } from './source-reader';
export type { DroppedItem } from './source-reader';
export type { PreviewItem, PreviewResult } from './source-preview';

export interface FeedServiceOptions {
  store: SignalStore;
  repository?: FeedRepository;
  now?: () => number;
  /** Fetch loopback and private addresses (`--allow-private-sources`; tests). */
  allowPrivate?: boolean;
  /** Private hosts fetched anyway (`--allow-source-host`: `host` or `host:port`; see http-fetcher). */
  allowedPrivateHosts?: string[];
  /** Named in the User-Agent so a site's operator can reach whoever runs the service. */
  contactUrl?: string;
  limits?: Partial<FetchLimits>;
  /** Minimum wait between two requests to one host (default 1 s). */
  politeIntervalMs?: number;
  /** How often the scheduler looks for due sources (default 250 ms). */
  tickMs?: number;
  /** Share of the cadence a fetch time may move either way (default 0.1). */
  jitter?: number;
  /** Longest wait after failures (default 6 h). */
  backoffCapS?: number;
  /** Newest items read from one fetch of a feed (default 2,000). */
  maxItemsPerFetch?: number;
  /** Article pages or linked PDFs read per fetch (default 20). */
  maxDocumentsPerFetch?: number;
  /** Oracle window (default 24 h). */
  oracleWindowMs?: number;
  /** A shared store (team server): how often other processes' changes are read (default 1 s). */
  syncMs?: number;
  /** Where learned entities are kept (the service's database; in memory without one). */
  learnedStore?: LearnedEntityStore;
  /** Learn entities from fetched items (default true; `npm run bench:ingest` measures its cost beside ingestion without it). */
  learnEntities?: boolean;
}

export interface SourceView extends FeedSourceRecord {
  state: SourceState;
  health: SourceEntry['health'];
  health_reason: string | null;
}

/** Re-read window for other processes' signals (a write commits a little after its stored time). */
const SYNC_LOOKBACK_MS = 30_000;
export const USER_AGENT_PRODUCT = 'ClarityRetailSignal';
export const DEFAULT_CONTACT_URL = 'https://github.com/clarity-desktop/clarity-desktop#feed-crawler';

export class FeedService {
  readonly repository: FeedRepository;
  private readonly store: SignalStore;
  /** This process's copy of the sources and their state (re-read from a shared store, see sync). */
  private readonly sourcesById = new Map<string, FeedSourceRecord>();
  private readonly states = new Map<string, SourceState>();
  /** Names this process in fetch leases. */
  private readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private lastSyncAt = 0;
  private syncing: Promise<void> | null = null;
  private syncAgain: Promise<void> | null = null;
  private signalCursorMs = 0;
  private readonly now: () => number;
  private readonly userAgent: string;
  /** The signals and oracle items read, clustered, with the entities learned from them. */
  private readonly kept: FeedSignals;
  /** Organisations, brands and people learned from the items (issue 43; entity-learning.ts). */
  readonly learner: EntityLearner;
  private readonly learnedStore: LearnedEntityStore;
  private learnedCursorMs = 0;
  private readonly reader: SourceReader;
  private readonly scheduler: FetchScheduler;
  private readonly proposals: ProposalDesk;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Stops fetches under way when the service closes (a hanging source must not hold it open). */
  private readonly stopping = new AbortController();

  constructor(private readonly options: FeedServiceOptions) {
    this.store = options.store;
    this.repository = options.repository ?? new InMemoryFeedRepository();
    this.now = options.now ?? Date.now;
    this.learner = new EntityLearner(this.now);
    this.learnedStore = options.learnedStore ?? new InMemoryLearnedEntityStore();
    this.userAgent = `${USER_AGENT_PRODUCT}/1.0 (+${options.contactUrl ?? DEFAULT_CONTACT_URL})`;
    const robots = new RobotsCache({ userAgent: this.userAgent, productToken: USER_AGENT_PRODUCT, allowPrivate: options.allowPrivate ?? false, allowedPrivateHosts: options.allowedPrivateHosts, signal: this.stopping.signal, now: this.now, limits: options.limits });
    this.kept = new FeedSignals(this.store, this.learner, this.learnedStore, () => this.closed, options.learnEntities ?? true);
    this.reader = new SourceReader({ ...options, robots, userAgent: this.userAgent, now: this.now, signal: this.stopping.signal, known: (url) => this.kept.known(url) });
    this.scheduler = new FetchScheduler({
      repository: this.repository,
      owner: this.owner,
      now: this.now,
      politeIntervalMs: options.politeIntervalMs ?? 1_000,
      isClosed: () => this.closed,
      sources: () => this.sourcesById.values(),
      stateOf: (id) => this.stateOf(id),
      keep: (source, state) => this.keep(source, state),
      fetchAndIngest: (source, before) => this.fetchAndIngest(source, before),
    });
    this.proposals = new ProposalDesk({ repository: this.repository, now: this.now, preview: (input) => this.preview(input), definitionOf: (input) => this.definitionOf(input), add: (definition) => this.add(definition) });
    // A fetched source's entry in the store is the measured one.
    this.store.feedSourceEntry = (id, now) => {
      const source = this.sourcesById.get(id);
      return source ? this.entry(source, now) : null;
    };
  }

  /**
   * Reads the stored sources, their state, the feed signals and oracle items (before start, and
   * before follows listen: stored signals are answerable again, not announced again).
   * `stored`: the feed signals already read from the database into the store (stored-signals.ts).
   */
  async load(stored?: FeedSignal[]): Promise<void> {
    const loadedAt = Date.now();
    this.learner.merge(await this.learnedStore.since(0));
    this.learnedCursorMs = loadedAt - SYNC_LOOKBACK_MS;
    for (const { source, state } of await this.repository.loadSources()) this.keep(source, state);
    const { signals, oracleItems } = stored ? { signals: stored, oracleItems: await this.repository.oracleItemsSince(0) } : await this.repository.signalsSince(0);
    this.kept.load(signals, stored !== undefined);
    for (const item of oracleItems) this.kept.oracleItems.set(item.canonical, item);
    this.signalCursorMs = loadedAt - SYNC_LOOKBACK_MS;
    this.lastSyncAt = loadedAt;
  }

  /**
   * On a shared store (a team server), reads what other processes changed: sources added, edited
   * or removed through them, state after their fetches, and the signals those fetches stored
   * (answerable here too; announced to follows and webhooks only by the process that fetched them).
   */
  sync(): Promise<void> {
    if (!this.repository.shared || this.closed) return Promise.resolve();
    if (!this.syncing) {
      this.syncing = this.readShared().finally(() => (this.syncing = null));
      return this.syncing;
    }
    // A read under way may predate the caller's moment (a source just deleted through another
    // process): read once more after it, shared by every caller arriving meanwhile.
    this.syncAgain ??= this.syncing.then(() => {
      this.syncAgain = null;
      return this.sync();
    });
    return this.syncAgain;
  }

  private async readShared(): Promise<void> {
    const startedAt = Date.now();
    const stored = await this.repository.loadSources();
    const ids = new Set(stored.map(({ source }) => source.id));
    for (const id of [...this.sourcesById.keys()]) {
      if (!ids.has(id) && !this.scheduler.inFlight.has(id)) this.forget(id);
    }
    // A source this process is fetching keeps the state its fetch will write.
    for (const { source, state } of stored) this.keep(source, this.scheduler.inFlight.has(source.id) ? (this.states.get(source.id) ?? state) : state);
    const { signals, oracleItems } = await this.repository.signalsSince(this.signalCursorMs);
    for (const signal of signals) {
      const known = this.kept.signals.get(signal.id);
      if (known && known.title === signal.title && known.body === signal.body && known.source_id === signal.source_id) continue;
      this.kept.remember(signal, false);
    }
    for (const item of oracleItems) this.kept.oracleItems.set(item.canonical, item);
    // Entities another process learned resolve here too (its signals above already name them).
    this.learner.merge(await this.learnedStore.since(this.learnedCursorMs));
    this.learnedCursorMs = startedAt - SYNC_LOOKBACK_MS;
    this.signalCursorMs = startedAt - SYNC_LOOKBACK_MS;
    this.lastSyncAt = startedAt;
  }

  start(): void {
    if (this.timer || this.closed) return;
    void this.kept.clustered();
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 250);
    this.timer.unref();
    this.tick();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort();
    await Promise.allSettled([...this.scheduler.inFlight.values(), this.kept.settling()]);
  }

  sources(): SourceView[] {
    const now = this.now();
    return [...this.sourcesById.values()].map((source) => this.view(source, now));
  }

  source(id: string): SourceView | null {
    const source = this.find(id);
    return source ? this.view(source, this.now()) : null;
  }

  history(id: string, limit = 20): Promise<FetchRecord[]> {
    return this.repository.history(id, limit);
  }

  /** Validates a definition and fetches it once; throws a FeedFailure (no items, unreachable, …) or a message. */
  async preview(input: SourceDefinitionInput): Promise<PreviewResult> {
    const definition = this.definitionOf(input);
    const collected = await this.reader.collect(definition, emptyState(), true);
    return previewOf(definition, collected, new Date(this.now()));
  }

  /** Adds a source without fetching it first (sources file); it is fetched at once. */
  async add(input: SourceDefinitionInput): Promise<FeedSourceRecord> {
    const definition = this.definitionOf(input);
    if (this.find(definition.id) || !(await this.repository.insertSource(definition))) throw new SourceInputError(`A source with id "${definition.id}" already exists.`);
    this.keep(definition, emptyState());
    return definition;
  }

  /**
   * A sources file's entry at start: added when new; when stored already, its definition follows
   * the file while what the service learnt stays (state, history, a pause set through the admin
   * API). A changed URL or kind starts its state afresh (an etag of another URL means nothing).
   */
  async ensure(input: SourceDefinitionInput): Promise<FeedSourceRecord> {
    const definition = this.definitionOf(input);
    let existing = this.find(definition.id);
    if (!existing) {
      if (await this.repository.insertSource(definition)) {
        this.keep(definition, emptyState());
        return definition;
      }
      // Stored since this process read its sources: another process of a team server, started
      // at once with the same file, added it first. Followed as a stored entry is, below.
      existing = (await this.repository.loadSource(definition.id))?.source;
      if (!existing) throw new SourceInputError(`The source "${definition.id}" could not be added: it was added and removed meanwhile.`);
    }
    const next: FeedSourceRecord = { ...definition, paused: existing.paused, created_at: existing.created_at };
    const fresh = existing.url !== next.url || existing.kind !== next.kind ? emptyState() : undefined;
    const updated = await this.repository.updateSource(next, fresh);
    if (updated) this.keep(updated.source, updated.state);
    return next;
  }

  async update(id: string, patch: { name?: string; cadence_s?: number; paused?: boolean }): Promise<SourceView | null> {
    const source = this.find(id);
    if (!source) return null;
    const next = { ...source, ...patch };
    const state = patch.cadence_s !== undefined || patch.paused === false ? { ...this.stateOf(id), next_fetch_at: new Date(this.now()).toISOString() } : undefined;
    const updated = await this.repository.updateSource(next, state);
    if (!updated) {
      this.forget(id);
      return null;
    }
    this.keep(updated.source, this.scheduler.inFlight.has(id) && !state ? this.stateOf(id) : updated.state);
    return this.view(updated.source, this.now());
  }

  async remove(id: string): Promise<boolean> {
    const removed = await this.repository.deleteSource(id);
    // Its signals stay answerable (they were true when read); the source no longer reports health.
    this.forget(id);
    return removed;
  }

  /** Runs one fetch of a source now, due or not (tests use it); one process fetches it at a time. */
  fetchNow(id: string): Promise<void> {
    const source = this.find(id);
    if (!source) return Promise.resolve();
    return this.scheduler.run(source, true);
  }

  /** The measured entries, oracle and stats; the health route caches the result. */
  snapshotParts(now: number) {
    const all = [...this.sourcesById.values()];
    const entries = all.map((source) => this.entry(source, now));
    const dayAgo = now - 86_400_000;
    let signals24h = 0;
    for (const signal of this.kept.signals.values()) if (Date.parse(signal.first_seen_at) >= dayAgo) signals24h += 1;
    return { entries, signals24h, oracle: this.oracle(now), health_rule: HEALTH_RULE };
  }

  entry(source: FeedSourceRecord, now: number): SourceEntry {
    return measuredEntry(source, this.stateOf(source.id), this.kept, now);
  }

  /** The oracle miss rate (measured-health.ts). */
  oracle(now: number) {
    return oracleReport(this.sourcesById.values(), this.kept, this.options.oracleWindowMs ?? 86_400_000, now);
  }

  // ── Proposals (source-proposals.ts) ─────────────────────────────────────────────────────

  propose(input: { url: string; name?: string; kind?: string; rationale?: string }, proposedBy: string): Promise<ProposalRecord> {
    return this.proposals.propose(input, proposedBy);
  }

  /** Newest first. */
  listProposals(): Promise<ProposalRecord[]> {
    return this.proposals.list();
  }

  getProposal(id: string): Promise<ProposalRecord | null> {
    return this.repository.getProposal(id);
  }

  accept(id: string, overrides: { kind?: FeedKind; name?: string; cadence_s?: number } = {}): Promise<{ proposal: ProposalRecord; source: FeedSourceRecord }> {
    return this.proposals.accept(id, overrides);
  }

  reject(id: string, reason: string): Promise<ProposalRecord> {
    return this.proposals.reject(id, reason);
  }

  // ── Scheduling ──────────────────────────────────────────────────────────────────────────

  private tick(): void {
    if (this.closed) return;
    // The periodic read needs no read-after-write: it skips while one is under way.
    if (this.repository.shared && !this.syncing && Date.now() - this.lastSyncAt >= (this.options.syncMs ?? 1_000)) void this.sync().catch(() => undefined);
    this.scheduler.tick();
  }

  /** Fetches and stores; resolves with the host's rest (the politeness interval, or a 429/503's wait). */
  private async fetchAndIngest(source: FeedSourceRecord, before: SourceState): Promise<number> {
    let restMs = source.kind === 'folder' ? 0 : (this.options.politeIntervalMs ?? 1_000);
    const started = this.now();
    const state: SourceState = { ...before, last_fetch_at: new Date(started).toISOString(), fetches: before.fetches + 1 };
    let record: FetchRecord;
    let ingested: Ingested = { items: 0, newItems: 0, signals: [], oracleItems: [] };
    try {
      const collected = await this.reader.collect(source, before, false);
      // New items are clustered against every stored signal, so that index must be whole.
      await this.kept.clustered();
      const fetchedAt = new Date(this.now());
      const files = this.reader.takePendingFiles(source.id);
      if (files) state.files = files;
      ingested = this.kept.ingest(source, collected.items, fetchedAt);
      await this.kept.saveLearned();
      record = recordSuccess(state, collected, ingested, fetchedAt, this.now() + this.jittered(source.cadence_s * 1000), this.now() - started);
    } catch (error) {
      const failure = asFeedFailure(error);
      const at = new Date(this.now());
      const waitMs = backoffMs(failure, source.cadence_s, before.consecutive_failures + 1, this.options.backoffCapS ?? 6 * 3_600);
      // The host asked every client to slow down: all its sources wait, in every process.
      if (failure.kind === 'rate_limited' || failure.kind === 'unavailable') restMs = Math.max(restMs, failure.retryAfterS !== undefined ? failure.retryAfterS * 1000 : waitMs);
      record = recordFailure(state, before, failure, at, at.getTime() + this.jittered(waitMs), at.getTime() - started);
    }
    let stored: boolean;
    try {
      stored = await this.repository.finishFetch(source.id, this.owner, { state, record, signals: ingested.signals, oracleItems: ingested.oracleItems });
    } catch {
      // The database is unavailable: what was read stays answerable here, and the next fetch is a
      // full one (no etag), so its signals are stored then. The lease runs out by itself.
      stored = this.find(source.id) !== undefined;
      state.etag = null;
      state.last_modified = null;
      state.files = {};
    }
    // A source removed while its fetch ran leaves no state behind.
    if (stored && this.find(source.id)) this.states.set(source.id, state);
    return restMs;
  }

  private jittered(ms: number): number {
    const jitter = this.options.jitter ?? 0.1;
    return Math.max(0, ms * (1 + (Math.random() * 2 - 1) * jitter));
  }

  /** A definition checked (the schema, then the URL for its kind); throws SourceInputError. */
  definitionOf(input: SourceDefinitionInput): FeedSourceRecord {
    return sourceDefinitionOf(input, this.now());
  }

  private find(id: string): FeedSourceRecord | undefined {
    return this.sourcesById.get(id);
  }

  private stateOf(id: string): SourceState {
    return this.states.get(id) ?? emptyState();
  }

  /** This process's copy of a source and its state; the store resolves its signals to it. */
  private keep(source: FeedSourceRecord, state: SourceState): void {
    const known = this.sourcesById.get(source.id);
    this.sourcesById.set(source.id, source);
    this.states.set(source.id, state);
    if (!known || known.name !== source.name || known.url !== source.url || known.kind !== source.kind || known.cadence_s !== source.cadence_s) this.register(source);
  }

  private forget(id: string): void {
    this.sourcesById.delete(id);
    this.states.delete(id);
  }

  private view(source: FeedSourceRecord, now: number): SourceView {
    const state = this.stateOf(source.id);
    const { health, reason } = healthOf(state, source.cadence_s, now, source.created_at);
    return { ...source, state, health, health_reason: reason };
  }

  /** The store resolves the source's signals to it (name, health) like a sample source. */
  private register(source: FeedSourceRecord): void {
    const corpusSource: CorpusSource = {
      id: source.id,
      name: source.name,
      // Feed kinds are outside the sample's kind list; readers rank unknown kinds as least authoritative.
      kind: source.kind as unknown as SourceKind,
      url: source.url,
      cadence: cadenceText(source.cadence_s),
      dailyRate: 0,
      health: 'degraded',
    };
    // Answers weigh a citation by its source's health: the measured one, read when asked.
    Object.defineProperty(corpusSource, 'health', { enumerable: true, get: () => this.view(this.sourcesById.get(source.id) ?? source, this.now()).health });
    this.store.registerSource(corpusSource);
  }
}
