/**
 * A service listens before it holds its signals (issue 48 item 4, decision 0040): generating and
 * indexing a million sample signals took 107 s, and asks waited for all of it. Now the service
 * opens its database, registers its routes and listens over a warming store (SignalStore.warming:
 * the sample's sources, no signals); then, between requests, it takes in the corpus (read from
 * the cache or generated, in steps), reads the stored signals and starts the feed. Meanwhile:
 *   - an ask is answered from the database's own full-text search (PostgreSQL or PGlite): a real
 *     answer over the signals the database holds, cited and verified as any other, and marked
 *     `x-index-state: warming` (its ranking is ts_rank, not the index's); an ask the database
 *     finds nothing for waits for the index instead;
 *   - every other route that reads the signals waits until the store is ready (never a wrong
 *     404 or an empty page);
 *   - every response says `x-index-state: warming` or `ready`, and the CLI prints an
 *     `index_ready` line (the app's supervisor reads its lines).
 * Nothing is written while warming except the corpus cache and the stored signals' snapshot,
 * both atomically: a kill -9 meanwhile loses nothing (the database stays the truth).
 */
import type { FastifyReply } from 'fastify';
import { corpusCacheBytes, corpusCacheKey, readPackedCorpusCacheStepped, writeCorpusCache, type CorpusCacheOptions } from './corpus/corpus-cache';
import { corpusSteps, type CorpusOptions } from './corpus/generator';
import { ServiceError } from './http-errors';
import type { SearchHit } from './retrieval/search-index';
import type { SignalStore } from './signal-store';
import type { Database } from './store/database';
import { SignalRepository } from './store/signal-repository';

/**
 * Routes answered while the store warms: the ask (from the database's full-text search) and
 * those that read no signal. Every other route waits for the store.
 */
const WARM_ROUTES = new Set(['/api/v1/ask', '/.well-known/openapi.yaml', '/.well-known/jwks.json', '/api/v1/dev/token', '/api/v1/dev/admin-token']);

export type IndexState = 'warming' | 'ready' | 'failed';

/** Thrown into a warm-up the service's close stopped. */
export class WarmUpStopped extends Error {
  constructor() {
    super('the service closed while it was warming up');
  }
}

export class ServiceWarmUp {
  private current: IndexState = 'warming';
  private stopped = false;
  private failure: unknown = null;
  private readonly done: Promise<void>;
  private settle!: (error?: unknown) => void;
  private readonly repository: SignalRepository;
  private release!: () => void;
  private readonly stopping = new Promise<void>((resolve) => (this.release = resolve));
  readonly startedAt = performance.now();
  /** How long the warm-up took (ms), once ready. */
  readyAfterMs: number | null = null;
  /**
   * How many signals the index will hold once warm (the corpus's and the stored ones), once
   * counted; what the CLI's `index_progress` lines (and the app's status bar) count towards.
   */
  expectedSignals: number | null = null;

  constructor(db: Database) {
    this.repository = new SignalRepository(db);
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // A failure is reported by whoever waits (and by the CLI); an unwatched one is not a crash.
    this.done.catch(() => undefined);
  }

  get state(): IndexState {
    return this.current;
  }

  get ready(): boolean {
    return this.current === 'ready';
  }

  /**
   * Every response says whether its answer came from the whole index (`x-index-state`); a route
   * that reads the signals waits for them rather than answering from a part (WARM_ROUTES do not).
   */
  async gate(routeUrl: string | undefined, reply: FastifyReply): Promise<void> {
    reply.header('x-index-state', this.current);
    if (this.ready || WARM_ROUTES.has(routeUrl ?? '')) return;
    await this.whenServing();
    reply.header('x-index-state', this.current);
  }

  /** whenReady, with a failed warm-up as the 503 a caller reads. */
  async whenServing(): Promise<void> {
    try {
      await this.done;
    } catch {
      throw new ServiceError('unavailable', 'The service could not load its signals; it is restarting or needs its administrator (see its log).', 5);
    }
  }

  /** Resolves once every signal is held and the feed runs; rejects if the warm-up failed. */
  whenReady(): Promise<void> {
    return this.done;
  }

  /** Runs the warm-up's work (once), settling whenReady with its outcome. */
  async run(work: (step: () => Promise<void>) => Promise<void>): Promise<void> {
    try {
      await work(() => this.pause());
      this.current = 'ready';
      this.readyAfterMs = performance.now() - this.startedAt;
      this.settle();
    } catch (error) {
      this.current = 'failed';
      this.failure = error;
      this.settle(error);
    }
  }

  /** The close stops a warm-up at its next pause (or while it is held). */
  stop(): void {
    this.stopped = true;
    this.release();
  }

  /** Waits for `hold` (tests keep a store warming with it), or until the close stops the warm-up. */
  async held(hold: Promise<unknown> | undefined): Promise<void> {
    if (hold) await Promise.race([hold, this.stopping]);
    if (this.stopped) throw new WarmUpStopped();
  }

  get error(): unknown {
    return this.failure;
  }

  /** A pause between two steps of work: requests are served meanwhile. */
  private async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.stopped) throw new WarmUpStopped();
  }

  /**
   * An ask's hits while warming: the database's full-text search (best ts_rank first, 150 deep as
   * the index's pool), published up to `now`. The score is the rank; entity matches are not counted.
   */
  async search(query: string, now: number): Promise<SearchHit[]> {
    const found = await this.repository.search(query, { limit: 150, until: new Date(now).toISOString() });
    return found.map(({ signal, rank }) => ({ signal, score: rank, textScore: rank, entityMatches: 0 }));
  }
}

/** Drives a stepped piece of work (a generator that pauses), pausing between its steps. */
export async function runSteps<T>(steps: Generator<void, T>, pause: () => Promise<void>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

/**
 * The warming store takes in the corpus these options give: from the corpus cache when it holds
 * it (its packed index appended as it is), else generated and indexed in steps, the cache then
 * written in the background for the next start (as openCachedSignalStore does before listening).
 */
export async function warmCorpus(
  store: SignalStore,
  options: CorpusOptions,
  cache: CorpusCacheOptions | null,
  pause: () => Promise<void>,
  warn: (message: string) => void,
): Promise<{ from: 'cache' | 'generated'; written: Promise<void> | null }> {
  let key: string | null = null;
  if (cache) {
    try {
      key = corpusCacheKey(options, cache.codeDir);
    } catch (error) {
      warn(`The corpus cache is off: its code could not be hashed (${error instanceof Error ? error.message : String(error)}).`);
    }
  }
  if (cache && key) {
    const { cached, problem } = await readPackedCorpusCacheStepped(cache.dir, key, pause);
    let unusable = problem;
    if (cached) {
      try {
        await runSteps(store.takeCorpusSteps(cached.corpus, cached.packed), pause);
        return { from: 'cache', written: null };
      } catch (error) {
        if (error instanceof WarmUpStopped || store.index.size > 0) throw error;
        unusable = error instanceof Error ? error.message : String(error);
      }
    }
    if (unusable) warn(`The corpus cache could not be used (${unusable}); generating the corpus again.`);
  }
  const corpus = await runSteps(corpusSteps(options), pause);
  await runSteps(store.takeCorpusSteps(corpus, null), pause);
  if (!cache || !key) return { from: 'generated', written: null };
  let bytes: Buffer;
  try {
    // Now, before the feed adds anything: the store's index holds exactly the corpus.
    bytes = corpusCacheBytes(key, { corpus, index: store.index });
  } catch (error) {
    warn(`The corpus cache is off for this corpus (${error instanceof Error ? error.message : String(error)}).`);
    return { from: 'generated', written: null };
  }
  const written = writeCorpusCache(cache.dir, key, bytes).catch((error: unknown) => warn(`The corpus cache could not be written (${error instanceof Error ? error.message : String(error)}).`));
  return { from: 'generated', written };
}
