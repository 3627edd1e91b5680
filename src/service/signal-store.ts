/**
 * The service's live data: sources, signals and their search index. The live feed adds
 * signals and moves source health here; everything reads from one place.
 */
import {
  CORPUS_STEP_SIGNALS,
  corpusSources,
  DEFAULT_ANCHOR,
  DEFAULT_SEED,
  generateCorpus,
  groupSourcesByKind,
  makeSignal,
  type Corpus,
  type CorpusOptions,
  type CorpusSignal,
  type CorpusSource,
  type SourceKind,
} from './corpus/generator';
import { SeededRandom } from './corpus/random';
import { SignalSearchIndex, type PackedIndex } from './retrieval/search-index';
import { finishSteps } from './retrieval/packed-snapshot';
import { corpusCacheBytes, corpusCacheKey, readCorpusCache, writeCorpusCache, type CorpusCacheOptions } from './corpus/corpus-cache';
import { SignalFacts } from './answers/signal-facts';
import type { GroundTruth } from './corpus/ground-truth';
import type { SourceEntry, SourceHealth } from '../shared/service-schemas';

const DAY_MS = 86_400_000;

export class SignalStore {
  readonly sources: CorpusSource[];
  readonly sourcesById: Map<string, CorpusSource>;
  readonly index: SignalSearchIndex;
  /** Signals grouped by the fact they report (counts, latest figures, disagreements). */
  readonly facts = new SignalFacts();
  /** The true values the corpus was written from (the evaluation reads them; answers never do). */
  truth: GroundTruth;
  /**
   * Whether the corpus's signals are all held: false while a warming store (SignalStore.warming)
   * takes them in between requests; its sources are there from the first moment.
   */
  corpusHeld = true;
  /** Newest publication time of the generated corpus ("today" for its figures). */
  readonly anchor: Date;
  private readonly bySlug = new Map<string, CorpusSignal>();
  private readonly byKind: Map<SourceKind, CorpusSource[]>;
  private readonly lastItemAt = new Map<string, string>();
  private readonly liveRandom: SeededRandom;
  private liveCount = 0;
  private readonly signalListeners = new Set<(signal: CorpusSignal) => void>();
  /** Told of every signal newly held, announced or not (Discover's timeline). */
  private readonly heldListeners = new Set<(signal: CorpusSignal) => void>();
  /** Told when a held signal is replaced by its new version (a fetched item whose content changed). */
  private readonly replacedListeners = new Set<(previous: CorpusSignal, next: CorpusSignal) => void>();
  private readonly seed: number;
  /**
   * Whether the sample's sources have a health to report: simulated when the sample is replayed,
   * none for the fixed snapshot (never fetched). Fetched sources always report their measured one.
   */
  sampleReportsHealth = true;
  private readonly sampleSourceIds: Set<string>;
  oracleMissRate = 0.042;
  oracleUpdatedAt: string;

  /** `built`: the corpus these options generate and its index, read from the corpus cache. */
  constructor(options: CorpusOptions & { now?: () => number } = {}, built?: { corpus: Corpus; index: SignalSearchIndex }) {
    const corpus = built?.corpus ?? generateCorpus(options);
    this.seed = options.seed ?? 0;
    this.sources = corpus.sources;
    this.sourcesById = new Map(corpus.sources.map((source) => [source.id, source]));
    this.sampleSourceIds = new Set(corpus.sources.map((source) => source.id));
    this.byKind = groupSourcesByKind(corpus.sources);
    this.index = built?.index ?? new SignalSearchIndex(corpus.signals);
    this.truth = corpus.truth;
    this.anchor = options.anchor ?? DEFAULT_ANCHOR;
    for (const signal of corpus.signals) {
      this.facts.add(signal);
      this.bySlug.set(signal.slug, signal);
      const previous = this.lastItemAt.get(signal.source_id);
      if (!previous || previous < signal.published_at) this.lastItemAt.set(signal.source_id, signal.published_at);
    }
    this.liveRandom = new SeededRandom((options.seed ?? 1) ^ 0x5eed);
    this.oracleUpdatedAt = (options.anchor ?? new Date()).toISOString();
  }

  /**
   * A store with the corpus's sources and none of its signals yet: the service listens over it
   * and takes the corpus in afterwards (takeCorpusSteps, driven by server-warm-up.ts).
   */
  static warming(options: CorpusOptions = {}): SignalStore {
    const anchor = options.anchor ?? DEFAULT_ANCHOR;
    const truth: GroundTruth = { seed: options.seed ?? DEFAULT_SEED, anchor: anchor.toISOString(), stores: {}, results: {}, markets: [], festive: [], funding: {}, conflicts: [] };
    const store = new SignalStore(options, { corpus: { sources: corpusSources(options), signals: [], truth }, index: new SignalSearchIndex() });
    store.corpusHeld = false;
    return store;
  }

  /**
   * A warming store takes in its corpus (generated, or read from the cache with its packed index),
   * pausing every CORPUS_STEP_SIGNALS signals. Its documents come first, in the corpus's order,
   * as the constructor would have put them: the index is the same one. A malformed packed index
   * throws before anything changes.
   */
  *takeCorpusSteps(corpus: Corpus, packed: PackedIndex | null): Generator<void, void> {
    if (this.corpusHeld) throw new Error('the store already holds its corpus');
    if (this.index.size > 0) throw new Error('the corpus must come before any other signal');
    if (packed) yield* this.index.appendPackedSteps(corpus.signals, packed);
    else {
      for (const [at, signal] of corpus.signals.entries()) {
        this.index.add(signal);
        if (at % CORPUS_STEP_SIGNALS === CORPUS_STEP_SIGNALS - 1) yield;
      }
      this.index.trimLists();
    }
    for (const [at, signal] of corpus.signals.entries()) {
      this.facts.add(signal);
      this.bySlug.set(signal.slug, signal);
      this.noteLastItem(signal.source_id, signal.published_at);
      if (at % CORPUS_STEP_SIGNALS === CORPUS_STEP_SIGNALS - 1) yield;
    }
    this.truth = corpus.truth;
    this.corpusHeld = true;
  }

  getSignal(id: string): CorpusSignal | undefined {
    return this.index.get(id);
  }

  getSignalBySlug(slug: string): CorpusSignal | undefined {
    return this.bySlug.get(slug);
  }

  /** A new signal arrives from the live feed, retrievable at once. */
  addLiveSignal(at: Date): CorpusSignal {
    this.liveCount += 1;
    const signal = makeSignal(this.liveRandom, 1_000_000 + this.liveCount, this.seed, at, this.byKind);
    this.index.add(signal);
    this.facts.add(signal);
    this.bySlug.set(signal.slug, signal);
    this.lastItemAt.set(signal.source_id, signal.published_at);
    for (const listener of this.heldListeners) listener(signal);
    for (const listener of this.signalListeners) listener(signal);
    return signal;
  }

  /**
   * A signal from a fetched source (src/service/feed), answerable at once: indexed for search and
   * Discover, counted in facts, and announced to follows and webhooks like any arrival
   * (`announce` false: a stored signal read back after a restart or from another process).
   */
  addSignal(signal: CorpusSignal, announce = true): void {
    const known = this.index.get(signal.id);
    // The very signal loaded from the database at start (the feed then takes it up too).
    if (known === signal) return;
    if (known) return this.updateSignal(signal);
    this.index.add(signal);
    this.facts.add(signal);
    this.bySlug.set(signal.slug, signal);
    const previous = this.lastItemAt.get(signal.source_id);
    if (!previous || previous < signal.published_at) this.lastItemAt.set(signal.source_id, signal.published_at);
    for (const listener of this.heldListeners) listener(signal);
    if (announce) for (const listener of this.signalListeners) listener(signal);
  }

  /**
   * Signals read back from the database at start (none of them held yet), with a snapshot of an
   * index over them alone: indexed without tokenizing again, and not announced.
   */
  addStoredSnapshot(signals: CorpusSignal[], packed: PackedIndex, lastItemAt?: Readonly<Record<string, string>>): void {
    finishSteps(this.addStoredSnapshotSteps(signals, packed, lastItemAt));
  }

  /**
   * addStoredSnapshot in steps (a warming service answers asks between them; 100,000 signals took
   * 3.2 s as one step under load, decision 0040 round 5): the index's checks, then the append,
   * then the facts every CORPUS_STEP_SIGNALS signals. A malformed snapshot throws before anything
   * changes; a warming ask reads neither the index nor the facts (routes/ask.ts warmRetrieval).
   */
  *addStoredSnapshotSteps(signals: CorpusSignal[], packed: PackedIndex, lastItemAt?: Readonly<Record<string, string>>): Generator<void, void> {
    yield* this.index.appendPackedSteps(signals, packed);
    for (const [at, signal] of signals.entries()) {
      this.facts.add(signal);
      this.bySlug.set(signal.slug, signal);
      if (!lastItemAt) this.noteLastItem(signal.source_id, signal.published_at);
      if (at % CORPUS_STEP_SIGNALS === CORPUS_STEP_SIGNALS - 1) yield;
    }
    // Each source's newest publication time among these signals, as the snapshot kept it (lastItemsOf): one per source, not per signal.
    if (lastItemAt) for (const [source, publishedAt] of Object.entries(lastItemAt)) this.noteLastItem(source, publishedAt);
  }

  private noteLastItem(source: string, publishedAt: string): void {
    const previous = this.lastItemAt.get(source);
    if (!previous || previous < publishedAt) this.lastItemAt.set(source, publishedAt);
  }

  /** A fetched item whose content changed: same id, new text, re-indexed in place. */
  updateSignal(signal: CorpusSignal): void {
    const previous = this.index.get(signal.id);
    if (!previous) return this.addSignal(signal);
    if (previous.slug !== signal.slug) this.bySlug.delete(previous.slug);
    this.index.replace(signal);
    this.bySlug.set(signal.slug, signal);
    for (const listener of this.replacedListeners) listener(previous, signal);
  }

  /**
   * The health an answer or report may state for a source: null when none is known (the fixed
   * sample snapshot's sources), undefined for a source the store does not hold.
   */
  readonly healthOf = (sourceId: string): SourceHealth | null | undefined => {
    if (!this.sampleReportsHealth && this.sampleSourceIds.has(sourceId)) return null;
    return this.sourcesById.get(sourceId)?.health;
  };

  /** A fetched source, so its signals resolve to it (name, health) like the sample's do. */
  registerSource(source: CorpusSource): void {
    this.sourcesById.set(source.id, source);
  }

  unregisterSource(id: string): void {
    if (!this.sources.some((source) => source.id === id)) this.sourcesById.delete(id);
  }

  /** The feed's own entry for a fetched source (its measured health), when one is wired. */
  feedSourceEntry: ((id: string, now: number) => SourceEntry | null) | null = null;

  /** Every signal, in no particular order (Discover, follows and forecasts filter it themselves). */
  *allSignals(): IterableIterator<CorpusSignal> {
    yield* this.bySlug.values();
  }

  /** Called for each live signal as it arrives (the follow feed and webhooks); returns its undo. */
  onSignalAdded(listener: (signal: CorpusSignal) => void): () => void {
    this.signalListeners.add(listener);
    return () => this.signalListeners.delete(listener);
  }

  /**
   * Called for each signal the store newly holds after it is called, announced or not (another
   * team process's, read by the feed's sync): Discover lists them too. Returns its undo.
   */
  onSignalHeld(listener: (signal: CorpusSignal) => void): () => void {
    this.heldListeners.add(listener);
    return () => this.heldListeners.delete(listener);
  }

  /** Called when a held signal is replaced by a new version of it (same id); returns its undo. */
  onSignalReplaced(listener: (previous: CorpusSignal, next: CorpusSignal) => void): () => void {
    this.replacedListeners.add(listener);
    return () => this.replacedListeners.delete(listener);
  }

  /** How many signals `allSignals()` yields. */
  get signalCount(): number {
    return this.bySlug.size;
  }

  sourceEntry(source: CorpusSource, now: number): SourceEntry {
    const fetched = this.feedSourceEntry?.(source.id, now);
    if (fetched) return fetched;
    const factor = source.health === 'healthy' ? 1 : source.health === 'degraded' ? 0.45 : 0;
    // items_24h follows the source's rate and health, with a deterministic wobble per hour.
    const hour = Math.floor(now / 3_600_000);
    const wobble = 0.85 + ((hashNumber(`${source.id}:${hour}`) % 300) / 1000);
    return {
      id: source.id,
      name: source.name,
      kind: source.kind,
      health: source.health,
      cadence: source.cadence,
      items_24h: Math.round(source.dailyRate * factor * wobble),
      last_item_at: this.lastItemAt.get(source.id) ?? null,
      url: source.url,
      daily_rate: source.dailyRate,
    };
  }

  /** The sample's sources as health entries (simulated health; the snapshot is built in feed/health-snapshot.ts). */
  sampleSourceEntries(now: number): SourceEntry[] {
    return this.sources.map((source) => this.sourceEntry(source, now));
  }

  /** Health drifts: a few sources change state, the oracle miss-rate moves. */
  driftHealth(random: SeededRandom, now: number): void {
    for (const source of this.sources) {
      if (!random.chance(0.02)) continue;
      const roll = random.next();
      source.health = roll < 0.7 ? 'healthy' : roll < 0.9 ? 'degraded' : 'down';
    }
    this.oracleMissRate = Math.round(Math.min(0.3, Math.max(0.005, this.oracleMissRate + (random.next() - 0.5) * 0.01)) * 1000) / 1000;
    this.oracleUpdatedAt = new Date(now).toISOString();
  }
}

/** Where a store's corpus came from, and the cache write still under way (tests wait for it). */
export interface OpenedSignalStore {
  store: SignalStore;
  from: 'cache' | 'generated';
  written: Promise<void> | null;
}

/**
 * A store over the corpus these options generate, read from the corpus cache when it holds it;
 * else generated and indexed, and the cache written in the background for the next start.
 */
/** Each source's newest `published_at` among these signals (as SignalStore keeps it: the greatest string). */
export function lastItemsOf(signals: Iterable<CorpusSignal>): Record<string, string> {
  const newest = new Map<string, string>();
  for (const signal of signals) {
    const previous = newest.get(signal.source_id);
    if (!previous || previous < signal.published_at) newest.set(signal.source_id, signal.published_at);
  }
  return Object.fromEntries(newest);
}

export function openCachedSignalStore(
  options: CorpusOptions,
  cache: CorpusCacheOptions,
  warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): OpenedSignalStore {
  let key: string;
  try {
    key = corpusCacheKey(options, cache.codeDir);
  } catch (error) {
    // Code that cannot be read back (an unusual packaging) only means no cache.
    warn(`The corpus cache is off: its code could not be hashed (${error instanceof Error ? error.message : String(error)}).`);
    return { store: new SignalStore(options), from: 'generated', written: null };
  }
  const { cached, problem } = readCorpusCache(cache.dir, key);
  if (problem) warn(`The corpus cache could not be used (${problem}); generating the corpus again.`);
  if (cached) return { store: new SignalStore(options, cached), from: 'cache', written: null };
  const corpus = generateCorpus(options);
  const built = { corpus, index: new SignalSearchIndex(corpus.signals) };
  // The bytes now, before the live feed changes anything; the write itself is not waited for.
  let bytes: Buffer;
  try {
    bytes = corpusCacheBytes(key, built);
  } catch (error) {
    // A corpus that cannot be packed is simply not cached: the service starts all the same (the
    // JSON cache once failed a million-signal start, found by the storage bench).
    warn(`The corpus cache is off for this corpus (${error instanceof Error ? error.message : String(error)}).`);
    return { store: new SignalStore(options, built), from: 'generated', written: null };
  }
  const written = writeCorpusCache(cache.dir, key, bytes).catch((error: unknown) =>
    warn(`The corpus cache could not be written (${error instanceof Error ? error.message : String(error)}).`),
  );
  return { store: new SignalStore(options, built), from: 'generated', written };
}

export function startOfUtcDay(ms: number): Date {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS);
}

function hashNumber(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return hash >>> 0;
}
