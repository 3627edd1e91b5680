/**
 * The surfaces beyond v1's first table (docs/decisions/design.md §3): Discover, follows and their feed,
 * predict, webhooks and the signed-in developer area. One call from server.ts wires them;
 * their stores live here so the service's shared context stays as it was.
 */
import type { FastifyInstance } from 'fastify';
import { FollowStore } from './follows/follow-store';
import { discoverItem } from './follows/signal-query';
import { SignalTimeline } from './follows/signal-timeline';
import { registerDeveloperArea } from './routes/developer-area';
import { registerDiscoverRoutes } from './routes/discover';
import { registerEntityRoutes } from './routes/entities';
import { followJson, registerFollowRoutes } from './routes/follow';
import { registerPredictRoutes } from './routes/predict';
import { registerWebhookRoutes } from './routes/webhooks';
import type { ServiceContext } from './service-context';
import { SURFACE_LIMITS, SurfaceLimiter, type SurfaceLimitName } from './surface-limits';
import type { LimitRule } from './rate-limiter';
import type { RequestQuiet } from './request-quiet';
import type { Database } from './store/database';
import { DEFAULT_RETRY_DELAYS_MS, WebhookStore } from './webhooks/webhook-store';

export interface ExtensionOptions {
  /** Deliver webhooks to loopback and private addresses (`--allow-private-webhooks`). */
  allowPrivateWebhooks?: boolean;
  /** Waits between webhook attempts; its length + 1 is the attempt count (tests shorten it). */
  webhookRetryDelaysMs?: number[];
  limits?: Partial<Record<SurfaceLimitName, LimitRule>>;
  /** How long nobody asks anything, after the start, before Discover's timeline is built ahead of its first use (DISCOVER_WARM_QUIET_MS; tests shorten it). */
  discoverWarmQuietMs?: number;
}

/**
 * Discover's timeline (sorting every signal and listing each under its filters: ~0.5 CPU s at
 * 20,000 signals on a loaded machine, decision 0040 round 8) is built by its first request, or
 * ahead of it once nobody has asked anything for this long after the start: a service that is
 * only asked questions (each e2e app, most integration processes, an analyst who never opens
 * Discover) does not build it during its start.
 */
export const DISCOVER_WARM_QUIET_MS = 10_000;

export async function registerExtensions(
  app: FastifyInstance,
  context: ServiceContext,
  options: ExtensionOptions & { db: Database; quiet: RequestQuiet },
): Promise<{ listening(): void; close(): void; closeFollows(): Promise<void>; readonly discoverTimelineBuilt: boolean }> {
  const limiter = new SurfaceLimiter({ ...SURFACE_LIMITS, ...options.limits }, context.now);
  const follows = new FollowStore(context.store, context.now, options.db);
  const webhooks = await WebhookStore.open({
    allowPrivate: options.allowPrivateWebhooks ?? false,
    retryDelaysMs: options.webhookRetryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    now: context.now,
    db: options.db,
  });

  const stopMatches = follows.onMatch((owner, matched, signal) => {
    webhooks.emit(owner, 'follow.matched', { follows: matched.map(followJson), signal: discoverItem(context.store, signal) });
  });
  const stopResearch = context.research.onSettled((run) => {
    webhooks.emit(run.owner, 'research.completed', {
      run: {
        id: run.id,
        topic: run.topic,
        status: run.status,
        ...(run.status === 'completed' ? { report_url: `/api/v1/research/${run.id}/report`, citation_count: run.citations.length, cost_usd: run.costUsd } : { error: run.error }),
      },
    });
  });
  // A scheduled run that found something new is announced on its own (research-schedules.ts).
  const stopChanged = context.research.onSettled((run) => {
    const changes = run.details?.changes;
    if (run.status !== 'completed' || !run.scheduleId || !changes) return;
    if (changes.new_signals.length + changes.changed_figures.length + changes.new_disagreements.length + changes.resolved_disagreements.length === 0) return;
    webhooks.emit(run.owner, 'research.changed', {
      run: { id: run.id, topic: run.topic, schedule_id: run.scheduleId, report_url: `/api/v1/research/${run.id}/report`, status_url: `/api/v2/research/${run.id}` },
      changes,
    });
  });

  const timeline = new SignalTimeline(context.store);
  registerDiscoverRoutes(app, context, limiter, timeline);
  registerEntityRoutes(app, context, limiter);
  registerFollowRoutes(app, context, limiter, follows);
  registerPredictRoutes(app, context, limiter);
  registerWebhookRoutes(app, context, limiter, webhooks);
  registerDeveloperArea(app, context, webhooks, options.db);

  let warmWait: { quiet: Promise<boolean>; cancel(): void } | null = null;
  return {
    // Discover's timeline is built by its first request, or once the index is warm and nobody
    // has asked anything for discoverWarmQuietMs: then in steps between requests, so one that
    // comes meanwhile is not held up behind it.
    listening() {
      warmWait = options.quiet.whenQuiet(options.discoverWarmQuietMs ?? DISCOVER_WARM_QUIET_MS);
      void warmWait.quiet.then((quiet) => (quiet ? timeline.warm(() => new Promise<void>((resolve) => setImmediate(resolve))) : undefined));
    },
    get discoverTimelineBuilt() {
      return timeline.built;
    },
    close() {
      warmWait?.cancel();
      timeline.close();
      // Sending stops; the events of the close itself still store their deliveries (closeFollows).
      webhooks.close();
    },
    /**
     * Writes the follow feed's queued arrivals and stops taking more, then stores the webhook
     * deliveries they and research runs stopped by the close made (the next start sends them):
     * called once nothing can add a signal or a follow (the feed and the HTTP server closed),
     * before the database closes.
     */
    async closeFollows() {
      await follows.close();
      stopMatches();
      stopResearch();
      stopChanged();
      await webhooks.settle();
    },
  };
}
