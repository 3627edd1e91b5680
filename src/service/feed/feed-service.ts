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
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CorpusSource, SourceKind } from '../world/signal-types';
import type { SignalStore } from '../signal-store';
import type { SourceEntry } from '../../shared/service-schemas';
import { canonicalUrl } from './canonical-url';
import { decodeBody } from './charset';
import { asFeedFailure, FeedFailure } from './feed-failure';
import { HEALTH_RULE, healthOf } from './feed-health';
import { emptyState, InMemoryFeedRepository, type FeedRepository, type FetchRecord, type OracleItem, type ProposalRecord, type SourceState } from './feed-repository';
import { fetchResource, type FetchLimits, type FetchResponse } from './http-fetcher';
import { NearDuplicateIndex } from './near-duplicate';
import { RobotsCache } from './robots';
import { EntityLearner } from './entity-learning';
import { InMemoryLearnedEntityStore, type LearnedEntityStore } from './learned-entity-store';
import { extractSignal, unkeptReason, type ExtractInput, type FeedSignal } from './signal-extraction';
import { cadenceText, FEED_KINDS, newSourceId, SourceDefinition, urlProblem, type FeedKind, type FeedSourceRecord, type SourceDefinitionInput } from './source-registry';

/**
 * The HTML, XML and document readers (linkedom, readability, htmlparser2, fast-xml-parser: about
 * 200 files) load on the first fetch, not at every start of the service (issue 27: restart_ms).
 */
let readersLoading: Promise<typeof import('./document-readers') & Pick<typeof import('./feed-items'), 'readFeedBody'>> | null = null;
function readers(): NonNullable<typeof readersLoading> {
  if (!readersLoading) {
    readersLoading = Promise.all([import('./document-readers'), import('./feed-items')]).then(([documents, feeds]) => ({ ...documents, readFeedBody: feeds.readFeedBody }));
    // A failed load is tried again at the next fetch rather than remembered.
    readersLoading.catch(() => (readersLoading = null));
  }
  return readersLoading;
}

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

export interface PreviewItem {
  id: string;
  title: string;
  /** Null when the item has no link of its own (it is cited at the feed's page). */
  url: string | null;
  published_at: string;
  published_at_source: 'item' | 'fetch';
  updated_at: string | null;
  summary: string;
  author: string | null;
  categories: string[];
  enclosures: string[];
}

/** An item the feed gave that was not kept, and why, in words. */
export interface DroppedItem {
  title: string;
  id: string | null;
  reason: string;
}

export interface PreviewResult {
  definition: FeedSourceRecord;
  preview: PreviewItem[];
  /** How many items the source gave in all. */
  items_total: number;
  dropped: DroppedItem[];
  /** Set when the document was ill-formed and read anyway: the first error. */
  read_with_errors: string | null;
}

interface Collected {
  items: ExtractInput[];
  response: FetchResponse | null;
  partial: FeedFailure | null;
  /** Items the source gave (kept or not); absent where every item is kept. */
  itemsTotal?: number;
  dropped?: DroppedItem[];
}

/** How long a fetch lease lasts unrenewed; renewed every third of it while the fetch runs. */
export const LEASE_MS = 60_000;
/** A "fetch now" waiting for its host's slot (another process's request in flight) looks again this often. */
const HOST_SLOT_POLL_MS = 100;
/** Re-read window for other processes' signals (a write commits a little after its stored time). */
const SYNC_LOOKBACK_MS = 30_000;
/** Up to this many stored signals are clustered before start; more, after it (clusterInSlices). */
const CLUSTER_AT_LOAD = 2_000;
const CLUSTER_SLICE = 250;

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
  private signalCursorMs = 0;
  private readonly now: () => number;
  private readonly userAgent: string;
  private readonly robots: RobotsCache;
  private readonly signals = new Map<string, FeedSignal>();
  private readonly oracleItems = new Map<string, OracleItem>();
  private readonly duplicates = new NearDuplicateIndex(0.7);
  /** Organisations, brands and people learned from the items (issue 43; entity-learning.ts). */
  readonly learner: EntityLearner;
  private readonly learnedStore: LearnedEntityStore;
  private learnedCursorMs = 0;
  /** The stored signals' near-duplicate index being built after start; fetches wait for it. */
  private clustering: Promise<void> = Promise.resolve();
  /** Stored signals to cluster once the service is up (not before: the slices would slow its start). */
  private toCluster: string[] | null = null;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly hostBusy = new Set<string>();
  private readonly hostLastAt = new Map<string, number>();
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
    this.robots = new RobotsCache({ userAgent: this.userAgent, productToken: USER_AGENT_PRODUCT, allowPrivate: options.allowPrivate ?? false, allowedPrivateHosts: options.allowedPrivateHosts, signal: this.stopping.signal, now: this.now, limits: options.limits });
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
    if (signals.length <= CLUSTER_AT_LOAD) {
      for (const signal of signals) this.remember(signal, false);
    } else {
      // Many stored signals: answerable at once with the corroboration they were stored with;
      // their near-duplicate index (new arrivals are clustered against it) is built after start.
      for (const signal of signals) this.signals.set(signal.id, signal);
      // Read by stored-signals.ts, they are in the store already (a lookup each, 100,000 at a restart).
      if (!stored) for (const signal of signals) this.store.addSignal(signal, false);
      this.toCluster = signals.map((signal) => signal.id);
    }
    for (const item of oracleItems) this.oracleItems.set(item.canonical, item);
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
    this.syncing ??= this.readShared().finally(() => (this.syncing = null));
    return this.syncing;
  }

  private async readShared(): Promise<void> {
    const startedAt = Date.now();
    const stored = await this.repository.loadSources();
    const ids = new Set(stored.map(({ source }) => source.id));
    for (const id of [...this.sourcesById.keys()]) {
      if (!ids.has(id) && !this.inFlight.has(id)) this.forget(id);
    }
    // A source this process is fetching keeps the state its fetch will write.
    for (const { source, state } of stored) this.keep(source, this.inFlight.has(source.id) ? (this.states.get(source.id) ?? state) : state);
    const { signals, oracleItems } = await this.repository.signalsSince(this.signalCursorMs);
    for (const signal of signals) {
      const known = this.signals.get(signal.id);
      if (known && known.title === signal.title && known.body === signal.body && known.source_id === signal.source_id) continue;
      this.remember(signal, false);
    }
    for (const item of oracleItems) this.oracleItems.set(item.canonical, item);
    // Entities another process learned resolve here too (its signals above already name them).
    this.learner.merge(await this.learnedStore.since(this.learnedCursorMs));
    this.learnedCursorMs = startedAt - SYNC_LOOKBACK_MS;
    this.signalCursorMs = startedAt - SYNC_LOOKBACK_MS;
    this.lastSyncAt = startedAt;
  }

  /**
   * Adds stored signals to the near-duplicate index a slice at a time, yielding between slices
   * so requests are served meanwhile (100,000 synthetic signals take tens of seconds).
   */
  private async clusterInSlices(ids: string[]): Promise<void> {
    for (let at = 0; at < ids.length && !this.closed; at += CLUSTER_SLICE) {
      for (const id of ids.slice(at, at + CLUSTER_SLICE)) {
        const signal = this.signals.get(id);
        if (signal && this.duplicates.cluster(id) === undefined) this.duplicates.add(id, `${signal.title} ${signal.summary}`);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Starts clustering the stored signals (once), and what to wait for before clustering new ones. */
  private clustered(): Promise<void> {
    if (this.toCluster && !this.closed) {
      const ids = this.toCluster;
      this.toCluster = null;
      // Its first slice too runs after the caller's own work (start: the service's listening line).
      this.clustering = new Promise((resolve) => setImmediate(resolve)).then(() => this.clusterInSlices(ids));
    }
    return this.clustering;
  }

  start(): void {
    if (this.timer || this.closed) return;
    void this.clustered();
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 250);
    this.timer.unref();
    this.tick();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight.values(), this.clustering]);
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
    const collected = await this.collect(definition, emptyState(), true);
    const at = new Date(this.now());
    const dropped = [...(collected.dropped ?? [])];
    const kept: PreviewItem[] = [];
    for (const item of collected.items) {
      const signal = extractSignal({ ...item, fetchedAt: at });
      if (!signal) {
        dropped.push({ title: item.title.slice(0, 200), id: item.guid ?? item.url, reason: unkeptReason(item) ?? 'It has no title and no text.' });
        continue;
      }
      kept.push({ id: signal.id, title: signal.title, url: item.url ? signal.url : null, published_at: signal.published_at, published_at_source: signal.published_at_source, updated_at: item.updated ?? null, summary: signal.summary, author: item.author ?? null, categories: item.categories ?? [], enclosures: item.enclosures ?? [] });
    }
    if (kept.length === 0) {
      if (collected.partial) throw collected.partial;
      const why = dropped.length > 0 ? ` (${dropped.length} dropped; the first: ${dropped[0]!.reason})` : '';
      throw new FeedFailure('no_items', `The URL was read but gave no items${why}.`);
    }
    const readWithErrors = collected.partial?.kind === 'malformed_xml' ? collected.partial.message : null;
    return { definition, preview: kept.slice(0, 20), items_total: collected.itemsTotal ?? collected.items.length, dropped, read_with_errors: readWithErrors };
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
    const existing = this.find(definition.id);
    if (!existing) return this.add(definition);
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
    this.keep(updated.source, this.inFlight.has(id) && !state ? this.stateOf(id) : updated.state);
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
    return this.run(source, true);
  }

  /** The measured entries, oracle and stats; the health route caches the result. */
  snapshotParts(now: number) {
    const all = [...this.sourcesById.values()];
    const entries = all.map((source) => this.entry(source, now));
    const dayAgo = now - 86_400_000;
    let signals24h = 0;
    for (const signal of this.signals.values()) if (Date.parse(signal.first_seen_at) >= dayAgo) signals24h += 1;
    return { entries, signals24h, oracle: this.oracle(now), health_rule: HEALTH_RULE };
  }

  entry(source: FeedSourceRecord, now: number): SourceEntry {
    const state = this.stateOf(source.id);
    const { health, reason } = healthOf(state, source.cadence_s, now, source.created_at);
    const dayAgo = now - 86_400_000;
    let items24h = 0;
    let lastItemAt: string | null = null;
    for (const signal of this.signals.values()) {
      if (signal.source_id !== source.id) continue;
      if (Date.parse(signal.first_seen_at) >= dayAgo) items24h += 1;
      if (!lastItemAt || signal.published_at > lastItemAt) lastItemAt = signal.published_at;
    }
    if (source.role === 'oracle') {
      items24h = 0;
      for (const item of this.oracleItems.values()) if (item.canonical.length > 0 && Date.parse(item.published_at) >= dayAgo) items24h += 1;
    }
    return {
      id: source.id,
      name: source.name,
      kind: source.kind,
      health,
      cadence: cadenceText(source.cadence_s),
      items_24h: items24h,
      last_item_at: lastItemAt,
      url: source.url,
      role: source.role,
      paused: source.paused,
      cadence_s: source.cadence_s,
      health_reason: reason,
      last_fetch_at: state.last_fetch_at,
      last_success_at: state.last_success_at,
      consecutive_failures: state.consecutive_failures,
      last_error: state.last_error,
      next_fetch_at: source.paused ? null : state.next_fetch_at,
      not_modified_ratio: state.fetches > 0 ? Math.round((state.not_modified / state.fetches) * 1000) / 1000 : 0,
      items_total: state.items_total,
      origin: 'fetched',
    };
  }

  /**
   * The oracle miss rate: an oracle item published within the window counts once it is older than
   * the grace (2 × the slowest primary cadence), and is missed when no primary signal has its
   * canonical URL or near-duplicate text by then.
   */
  oracle(now: number) {
    const windowMs = this.options.oracleWindowMs ?? 86_400_000;
    const primaries = [...this.sourcesById.values()].filter((source) => source.role === 'primary');
    const graceMs = 2 * Math.max(0, ...primaries.map((source) => source.cadence_s)) * 1000;
    const primaryIds = new Set(primaries.map((source) => source.id));
    const primaryUrls = new Set<string>();
    for (const signal of this.signals.values()) if (primaryIds.has(signal.source_id)) primaryUrls.add(signal.canonical_url);
    let counted = 0;
    let matched = 0;
    const misses: OracleItem[] = [];
    for (const item of this.oracleItems.values()) {
      const age = now - Date.parse(item.published_at);
      if (age > windowMs || age < graceMs) continue;
      counted += 1;
      const found = primaryUrls.has(item.canonical) || this.duplicates.matches(item.text, (id) => primaryIds.has(this.signals.get(id)?.source_id ?? ''));
      if (found) matched += 1;
      else misses.push(item);
    }
    misses.sort((a, b) => b.published_at.localeCompare(a.published_at));
    return {
      miss_rate: counted > 0 ? Math.round(((counted - matched) / counted) * 1000) / 1000 : 0,
      window: `${Math.round(windowMs / 3_600_000)}h`,
      grace: `${Math.round(graceMs / 1000)}s`,
      counted,
      matched,
      missed: counted - matched,
      latest_misses: misses.slice(0, 5).map((item) => ({ title: item.title, url: item.url, published_at: item.published_at })),
      updated_at: new Date(now).toISOString(),
    };
  }

  // ── Proposals ───────────────────────────────────────────────────────────────────────────

  /** A proposal is stored, never fetched until an administrator accepts it. */
  async propose(input: { url: string; name?: string; kind?: string; rationale?: string }, proposedBy: string): Promise<ProposalRecord> {
    const proposal: ProposalRecord = {
      id: `prp_${randomBytes(8).toString('hex')}`,
      url: input.url,
      name: input.name ?? null,
      kind: input.kind ?? null,
      note: input.rationale ?? null,
      proposed_by: proposedBy,
      proposed_at: new Date(this.now()).toISOString(),
      status: 'pending',
      decided_at: null,
      reason: null,
      source_id: null,
    };
    await this.repository.insertProposal(proposal);
    return proposal;
  }

  /** Newest first. */
  async listProposals(): Promise<ProposalRecord[]> {
    return (await this.repository.listProposals()).sort((a, b) => b.proposed_at.localeCompare(a.proposed_at));
  }

  getProposal(id: string): Promise<ProposalRecord | null> {
    return this.repository.getProposal(id);
  }

  /**
   * Accepting makes the proposal a source, fetched at once. Its kind is the one asked for, else
   * the proposer's when it is one of ours, else found by reading the URL (a feed, or a listing page).
   */
  async accept(id: string, overrides: { kind?: FeedKind; name?: string; cadence_s?: number } = {}): Promise<{ proposal: ProposalRecord; source: FeedSourceRecord }> {
    const proposal = await this.pending(id);
    let kind = overrides.kind ?? (FEED_KINDS as readonly string[]).find((known) => known === proposal.kind) as FeedKind | undefined;
    const name = overrides.name ?? proposal.name ?? new URL(proposal.url).hostname;
    if (!kind) {
      kind = 'rss';
      try {
        await this.preview({ name, kind: 'rss', url: proposal.url });
      } catch (error) {
        if (error instanceof FeedFailure && error.kind === 'not_a_feed') kind = 'html';
      }
    }
    const definition = this.definitionOf({ name, kind, url: proposal.url, ...(overrides.cadence_s ? { cadence_s: overrides.cadence_s } : {}) });
    // Decided first: of two administrators accepting at once (two processes), one makes the source.
    const decided = await this.repository.decideProposal({ ...proposal, status: 'accepted', decided_at: new Date(this.now()).toISOString(), source_id: definition.id });
    if (!decided) throw new SourceInputError(`Proposal ${id} is already ${(await this.repository.getProposal(id))?.status ?? 'decided'}.`);
    const source = await this.add(definition);
    return { proposal: decided, source };
  }

  async reject(id: string, reason: string): Promise<ProposalRecord> {
    const proposal = await this.pending(id);
    const decided = await this.repository.decideProposal({ ...proposal, status: 'rejected', decided_at: new Date(this.now()).toISOString(), reason });
    if (!decided) throw new SourceInputError(`Proposal ${id} is already ${(await this.repository.getProposal(id))?.status ?? 'decided'}.`);
    return decided;
  }

  private async pending(id: string): Promise<ProposalRecord> {
    const proposal = await this.repository.getProposal(id);
    if (!proposal) throw new SourceInputError(`No proposal ${id}.`);
    if (proposal.status !== 'pending') throw new SourceInputError(`Proposal ${id} is already ${proposal.status}.`);
    return proposal;
  }

  // ── Scheduling ──────────────────────────────────────────────────────────────────────────

  private tick(): void {
    if (this.closed) return;
    if (this.repository.shared && Date.now() - this.lastSyncAt >= (this.options.syncMs ?? 1_000)) void this.sync().catch(() => undefined);
    const now = this.now();
    const polite = this.options.politeIntervalMs ?? 1_000;
    // The longest overdue first: a host's turn goes to the source that has waited longest, so
    // sources sharing a busy host (one request at a time, team-wide) take turns, none starves.
    const due: Array<{ source: FeedSourceRecord; at: number }> = [];
    for (const source of this.sourcesById.values()) {
      if (source.paused || this.inFlight.has(source.id)) continue;
      const next = this.stateOf(source.id).next_fetch_at;
      const at = next ? Date.parse(next) : 0;
      if (at <= now) due.push({ source, at });
    }
    for (const { source } of due.sort((x, y) => x.at - y.at)) {
      const host = hostOf(source.url);
      if (this.hostBusy.has(host) || now - (this.hostLastAt.get(host) ?? 0) < polite) continue;
      void this.run(source, false);
    }
  }

  private run(source: FeedSourceRecord, force: boolean): Promise<void> {
    const running = this.inFlight.get(source.id);
    if (running) return running;
    const host = hostOf(source.url);
    this.hostBusy.add(host);
    const done = this.withHostSlot(host, force, () => this.claimAndFetch(source, force))
      .catch(() => undefined)
      .finally(() => {
        this.hostBusy.delete(host);
        this.hostLastAt.set(host, this.now());
        this.inFlight.delete(source.id);
      });
    this.inFlight.set(source.id, done);
    return done;
  }

  /**
   * Runs `fetch` holding the host's slot, which a team server's processes share (decision 0040):
   * one request per host in flight for all of them. A scheduled fetch that finds the slot taken
   * (or the host resting) is tried again at a later tick; a "fetch now" waits for the request in
   * flight, up to a lease's length. The slot is freed with the host's rest: the politeness
   * interval after a request, or what a 429/503 asked for (Retry-After, else the backoff).
   */
  private async withHostSlot(host: string, force: boolean, fetch: () => Promise<number>): Promise<void> {
    const waitUntil = Date.now() + LEASE_MS;
    while (!(await this.repository.claimHost(host, this.owner, Date.now(), Date.now() + LEASE_MS, force))) {
      if (!force || this.closed || Date.now() > waitUntil) return;
      await sleep(HOST_SLOT_POLL_MS);
    }
    const renew = setInterval(() => void this.repository.renewHost(host, this.owner, Date.now() + LEASE_MS).catch(() => undefined), LEASE_MS / 3);
    renew.unref();
    let restMs = 0;
    try {
      restMs = await fetch();
    } finally {
      clearInterval(renew);
      await this.repository.releaseHost(host, this.owner, Date.now() + restMs).catch(() => undefined);
    }
  }

  /**
   * Takes the source's fetch lease (no other process is fetching it, and it is still due there),
   * fetches it and stores the outcome. Without the lease, the stored state is read instead.
   * Resolves with how long the host should rest before its next request (0: none was made).
   */
  private async claimAndFetch(source: FeedSourceRecord, force: boolean): Promise<number> {
    const state = await this.repository.claim(source.id, this.owner, this.now(), Date.now() + LEASE_MS, force);
    if (!state) {
      const stored = await this.repository.loadSource(source.id);
      if (stored) this.keep(stored.source, stored.state);
      return 0;
    }
    const renew = setInterval(() => void this.repository.renewLease(source.id, this.owner, Date.now() + LEASE_MS).catch(() => undefined), LEASE_MS / 3);
    renew.unref();
    try {
      return await this.fetchAndIngest(source, state);
    } finally {
      clearInterval(renew);
    }
  }

  /** Fetches and stores; resolves with the host's rest (the politeness interval, or a 429/503's wait). */
  private async fetchAndIngest(source: FeedSourceRecord, before: SourceState): Promise<number> {
    let restMs = source.kind === 'folder' ? 0 : (this.options.politeIntervalMs ?? 1_000);
    const started = this.now();
    const state: SourceState = { ...before, last_fetch_at: new Date(started).toISOString(), fetches: before.fetches + 1 };
    let record: FetchRecord;
    let ingested: Ingested = { items: 0, newItems: 0, signals: [], oracleItems: [] };
    try {
      const collected = await this.collect(source, before, false);
      // New items are clustered against every stored signal, so that index must be whole.
      await this.clustered();
      const fetchedAt = new Date(this.now());
      const files = this.pendingFiles.get(source.id);
      this.pendingFiles.delete(source.id);
      if (files) state.files = files;
      ingested = this.ingest(source, collected.items, fetchedAt);
      await this.saveLearned();
      const { items, newItems } = ingested;
      const response = collected.response;
      state.consecutive_failures = 0;
      state.last_success_at = fetchedAt.toISOString();
      state.last_partial = collected.partial ? { kind: collected.partial.kind, message: collected.partial.message, at: fetchedAt.toISOString() } : null;
      if (response?.notModified) state.not_modified += 1;
      if (response && !response.notModified) {
        state.etag = headerText(response.headers.etag);
        state.last_modified = headerText(response.headers['last-modified']);
      }
      state.items_total += newItems;
      state.next_fetch_at = new Date(this.now() + this.jittered(source.cadence_s * 1000)).toISOString();
      record = { at: state.last_fetch_at!, ok: true, status: response?.status ?? null, not_modified: response?.notModified ?? false, items, new_items: newItems, duration_ms: this.now() - started, error: collected.partial ? { kind: collected.partial.kind, message: collected.partial.message } : null, ...(collected.itemsTotal !== undefined ? { items_total: collected.itemsTotal, dropped: (collected.dropped ?? []).slice(0, 50) } : {}) };
    } catch (error) {
      const failure = asFeedFailure(error);
      const at = new Date(this.now());
      state.consecutive_failures = before.consecutive_failures + 1;
      state.last_error = { kind: failure.kind, message: failure.message, at: at.toISOString() };
      const backoffMs = Math.min(source.cadence_s * 1000 * 2 ** state.consecutive_failures, Math.max(source.cadence_s, this.options.backoffCapS ?? 6 * 3_600) * 1000);
      const waitMs = Math.max(backoffMs, (failure.retryAfterS ?? 0) * 1000);
      // The host asked every client to slow down: all its sources wait, in every process.
      if (failure.kind === 'rate_limited' || failure.kind === 'unavailable') restMs = Math.max(restMs, failure.retryAfterS !== undefined ? failure.retryAfterS * 1000 : waitMs);
      state.next_fetch_at = new Date(at.getTime() + this.jittered(waitMs)).toISOString();
      record = { at: state.last_fetch_at!, ok: false, status: null, not_modified: false, items: 0, new_items: 0, duration_ms: at.getTime() - started, error: { kind: failure.kind, message: failure.message } };
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

  // ── Reading a source ────────────────────────────────────────────────────────────────────

  private async collect(source: FeedSourceRecord, state: SourceState, preview: boolean): Promise<Collected> {
    if (source.kind === 'folder') return this.collectFolder(source, preview ? emptyState() : state, preview);
    const response = await this.get(source.url, preview ? null : state);
    if (response.notModified) return { items: [], response, partial: null };
    const { readPdf, readFeedBody } = await readers();
    const contentType = headerText(response.headers['content-type']) ?? '';
    if (isPdf(contentType, response.body)) {
      const document = await readPdf(response.body);
      return { items: [{ sourceId: source.id, url: response.url, title: document.title, text: document.text, published: headerText(response.headers['last-modified']), fetchedAt: new Date(this.now()) }], response, partial: null };
    }
    if (source.kind === 'html') return this.collectListing(source, decodeBody(response.body, contentType).text, response);
    const feed = readFeedBody(response.body, contentType, response.url);
    const max = this.options.maxItemsPerFetch ?? 2_000;
    // An ill-formed feed read anyway: the source's health says so and names the first error.
    let partial: FeedFailure | null = feed.error ? new FeedFailure('malformed_xml', `read with errors (the first: ${feed.error})`) : null;
    let raw = feed.entries.filter((entry) => entry.dropReason === null);
    if (raw.length > max) {
      partial = new FeedFailure('no_items', `The feed lists ${raw.length.toLocaleString('en')} items; the first ${max.toLocaleString('en')} were read.`);
      raw = raw.slice(0, max);
    }
    const items: ExtractInput[] = [];
    let documents = this.options.maxDocumentsPerFetch ?? 20;
    const pageUrl = feed.link && safeUrl(feed.link, response.url) ? safeUrl(feed.link, response.url) : response.url;
    for (const entry of raw) {
      const url = entry.url;
      let text = entry.content || entry.summary;
      // PDF links met in any kind are read as documents (new ones only, a few per fetch).
      if (url && /\.pdf($|\?)/i.test(new URL(url).pathname) && documents > 0 && !this.known(url)) {
        documents -= 1;
        try {
          text = (await this.readDocumentAt(url)).text || text;
        } catch (error) {
          partial ??= asFeedFailure(error);
        }
      }
      items.push({ sourceId: source.id, url, guid: entry.guid, pageUrl, feedUrl: source.url, title: entry.title, text, summary: entry.summary, published: entry.published ?? entry.updated, updated: entry.updated, author: entry.author, categories: entry.categories, enclosures: entry.enclosures, fetchedAt: new Date(this.now()) });
    }
    if (feed.entries.length === 0 && preview) throw new FeedFailure('no_items', `The ${feed.format} feed has no items.`);
    return { items, response, partial, itemsTotal: feed.entries.length, dropped: feed.dropped };
  }

  private async collectListing(source: FeedSourceRecord, html: string, response: FetchResponse): Promise<Collected> {
    const { listingLinks } = await readers();
    const links = listingLinks(html, response.url, source.item_selector);
    if (links.length === 0) throw new FeedFailure('no_items', source.item_selector ? `The selector "${source.item_selector}" matched no links.` : 'The page has no same-site article links in its main content.');
    const items: ExtractInput[] = [];
    let partial: FeedFailure | null = null;
    let budget = this.options.maxDocumentsPerFetch ?? 20;
    for (const link of links) {
      if (this.known(link)) continue;
      if (budget <= 0) break;
      budget -= 1;
      try {
        const document = await this.readDocumentAt(link);
        items.push({ sourceId: source.id, url: link, title: document.title, text: document.text, summary: document.excerpt, published: document.published, author: document.byline ?? null, fetchedAt: new Date(this.now()) });
      } catch (error) {
        partial ??= asFeedFailure(error);
      }
    }
    return { items, response, partial };
  }

  /** An article page or a PDF, politely (the host's interval is kept between requests). */
  private async readDocumentAt(url: string): Promise<{ title: string; text: string; excerpt: string; published: string | null; byline?: string | null }> {
    await sleep(this.options.politeIntervalMs ?? 1_000);
    const response = await this.get(url, null);
    const { readPdf, readArticle } = await readers();
    const contentType = headerText(response.headers['content-type']) ?? '';
    if (isPdf(contentType, response.body)) {
      const document = await readPdf(response.body);
      return { ...document, excerpt: document.text.slice(0, 280), published: null };
    }
    const { text } = decodeBody(response.body, contentType);
    return readArticle(text, response.url);
  }

  private async collectFolder(source: FeedSourceRecord, state: SourceState, preview: boolean): Promise<Collected> {
    let directory: string;
    let names: string[];
    try {
      directory = fileURLToPath(source.url);
      names = await readdir(directory);
    } catch (error) {
      throw new FeedFailure('unreadable_file', `The folder cannot be read: ${error instanceof Error ? error.message : String(error)}.`);
    }
    const { readPdf, readDocx, readArticle } = await readers();
    const items: ExtractInput[] = [];
    const problems: string[] = [];
    const files: Record<string, string> = {};
    const maxBytes = this.options.limits?.maxBodyBytes ?? 10 * 1024 * 1024;
    for (const name of names.sort()) {
      const extension = extname(name).toLowerCase();
      if (!['.pdf', '.html', '.htm', '.md', '.markdown', '.txt', '.docx'].includes(extension)) continue;
      const path = join(directory, name);
      try {
        const info = await stat(path);
        if (!info.isFile()) continue;
        const key = `${info.mtimeMs}:${info.size}`;
        files[name] = key;
        if (state.files[name] === key) continue;
        if (info.size > maxBytes) throw new Error(`it is over the ${Math.round(maxBytes / 1048576)} MB cap`);
        const bytes = await readFile(path);
        const url = pathToFileURL(path).href;
        const published = info.mtime.toISOString();
        if (extension === '.pdf') {
          const document = await readPdf(bytes);
          items.push({ sourceId: source.id, url, title: document.title || name, text: document.text, published, fetchedAt: new Date(this.now()) });
        } else if (extension === '.docx') {
          const document = await readDocx(bytes);
          items.push({ sourceId: source.id, url, title: document.title || name, text: document.text, published, fetchedAt: new Date(this.now()) });
        } else if (extension === '.html' || extension === '.htm') {
          const article = readArticle(decodeBody(bytes, undefined).text, url);
          items.push({ sourceId: source.id, url, title: article.title || name, text: article.text, summary: article.excerpt, published: article.published ?? published, author: article.byline, fetchedAt: new Date(this.now()) });
        } else {
          const text = decodeBody(bytes, undefined).text;
          const firstLine = text.split(/\r?\n/).find((line) => line.trim())?.replace(/^#+\s*/, '').trim() ?? name;
          items.push({ sourceId: source.id, url, title: firstLine.slice(0, 200), text, published, fetchedAt: new Date(this.now()) });
        }
      } catch (error) {
        // A file that fails to read is retried next time (its key is not remembered).
        delete files[name];
        problems.push(`${name}: ${error instanceof FeedFailure ? error.message : error instanceof Error ? error.message : String(error)}`);
      }
    }
    // Remembered when the fetch is ingested, so an unchanged file is not read again.
    if (!preview) this.pendingFiles.set(source.id, files);
    return { items, response: null, partial: problems.length > 0 ? new FeedFailure('unreadable_file', `${problems.length} file${problems.length === 1 ? '' : 's'} could not be read (${problems.join('; ')})`) : null };
  }

  private readonly pendingFiles = new Map<string, Record<string, string>>();

  /** One GET with robots.txt, caps and the status mapped to words. */
  private async get(url: string, state: SourceState | null): Promise<FetchResponse> {
    const refused = await this.robots.check(url);
    if (refused) throw new FeedFailure('robots_disallowed', `Not fetched: ${refused}.`);
    const response = await fetchResource({ url, userAgent: this.userAgent, allowPrivate: this.options.allowPrivate ?? false, allowedPrivateHosts: this.options.allowedPrivateHosts, etag: state?.etag, lastModified: state?.last_modified, limits: this.options.limits, signal: this.stopping.signal });
    if (response.notModified || (response.status >= 200 && response.status < 300)) return response;
    const retryAfterS = retryAfter(headerText(response.headers['retry-after']), this.now());
    const status = response.status;
    if (status === 404) throw new FeedFailure('not_found', `HTTP 404: ${response.url} was not found.`);
    if (status === 410) throw new FeedFailure('gone', `HTTP 410: ${response.url} is gone for good.`);
    if (status === 429) throw new FeedFailure('rate_limited', `HTTP 429: the site asks us to slow down${retryAfterS ? ` (retry after ${retryAfterS} s)` : ''}.`, retryAfterS);
    if (status === 503) throw new FeedFailure('unavailable', `HTTP 503: the site is unavailable${retryAfterS ? ` (retry after ${retryAfterS} s)` : ''}.`, retryAfterS);
    if (status >= 500) throw new FeedFailure('server_error', `HTTP ${status}: the site's server failed.`);
    throw new FeedFailure('http_error', `HTTP ${status} from ${response.url}.`);
  }

  // ── Signals ─────────────────────────────────────────────────────────────────────────────

  private ingest(source: FeedSourceRecord, inputs: ExtractInput[], fetchedAt: Date): Ingested {
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
    if (this.options.learnEntities === false) return;
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
  private async saveLearned(): Promise<void> {
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
  private remember(signal: FeedSignal, announce: boolean): void {
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

  private known(url: string): boolean {
    const canonical = canonicalUrl(url);
    if (!canonical) return false;
    for (const signal of this.signals.values()) if (signal.canonical_url === canonical) return true;
    return false;
  }

  private definitionOf(input: SourceDefinitionInput): FeedSourceRecord {
    const parsed = SourceDefinition.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SourceInputError(`Invalid field \`${issue?.path.join('.') || 'body'}\`: ${issue?.message ?? 'invalid value'}.`);
    }
    const problem = urlProblem(parsed.data.kind, parsed.data.url);
    if (problem) throw new SourceInputError(problem);
    const id = parsed.data.id ?? newSourceId(parsed.data.name);
    return {
      id,
      name: parsed.data.name,
      kind: parsed.data.kind,
      url: parsed.data.url,
      cadence_s: parsed.data.cadence_s,
      role: parsed.data.role,
      ...(parsed.data.item_selector ? { item_selector: parsed.data.item_selector } : {}),
      paused: parsed.data.paused,
      created_at: new Date(this.now()).toISOString(),
    };
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

export class SourceInputError extends Error {}

interface Ingested {
  items: number;
  newItems: number;
  /** Signals new or changed by this fetch (stored with it). */
  signals: FeedSignal[];
  oracleItems: Array<OracleItem & { source_id: string }>;
}

function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' ? 'file:' : parsed.host;
  } catch {
    return url;
  }
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function isPdf(contentType: string, body: Buffer): boolean {
  return /application\/pdf/i.test(contentType) || body.subarray(0, 5).toString('latin1') === '%PDF-';
}

function safeUrl(raw: string, base: string): string | null {
  try {
    const url = new URL(raw, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Retry-After in seconds (delta-seconds or an HTTP date), capped at a day. */
export function retryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Math.ceil((Date.parse(value) - now) / 1000);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 86_400) : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
