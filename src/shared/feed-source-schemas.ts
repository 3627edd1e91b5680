/**
 * What the feed-sources surface (`/api/v1/sources…`, the administrator's) answers: its rows in
 * the endpoint table (`endpoints/feed-sources.ts`) document these, and the app's client reads
 * the answers with them (`src/main/services/sources/source-admin.ts`).
 *
 * Read tolerantly, documented strictly: a value the interface lists as one of a few words
 * (`kind`, `health`, `role`, `status`) is documented with its `enum` but read as any string, so a
 * service with a newer word still lists (the app shows it as unknown); fields besides the
 * required ones may be missing (the app fills in its own defaults). A field of the wrong type is a
 * service that says something else, and a clear error.
 */
import { z } from 'zod';

export const FEED_SOURCE_KINDS = ['rss', 'atom', 'jsonfeed', 'html', 'folder'] as const;

/** A word from `values` in the document, any string when read. */
const word = (values: readonly string[], description?: string) => z.string().meta({ enum: [...values], ...(description ? { description } : {}) });

/** Why the last fetch failed. */
export const FetchProblem = z
  .looseObject({ kind: z.string().optional(), message: z.string().optional(), at: z.string().nullish() })
  .meta({ id: 'FetchProblem', description: 'What went wrong: `kind` (`unavailable`, `not_found`, `robots`, `too_large`, …) and a message that says why.' });

export const FeedSource = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    kind: word(FEED_SOURCE_KINDS),
    url: z.string(),
    cadence_s: z.number(),
    cadence: z.string().optional().meta({ description: 'The cadence in words.' }),
    role: word(['primary', 'oracle']).optional(),
    paused: z.boolean().optional(),
    health: word(['healthy', 'degraded', 'down']),
    health_reason: z.string().nullish(),
    last_fetch_at: z.string().nullish(),
    last_success_at: z.string().nullish(),
    consecutive_failures: z.number().optional(),
    last_error: FetchProblem.nullish(),
    next_fetch_at: z.string().nullish(),
    not_modified_ratio: z.number().optional(),
    items_total: z.number().optional(),
    items_24h: z.number().optional(),
    last_item_at: z.string().nullish(),
    created_at: z.string().nullish(),
  })
  .meta({ id: 'FeedSource', description: 'A fetched source with the facts behind its health (the rule is the list\'s `health_rule`).' });
export type FeedSource = z.infer<typeof FeedSource>;

/**
 * The list. Each source is read on its own (a source removed while the list was built comes as
 * `null`, and one the app cannot read is left out rather than losing the rest), so the array is
 * read as anything and documented as sources.
 */
export const FeedSourceList = z
  .looseObject({
    sources: z.array(z.unknown()).meta({ items: { $ref: '#/components/schemas/FeedSource' } }),
    health_rule: z.string().nullish(),
  })
  .meta({ id: 'FeedSourceList' });

export const DroppedItem = z
  .looseObject({ title: z.string(), id: z.string().nullable(), reason: z.string() })
  .meta({ id: 'DroppedItem', description: 'An item the source gave that is not kept, with the reason in words.' });

export const FetchRecord = z
  .looseObject({
    at: z.string(),
    ok: z.boolean(),
    status: z.number().nullish().meta({ description: 'The HTTP status; null when the site could not be reached.' }),
    not_modified: z.boolean().optional(),
    items: z.number().optional(),
    new_items: z.number().optional(),
    duration_ms: z.number().optional(),
    error: FetchProblem.nullish(),
    items_total: z.number().optional().meta({ description: 'Items the feed gave in all (kept or not).' }),
    dropped: z.array(DroppedItem).optional().meta({ description: 'Items not kept, each with the reason in words.' }),
  })
  .meta({ id: 'FetchRecord' });

export const FeedSourceWithHistory = z
  .looseObject({ source: FeedSource, history: z.array(FetchRecord).optional().meta({ description: 'The last 20 fetches, newest first.' }) })
  .meta({ id: 'FeedSourceWithHistory' });

export const FeedSourceOne = z.looseObject({ source: FeedSource }).meta({ id: 'FeedSourceOne' });

export const PreviewItem = z
  .looseObject({
    id: z.string().optional().meta({ description: 'The signal id the item would have (`sig_` from its link, or its guid / content when it has none).' }),
    title: z.string().optional(),
    url: z.string().nullable().optional().meta({ description: 'Null when the item has no link of its own; it is cited by its source and date.' }),
    updated_at: z.string().nullable().optional(),
    author: z.string().nullable().optional(),
    categories: z.array(z.string()).optional(),
    enclosures: z.array(z.string()).optional(),
    published_at: z.string().optional(),
    published_at_source: word(['item', 'fetch'], '`fetch`: the item gave no date, so the time it was fetched stands in.').optional(),
    summary: z.string().optional(),
  })
  .meta({ id: 'PreviewItem' });

/** `?dry_run=true`: the definition as the service would store it, and what a fetch found. */
export const FeedSourceDryRun = z
  .looseObject({
    dry_run: z.boolean().optional(),
    source: z.looseObject({ name: z.string(), kind: word(FEED_SOURCE_KINDS), url: z.string(), cadence_s: z.number().optional() }),
    preview: z.array(PreviewItem),
    items_total: z.number().optional().meta({ description: 'How many items the source gave in all (the preview lists the first 20 kept).' }),
    dropped: z.array(DroppedItem).optional(),
    read_with_errors: z.string().nullable().optional().meta({ description: 'The first error of an ill-formed feed that was read anyway; null when well-formed.' }),
    feed_title: z.string().nullable().optional().meta({ description: "The feed's own title (channel/feed <title>), null when it has none: what the app names a new source by when the analyst gives no name." }),
  })
  .meta({ id: 'FeedSourceDryRun' });

export const FeedSourceCreated = z.looseObject({ source: FeedSource, preview: z.array(PreviewItem), items_total: z.number().optional(), dropped: z.array(DroppedItem).optional(), read_with_errors: z.string().nullable().optional() }).meta({ id: 'FeedSourceCreated' });

export const QueuedProposal = z
  .looseObject({
    id: z.string(),
    url: z.string(),
    name: z.string().nullish(),
    kind: z.string().nullish(),
    note: z.string().nullish(),
    proposed_by: z.string().nullish().meta({ description: 'Administrator only.' }),
    proposed_at: z.string().optional(),
    status: word(['pending', 'accepted', 'rejected']),
    decided_at: z.string().nullish(),
    reason: z.string().nullish(),
    source_id: z.string().nullish(),
  })
  .meta({ id: 'QueuedProposal', description: 'A proposed source in the administrator\'s queue, with its decision.' });

export const QueuedProposalList = z.looseObject({ proposals: z.array(QueuedProposal) }).meta({ id: 'QueuedProposalList' });
export const AcceptedProposal = z.looseObject({ proposal: QueuedProposal, source: FeedSource }).meta({ id: 'AcceptedProposal' });
export const RejectedProposal = z.looseObject({ proposal: QueuedProposal }).meta({ id: 'RejectedProposal' });
