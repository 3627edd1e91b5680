/**
 * Schemas of the surfaces the interface names but does not shape (docs/decisions/design.md §3): Discover,
 * follows and their feed, predictions and webhooks. The local service validates with them,
 * the app's client parses with them, and the OpenAPI document is generated from them.
 * Responses are loose objects: clients ignore unknown fields.
 */
import { z } from 'zod';
import { SignalId } from './service-schemas';
import { SignalEntities } from './signal-schemas';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from './webhooks';

// ── Discover ─────────────────────────────────────────────────────────────────────────────
export const DISCOVER_MAX_LIMIT = 100;

export const DiscoverItem = z
  .looseObject({
    id: SignalId,
    slug: z.string(),
    title: z.string(),
    summary: z.string(),
    published_at: z.string(),
    source: z.looseObject({ id: z.string(), name: z.string() }),
    entities: SignalEntities,
    metrics: z.record(z.string(), z.number()),
    url: z.string().nullable().meta({ description: 'The item\'s own link; null for a fetched item that has none.' }),
    type: z.string().optional().meta({ description: 'Kind of event: store_opening, results, pricing, …' }),
  })
  .meta({ id: 'DiscoverItem', description: 'A signal as Discover lists it; its page is `/signal/{slug}`.' });
export type DiscoverItem = z.infer<typeof DiscoverItem>;

export const DiscoverPage = z
  .looseObject({
    items: z.array(DiscoverItem),
    next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null at the end.' }),
  })
  .meta({ id: 'DiscoverPage' });
export type DiscoverPage = z.infer<typeof DiscoverPage>;

// ── Entities ─────────────────────────────────────────────────────────────────────────────
export const EntityListItem = z
  .looseObject({
    name: z.string(),
    kind: z.string().meta({ enum: ['retailer', 'brand', 'organisation', 'person'] }),
    aliases: z.array(z.string()),
    origin: z.string().meta({ enum: ['gazetteer', 'learned'], description: 'Built in, or learned from fetched items.' }),
    signals: z.number().int().min(0).meta({ description: 'Signals that name it now.' }),
    segments: z.array(z.string()).optional().meta({ description: 'Segments it is named with, most often first.' }),
    cities: z.array(z.string()).optional().meta({ description: 'Cities it is named with, most often first.' }),
  })
  .meta({ id: 'EntityListItem', description: 'An entity questions, Discover\'s `entity=`, follows and predictions accept.' });
export type EntityListItem = z.infer<typeof EntityListItem>;

export const EntityList = z.looseObject({ items: z.array(EntityListItem) }).meta({ id: 'EntityList' });
export type EntityList = z.infer<typeof EntityList>;

// ── Follow ───────────────────────────────────────────────────────────────────────────────
export const FOLLOW_TARGET_TYPES = ['entity', 'segment', 'city', 'source', 'query'] as const;
export type FollowTargetType = (typeof FOLLOW_TARGET_TYPES)[number];

export const FollowTarget = z
  .object({
    type: z.enum(FOLLOW_TARGET_TYPES),
    value: z.string().trim().min(1).max(200),
  })
  .meta({ id: 'FollowTarget', description: 'entity: a retailer, segment, city or state; source: a source id or name; query: words that must all appear.' });
export type FollowTarget = z.infer<typeof FollowTarget>;

export const FollowRequest = z.object({ target: FollowTarget }).meta({ id: 'FollowRequest' });

export const Follow = z
  .looseObject({
    id: z.string(),
    target: z.looseObject({ type: z.string(), value: z.string() }),
    created_at: z.string(),
  })
  .meta({ id: 'Follow' });
export type Follow = z.infer<typeof Follow>;

export const FollowList = z
  .looseObject({
    follows: z.array(Follow),
    tier: z.string().optional(),
    limit: z.number().int().optional().meta({ description: 'How many follows the caller\'s tier allows.' }),
  })
  .meta({ id: 'FollowList' });

export const FeedItem = z
  .looseObject({
    signal: DiscoverItem,
    matched: z.array(z.string()).meta({ description: 'Ids of the caller\'s follows this signal matched.' }),
    arrived_at: z.string(),
  })
  .meta({ id: 'FeedItem' });
export type FeedItem = z.infer<typeof FeedItem>;

export const FeedPage = z
  .looseObject({
    items: z.array(FeedItem).meta({ description: 'Oldest first.' }),
    next_cursor: z.string().meta({ description: 'Pass as `cursor` on the next read: only newer items come back.' }),
    has_more: z.boolean().optional(),
  })
  .meta({ id: 'FeedPage' });
export type FeedPage = z.infer<typeof FeedPage>;

/** What removing a follow or a webhook answers. */
export const Removed = z.looseObject({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Removed' });

// ── Predict ──────────────────────────────────────────────────────────────────────────────
export const HORIZON_PATTERN = /^(next_quarter|next_year|Q[1-4] ?FY ?(\d{2}|\d{4}))$/;

export const PredictRequest = z
  .object({
    entity: z.string().trim().min(1).max(120),
    metric: z.string().trim().min(1).max(80),
    horizon: z
      .string()
      .trim()
      .regex(HORIZON_PATTERN, 'use next_quarter, next_year or a fiscal quarter such as "Q3 FY27"')
      .default('next_quarter'),
  })
  .meta({ id: 'PredictRequest' });

export const Forecast = z
  .looseObject({
    forecast: z.looseObject({
      value: z.number(),
      unit: z.string(),
      period: z.string(),
      interval: z.looseObject({ low: z.number(), high: z.number(), level: z.number() }),
    }),
    method: z.string(),
    basis: z.array(z.string()),
    history: z.array(z.looseObject({ period: z.string(), value: z.number(), signal: z.string() })),
    confidence: z.number(),
    cost_usd: z.number(),
  })
  .meta({ id: 'Forecast', description: '`history[].signal` is the latest signal behind that period\'s value; `basis` lists every signal used.' });
export type Forecast = z.infer<typeof Forecast>;

/** Issue 47 item 6: one metric of an entity, judged for a forecast by its history (decision 0045). */
export const ForecastableMetric = z
  .looseObject({
    metric: z.string(),
    unit: z.string(),
    observations: z.number().int().meta({ description: 'Dated signals about the entity with a value of this metric.' }),
    quarters: z.number().int().meta({ description: 'Indian fiscal quarters with a value.' }),
    span_days: z.number().int().meta({ description: 'Days from the first observation to the last.' }),
    first_at: z.string().nullable(),
    last_at: z.string().nullable(),
    offered: z.boolean(),
    reason: z
      .string()
      .meta({ enum: ['not_enough_history', 'constant', 'backtest_error'], description: 'Why no forecast is offered; null when one is.' })
      .nullable(),
    backtest_error: z
      .number()
      .nullable()
      .meta({ description: "Mean absolute miss forecasting the last quarters from those before, as a share of the series' typical value; null when not computed." }),
  })
  .meta({ id: 'ForecastableMetric' });
export type ForecastableMetric = z.infer<typeof ForecastableMetric>;

export const ForecastableList = z
  .looseObject({
    entity: z.string(),
    rule: z.string().meta({ description: 'The rule each metric was judged by, in words.' }),
    metrics: z.array(ForecastableMetric).meta({ description: 'Every metric the signals about the entity carry; offered first.' }),
  })
  .meta({ id: 'ForecastableList' });
export type ForecastableList = z.infer<typeof ForecastableList>;

// ── Webhooks ─────────────────────────────────────────────────────────────────────────────
// The one list of events (shared/webhooks.ts), so the OpenAPI document names each with its meaning.
export { WEBHOOK_EVENTS };

export const WebhookRequest = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2_000),
    events: z
      .array(z.enum(WEBHOOK_EVENTS))
      .min(1)
      .max(WEBHOOK_EVENTS.length)
      .meta({ description: `The events to receive: ${WEBHOOK_EVENTS.map((event) => `\`${event}\` (${WEBHOOK_EVENT_DESCRIPTIONS[event].toLowerCase()})`).join(', ')}.` }),
  })
  .meta({ id: 'WebhookRequest' });

export const Webhook = z
  .looseObject({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    created_at: z.string(),
    secret: z.string().optional().meta({ description: 'Only in the 201 answer: shown once.' }),
  })
  .meta({ id: 'Webhook' });

export const WebhookList = z.looseObject({ webhooks: z.array(Webhook) }).meta({ id: 'WebhookList' });

export const DeliveryAttempt = z
  .looseObject({
    attempt: z.number().int(),
    at: z.string(),
    status: z.number().int().nullable().meta({ description: 'The receiver\'s HTTP status; null when it could not be reached.' }),
    ok: z.boolean(),
    error: z.string().nullable(),
  })
  .meta({ id: 'DeliveryAttempt' });

export const Delivery = z
  .looseObject({
    id: z.string(),
    event: z.string(),
    created_at: z.string(),
    state: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.array(DeliveryAttempt),
    next_attempt_at: z.string().nullable(),
    redelivery_of: z.string().optional().meta({ description: 'On a redelivery: the delivery it repeats.' }),
  })
  .meta({ id: 'Delivery' });

export const DeliveryList = z.looseObject({ deliveries: z.array(Delivery) }).meta({ id: 'DeliveryList' });

// ── Changelog (JSON Feed 1.1 with the service's deprecations) ───────────────────────────────
export const ChangelogDeprecation = z
  .looseObject({
    method: z.string(),
    path: z.string(),
    deprecated_at: z.string().meta({ description: 'When the operation was deprecated (its `Deprecation` header).' }),
    sunset_at: z.string().nullable().optional().meta({ description: 'When it may stop answering (its `Sunset` header).' }),
    replacement: z.looseObject({ method: z.string(), path: z.string() }).nullable().optional(),
    change: z.string().optional().meta({ description: 'What changes for a caller who moves to the replacement.' }),
    link: z.string().optional(),
  })
  .meta({ id: 'ChangelogDeprecation' });

export const ChangelogItem = z
  .looseObject({
    id: z.string(),
    url: z.string().optional(),
    title: z.string().optional(),
    content_text: z.string().optional(),
    date_published: z.string().optional(),
    _retail_signal: z.looseObject({ version: z.string(), date: z.string(), notes: z.array(z.string()) }).optional(),
  })
  .meta({ id: 'ChangelogItem' });

export const ChangelogFeed = z
  .looseObject({
    version: z.string().meta({ description: '`https://jsonfeed.org/version/1.1`.' }),
    title: z.string(),
    home_page_url: z.string().optional(),
    feed_url: z.string().optional(),
    _retail_signal: z.looseObject({ deprecations: z.array(ChangelogDeprecation) }).optional(),
    items: z.array(ChangelogItem),
  })
  .meta({ id: 'ChangelogFeed', description: 'A JSON Feed 1.1 of the changelog; `_retail_signal` is this service\'s extension (JSON Feed §4).' });
export type ChangelogFeed = z.infer<typeof ChangelogFeed>;
