/**
 * The local Retail Signal service: the interface over real HTTP on 127.0.0.1, backed by the
 * generated corpus. Started alone (`npm run service`), by the main process as the embedded
 * default, and by every integration and end-to-end test.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { openApiYaml } from '../shared/openapi/document';
import { ApiKeyStore, authenticate, CompanyIdentityProvider, DevIdentityProvider, type CompanyIdentitySettings, type TokenVerifier } from './auth';
import { registerExtensions, type ExtensionOptions } from './extensions';
import { DEFAULT_SIGNAL_COUNT } from './corpus/generator';
import { SeededRandom } from './corpus/random';
import type { FaultOptions } from './faults';
import type { ComposerSettings } from './answers/answer-pipeline';
import { guardEndpointTable, methodsFor, route } from './endpoint-routes';
import { authenticateChallenge, ServiceError, STATUS_BY_CODE } from './http-errors';
import { LIMIT_TABLE, RateLimiter, SharedRateLimiter, type LimitName, type LimitRule } from './rate-limiter';
import { ResearchRuns, type ResearchTiming } from './research/research-runs';
import { ResearchSchedules } from './research/research-schedules';
import { registerAskRoute } from './routes/ask';
import { registerDeveloperRoutes } from './routes/developer';
import { registerResearchRoutes } from './routes/research';
import { registerSessionRoutes } from './routes/sessions';
import { registerPageRoutes } from './routes/pages';
import { registerSourceRoutes } from './routes/sources';
import type { Identity, ServiceContext } from './service-context';
import { SessionStore } from './session-store';
import { SignalStore, startOfUtcDay } from './signal-store';
import type { CorpusCacheOptions } from './corpus/corpus-cache';
import { DatabaseFeedRepository } from './feed/feed-database';
import { FeedService, type FeedServiceOptions } from './feed/feed-service';
import { DatabaseLearnedEntityStore } from './feed/learned-entity-store';
import type { SampleMode } from './feed/health-snapshot';
import { fileSourceId, type SourceDefinitionInput } from './feed/source-registry';
import { registerFeedSourceRoutes } from './routes/feed-sources';
import { registerAdminBootstrapRoute } from './routes/admin-bootstrap';
import { isUnavailable, type Database } from './store/database';
import { importLegacyFiles } from './store/legacy-files';
import { openDatabase } from './store/open';
import { StoredSignals, type LoadedSignals } from './stored-signals';
import { NO_SCHEMA_COMPILERS } from './no-schema-compilers';
import { ServiceWarmUp, warmCorpus } from './server-warm-up';
import { RequestQuiet } from './request-quiet';
import { DEFAULT_TIME_ZONE } from './world/time-zone';

export const BODY_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_PACE_MS = 28;
/** What a 503 for a database outage tells callers to wait. */
const DATABASE_RETRY_AFTER_S = 5;

export interface ServiceOptions {
  host?: string;
  /** A team server's address as analysts reach it (its reverse proxy): what the OpenAPI document names. */
  publicUrl?: string;
  /** Addresses of the reverse proxy whose `X-Forwarded-For` names the caller (rate limits per analyst). */
  trustProxy?: string[];
  /** 0 picks a free port. */
  port?: number;
  /** Delay between SSE deltas; 0 streams as fast as the socket allows (tests). */
  paceMs?: number;
  /** The analyst's time zone when a request names none (an IANA name; default Asia/Kolkata, world/time-zone.ts). */
  timeZone?: string;
  seed?: number;
  signalCount?: number;
  /** Newest corpus date; defaults to the start of today (UTC). */
  anchor?: Date;
  now?: () => number;
  limits?: Record<LimitName, LimitRule>;
  /** New signals every few seconds and drifting health; on by default. */
  liveFeed?: boolean;
  liveIntervalMs?: number;
  /** Share a store between instances (tests) instead of generating one. */
  store?: SignalStore;
  /** Keep the generated corpus and its index in this cache (the CLI: its data directory); none by default. */
  corpusCache?: CorpusCacheOptions;
  /** Research timing: by default none (a run takes what its work takes); tests set a least duration. */
  research?: Partial<ResearchTiming>;
  /** Fault injection, off unless enabled here (never by a request alone). */
  faults?: FaultOptions;
  /** Where the development identity provider keeps its signing key; null = in memory. */
  dataDir?: string | null;
  /** Roster size for load tests of the health view (default: the ~140 real-named sources). */
  sourceCount?: number;
  /** Cache lifetime of the health snapshot, in seconds (the interface's 60 by default). */
  healthMaxAgeS?: number;
  /** Serve POST /api/v1/dev/token (the app's embedded service; off unless asked for). */
  devTokens?: boolean;
  /** The supervising app's one-time secret for POST /api/v1/dev/admin-token (routes/admin-bootstrap.ts). */
  adminBootstrapSecret?: string | null;
  /** Discover, follows, predict, webhooks and the developer area (extensions.ts). */
  extensions?: ExtensionOptions;
  /** Who writes answers (the extractive composer unless a model is given) and what verification does with unsupported claims. */
  composer?: ComposerSettings;
  /**
   * `postgres://…`: keep state in that PostgreSQL server (a team server; several processes may
   * share it). Otherwise embedded: in `dataDir`'s database folder, or in memory without one.
   */
  databaseUrl?: string | null;
  /** The company's identity provider: its JWTs are then the only ones accepted, and development tokens are off. */
  companyIdentity?: CompanyIdentitySettings | null;
  /**
   * The synthetic sample in the health snapshot: `replay` lists its sources with simulated health
   * (demos and tests; the default here), `snapshot` keeps its signals but lists no health for
   * them (the CLI's default), `off` starts without it (the CLI's --no-sample).
   */
  sample?: SampleMode;
  /** The live feed of fetched sources (src/service/feed). */
  feed?: FeedOptions;
  /**
   * Listen before the signals are held, and take them in meanwhile (server-warm-up.ts): the CLI's
   * way. Off (the default for code that starts a service and uses it at once, tests and the
   * eval), startService returns once the store is ready, as before.
   */
  warmInBackground?: boolean;
  /** Tests: the warm-up starts only once this settles (a store observed while still warming). */
  holdWarmUp?: Promise<unknown>;
}

export interface FeedOptions extends Omit<FeedServiceOptions, 'store' | 'now'> {
  /** Sources to register at start (a sources file's `sources`). */
  sources?: SourceDefinitionInput[];
}

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | null;
  }
  interface FastifyContextConfig {
    /** The route's rate limit: its bucket is what `x-rate-limit-remaining` reports (else ask's). */
    limit?: LimitName;
  }
}

/** A run takes what its work takes and starts as soon as a worker is free (tests slow it with `research`). */
export const DEFAULT_RESEARCH_TIMING: ResearchTiming = { durationMs: 0, queueMs: 0 };

export interface RunningService {
  url: string;
  port: number;
  app: FastifyInstance;
  store: SignalStore;
  /** The live feed of fetched sources. */
  feed: FeedService;
  /** The development identity provider (issues tokens this service accepts). */
  idp: DevIdentityProvider;
  /** The service's database (store/database.ts). */
  db: Database;
  /** How the stored (fetched) signals were read at start: from the index snapshot plus the rows changed since, or every row (none yet while warming). */
  readonly storedSignals: Omit<LoadedSignals, 'signals'>;
  /** The warm-up: `state` (warming, ready, failed) and whenReady() (server-warm-up.ts). */
  warmUp: ServiceWarmUp;
  /** Whether Discover's timeline is built yet: by its first request, or once the service was left quiet after its start (extensions.ts). */
  discoverTimelineBuilt(): boolean;
  /** Every route the server registered (endpoint-table.test.ts checks they are the table's rows). */
  routes: ReadonlyArray<{ method: string; url: string }>;
  close(): Promise<void>;
}

type StoreOptions = Pick<ServiceOptions, 'seed' | 'signalCount' | 'anchor' | 'now' | 'sourceCount'>;
const corpusOptions = (options: StoreOptions) => ({
  seed: options.seed,
  signalCount: options.signalCount,
  sourceCount: options.sourceCount,
  anchor: options.anchor ?? startOfUtcDay((options.now ?? Date.now)()),
});

export function createSignalStore(options: StoreOptions = {}): SignalStore {
  return new SignalStore(corpusOptions(options));
}

/** The limit a route declared in its config, else ask (also for requests that matched no route). */
function routeLimit(request: FastifyRequest): LimitName {
  try {
    return (request.routeOptions.config as { limit?: LimitName } | undefined)?.limit ?? 'ask';
  } catch {
    return 'ask';
  }
}

export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const now = options.now ?? Date.now;
  const { db } = await openDatabase({ url: options.databaseUrl ?? null, dataDir: options.dataDir ?? null });
  try {
    if (options.dataDir && db.kind === 'embedded') await importLegacyFiles(db, options.dataDir);
    return await startOnDatabase(options, db, now);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}

async function startOnDatabase(options: ServiceOptions, db: Database, now: () => number): Promise<RunningService> {
  // Without a store given, the service starts over a warming one: the sample's sources, its
  // signals taken in by the warm-up below (after listening, when warmInBackground).
  const store = options.store ?? SignalStore.warming(corpusOptions(options));
  const warmUp = new ServiceWarmUp(db);
  // One process owns an embedded database; a PostgreSQL one may be shared, so its limits are counted there.
  const limiter = db.kind === 'postgres' ? new SharedRateLimiter(db, options.limits ?? LIMIT_TABLE, now) : new RateLimiter(options.limits ?? LIMIT_TABLE, now);
  // The feed's sources, state, history, signals and proposals live in the database (migration 4);
  // stored signals are answerable again before follows listen, so a restart announces nothing twice.
  const feedRepository = new DatabaseFeedRepository(db);
  await feedRepository.releaseStaleLeases();
  // The ingested signals are read from the database into the store (stored-signals.ts); an
  // embedded service keeps a snapshot of their index beside its database for the next start.
  const storedSignals = new StoredSignals({
    db,
    store,
    snapshot: db.kind === 'embedded' && options.dataDir && options.corpusCache ? { dir: options.dataDir, codeDir: options.corpusCache.codeDir } : null,
  });
  let loaded: Omit<LoadedSignals, 'signals'> = { from: 'none', rowsRead: 0, ms: 0 };
  let corpusWritten: Promise<void> | null = null;
  const feed = new FeedService({ ...options.feed, store, now, repository: feedRepository, learnedStore: new DatabaseLearnedEntityStore(db) });
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    schemaController: { compilersFactory: NO_SCHEMA_COMPILERS },
    logger: false,
    // SECURITY: a forwarded address is believed only from the proxy's own addresses.
    trustProxy: options.trustProxy?.length ? options.trustProxy : false,
    // A malformed percent-encoded path (`/signal/%ff%fe`) is a 400 in the service's own shape.
    frameworkErrors: (error, request, reply) => {
      const message = error.code === 'FST_ERR_BAD_URL' ? 'The path is not valid percent-encoded UTF-8.' : 'The request could not be routed.';
      const send = (): void => {
        ensureRateHeader(request as FastifyRequest, reply as FastifyReply);
        void (reply as FastifyReply).status(400).send({ error: 'invalid_request', message });
      };
      resolveIdentity(request as FastifyRequest).then(send, send);
    },
  });

  const idp = await DevIdentityProvider.openShared(db, options.dataDir ?? null);
  // SECURITY: with the company's identity provider, tokens this service signs itself are not accepted.
  const verifier: TokenVerifier = options.companyIdentity ? await CompanyIdentityProvider.open(options.companyIdentity) : idp;
  const keys = new ApiKeyStore(db);
  const identify = (request: FastifyRequest): Identity => request.identity ?? { kind: 'anonymous', key: `ip:${request.ip}` };
  // Answers and reports state a sample source's health only when the sample reports one (replayed,
  // simulated); the fixed snapshot's sources were never fetched and have none (as /sources/health says).
  store.sampleReportsHealth = (options.sample ?? 'replay') === 'replay';
  const research: ResearchRuns = new ResearchRuns(store, { ...DEFAULT_RESEARCH_TIMING, ...options.research }, now, db, () => context.composer, options.timeZone ?? DEFAULT_TIME_ZONE);
  const context: ServiceContext = {
    store,
    warmUp,
    sessions: new SessionStore(db),
    limiter,
    research,
    // A scheduled run counts toward its owner's research limit; a period the limit refuses is skipped.
    schedules: new ResearchSchedules(db, research, now, async (owner) => (await limiter.take('research', `user:${owner}`)).allowed),
    idp,
    keys,
    faults: options.faults ?? { enabled: false },
    healthMaxAgeS: options.healthMaxAgeS ?? 60,
    feed,
    sample: options.sample ?? 'replay',
    devTokens: !options.companyIdentity && (options.devTokens ?? false),
    developerSignIn: !options.companyIdentity,
    paceMs: options.paceMs ?? DEFAULT_PACE_MS,
    timeZone: options.timeZone ?? DEFAULT_TIME_ZONE,
    composer: options.composer ?? { unsupportedClaims: 'remove' },
    now,
    identify,
    requireUser(request, surface) {
      const user = identify(request).user;
      if (!user) throw new ServiceError('unauthorized', `${surface} needs a signed-in caller: send a bearer JWT or an API key (Authorization: Bearer … or X-API-Key).`);
      return user;
    },
    async enforceLimit(name, key, reply) {
      const decision = await limiter.take(name, key);
      reply.header('x-rate-limit-remaining', String(decision.remaining));
      if (!decision.allowed) {
        throw new ServiceError('rate_limited', `Rate limit reached: ${LIMIT_TABLE[name].limit} requests per window. Retry in ${decision.retryAfterS} s.`, decision.retryAfterS);
      }
    },
    pendingHeaders(reply) {
      return Object.fromEntries(Object.entries(reply.getHeaders()).map(([name, value]) => [name, String(value)]));
    },
  };

  /**
   * Every response, errors included, says what is left in the caller's bucket of the route (the
   * ask bucket on routes without a limit of their own). The caller is resolved first thing, so a
   * body error (bad JSON, 413, 415) reports the user's bucket, not the IP's.
   */
  const ensureRateHeader = (request: FastifyRequest, reply: FastifyReply): void => {
    if (!reply.hasHeader('x-rate-limit-remaining')) {
      reply.header('x-rate-limit-remaining', String(limiter.peek(routeLimit(request), identify(request).key).remaining));
    }
  };
  /** Sets `request.identity`; a refused credential leaves the caller anonymous (by IP) and is thrown. */
  const resolveIdentity = async (request: FastifyRequest): Promise<void> => {
    const user = await authenticate(request.headers, verifier, keys, now());
    request.identity = user ? { kind: 'user', key: `user:${user.id}`, user } : { kind: 'anonymous', key: `ip:${request.ip}` };
  };

  app.decorateRequest('identity', null);
  const quiet = new RequestQuiet(); // work that only speeds up a later request waits for a quiet moment
  app.addHook('onRequest', async (request, reply) => {
    quiet.began((ended) => reply.raw.once('close', ended));
    // Who is calling comes first: a refused credential is 401 on every route, before any body error.
    await resolveIdentity(request);
    await warmUp.gate(request.routeOptions.url, reply);
    // SECURITY: bodies are JSON only; anything else is refused before parsing.
    if (!request.is404 && ['POST', 'PUT', 'PATCH'].includes(request.method)) {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      // The developer area's own forms are the one exception (CSRF-checked there).
      const developerForm = request.url.startsWith('/developer/') && type === 'application/x-www-form-urlencoded';
      if (type !== 'application/json' && !developerForm) {
        throw new ServiceError('unsupported_media_type', 'Send the body as JSON with `Content-Type: application/json`.');
      }
    }
  });
  // Every route is a row of the endpoint table (src/shared/endpoints/table.ts); any other fails here.
  guardEndpointTable(app);
  const routes: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (options) => {
    for (const method of [options.method].flat()) if (method !== 'HEAD') routes.push({ method, url: options.url });
  });
  app.addHook('onSend', async (request, reply, payload) => {
    ensureRateHeader(request, reply);
    return payload;
  });

  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    let serviceError: ServiceError;
    if (error instanceof ServiceError) serviceError = error;
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') serviceError = new ServiceError('payload_too_large', `Request body is over ${BODY_LIMIT_BYTES / 1024} KB.`);
    else if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') serviceError = new ServiceError('unsupported_media_type', 'Send the body as JSON with `Content-Type: application/json`.');
    else if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') serviceError = new ServiceError('invalid_request', 'The request body is empty; send a JSON object.');
    else if (isUnavailable(error)) serviceError = new ServiceError('unavailable', 'The service cannot reach its database right now; try again shortly.', DATABASE_RETRY_AFTER_S);
    else if (error.statusCode === 400) serviceError = new ServiceError('invalid_request', 'The request body is not valid JSON.');
    else serviceError = new ServiceError('internal', 'The service hit an internal error.');
    if (serviceError.retryAfterS !== undefined) reply.header('retry-after', String(serviceError.retryAfterS));
    const challenge = authenticateChallenge(serviceError);
    if (challenge) reply.header('www-authenticate', challenge);
    ensureRateHeader(request, reply);
    void reply.status(STATUS_BY_CODE[serviceError.code]).send({ error: serviceError.code, message: serviceError.message });
  });
  app.setNotFoundHandler((request, reply) => {
    ensureRateHeader(request, reply);
    const path = request.url.split('?')[0]!;
    const allowed = methodsFor(routes, path);
    if (allowed.length > 0) {
      // A known path with another method: 405 with the methods it has (RFC 9110 §15.5.6).
      void reply
        .status(405)
        .header('allow', allowed.join(', '))
        .send({ error: 'method_not_allowed', message: `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}.` });
      return;
    }
    void reply.status(404).send({ error: 'not_found', message: `No route for ${request.method} ${path}.` });
  });

  registerAskRoute(app, context);
  registerSourceRoutes(app, context);
  registerFeedSourceRoutes(app, context);
  registerPageRoutes(app, context);
  registerResearchRoutes(app, context);
  registerSessionRoutes(app, context);
  registerDeveloperRoutes(app, context);
  if (options.adminBootstrapSecret && !options.companyIdentity) registerAdminBootstrapRoute(app, context, options.adminBootstrapSecret);
  const extensions = await registerExtensions(app, context, { ...options.extensions, db, quiet });
  // Written on first request (stringifying the document takes a noticeable part of a start).
  let openApi: string | null = null;
  route(app, 'openapi', async (_request, reply) => reply.type('application/yaml; charset=utf-8').send((openApi ??= openApiYaml(options.publicUrl ?? url))));

  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;

  let liveTimer: NodeJS.Timeout | null = null;
  /**
   * What a start did before it listened: the corpus, the stored signals (after it, as before),
   * the feed's state, the sources file, research runs left queued, schedules, the feed's fetches.
   */
  const warming = warmUp.run(async (pause) => {
    await warmUp.held(options.holdWarmUp);
    // The total the progress counts towards: the corpus's signals, then the stored ones once counted
    // (that count is one scan of the table: not run twice, nor before the corpus is in).
    const corpusCount = store.corpusHeld ? store.index.size : (options.signalCount ?? DEFAULT_SIGNAL_COUNT);
    if (!store.corpusHeld) corpusWritten = (await warmCorpus(store, corpusOptions(options), options.corpusCache ?? null, pause, (message) => process.stderr.write(`${message}\n`))).written;
    const read = await storedSignals.load((count) => (warmUp.expectedSignals = corpusCount + count), pause);
    loaded = { from: read.from, rowsRead: read.rowsRead, ms: read.ms };
    await pause();
    await feed.load(read.signals);
    // A sources file is applied at each start; an entry without an id gets one derived from its URL.
    for (const source of options.feed?.sources ?? []) await feed.ensure({ ...source, id: source.id ?? fileSourceId(source.url) });
    await pause();
    await context.research.restore();
    context.schedules.start();
    feed.start();
    extensions.listening();
    // The sample replayed as arrivals (demos and tests), labelled simulated in the health snapshot.
    if ((options.liveFeed ?? true) && context.sample === 'replay') {
      const random = new SeededRandom(now() & 0xffffffff);
      liveTimer = setInterval(() => {
        const at = now();
        for (let i = random.int(1, 3); i > 0; i -= 1) store.addLiveSignal(new Date(at));
        store.driftHealth(random, at);
      }, options.liveIntervalMs ?? 4_000);
      liveTimer.unref();
    }
  });
  if (!options.warmInBackground) {
    await warming;
    if (warmUp.state === 'failed') {
      await app.close().catch(() => undefined);
      throw warmUp.error;
    }
  }

  return {
    url,
    port,
    app,
    store,
    feed,
    idp,
    db,
    get storedSignals() {
      return loaded;
    },
    warmUp,
    discoverTimelineBuilt: () => extensions.discoverTimelineBuilt,
    routes,
    async close() {
      if (liveTimer) clearInterval(liveTimer);
      // A warm-up still under way stops at its next pause; what it wrote is whole (atomic files).
      warmUp.stop();
      await warming;
      extensions.close();
      await feed.close();
      // With the feed stopped the store holds exactly the stored signals: the next start reads the snapshot.
      await storedSignals.writeSnapshot().catch((error: unknown) => process.stderr.write(`The signal index snapshot could not be written (${error instanceof Error ? error.message : String(error)}).\n`));
      // A start that generated the corpus lets its cache write finish (the next start reads it).
      // A request still answering as the close begins keeps its connection alive afterwards for
      // Fastify's 72 s keep-alive; each connection is let go as soon as its last answer ends.
      const letIdleGo = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        context.schedules.close();
        await Promise.all([app.close(), corpusWritten, context.research.close()]);
      } finally {
        clearInterval(letIdleGo);
      }
      // Nothing adds a signal (feed closed) or a follow (server closed) now: the arrivals still
      // queued are written before the database closes, so they are in the feed after a restart.
      await extensions.closeFollows();
      // New sessions' rows still held back (an ask cut just before the close) are written now.
      await context.sessions.flush();
      await db.close();
    },
  };
}
