/**
 * The Sources view's shapes (issue 26, part 6): the feeds a service really fetches, the facts
 * behind their health, their fetch history and the proposals queue, as main hands them to the
 * renderer. Main reads the service's `/api/v1/sources` surface (admin only) into these; no
 * credential ever appears in them.
 */
import { z } from 'zod';

/** The kinds of source the feed reads (the service's FEED_KINDS). */
export const SOURCE_KINDS = ['rss', 'atom', 'jsonfeed', 'html', 'folder'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Seconds between fetches: a minute to a week. */
const CadenceS = z.number().int().min(60, 'Fetch at most once a minute.').max(7 * 86_400, 'Fetch at least once a week.');
const SourceId = z.string().min(1).max(64);
const ProposalId = z.string().min(1).max(64);

/** What the analyst typed in "Add a source": previewed first, then added. */
export const NewSourceArgs = z.object({
  url: z.string().trim().min(1, 'Paste the address of a feed, a listing page or a folder (file:///…).').max(2_000),
  kind: z.enum(SOURCE_KINDS),
  /** Empty: named after the address's host. */
  name: z.string().trim().max(200).default(''),
  cadenceS: CadenceS.default(900),
  itemSelector: z.string().trim().max(500).optional(),
});
export type NewSourceArgs = z.input<typeof NewSourceArgs>;

export const SourcePatchArgs = z.object({
  id: SourceId,
  name: z.string().trim().min(1, 'A name cannot be empty.').max(200).optional(),
  cadenceS: CadenceS.optional(),
  paused: z.boolean().optional(),
});

export const SourceIdArgs = z.object({ id: SourceId });
export const AcceptProposalArgs = z.object({ id: ProposalId, kind: z.enum(SOURCE_KINDS).optional(), name: z.string().trim().min(1).max(200).optional(), cadenceS: CadenceS.optional() });
export const RejectProposalArgs = z.object({ id: ProposalId, reason: z.string().trim().min(1, 'Say why, in a few words: the proposer reads it.').max(1_000) });

export type SourceHealth = 'healthy' | 'degraded' | 'down' | 'unknown';

export interface SourceProblem {
  /** timeout, http_404, robots_disallowed, not_a_feed, body_too_large… */
  kind: string;
  /** In words a person understands. */
  message: string;
  at: string | null;
}

/** A source the service really fetches, with the facts behind its health. */
export interface FetchedSource {
  id: string;
  name: string;
  kind: string;
  url: string;
  role: 'primary' | 'oracle';
  paused: boolean;
  cadenceS: number;
  /** As the service words it ("15 min"). */
  cadence: string;
  health: SourceHealth;
  /** Why it is degraded or down (null when healthy). */
  healthReason: string | null;
  lastFetchAt: string | null;
  lastSuccessAt: string | null;
  nextFetchAt: string | null;
  consecutiveFailures: number;
  lastError: SourceProblem | null;
  items24h: number;
  itemsTotal: number;
  /** Share of fetches answered 304 Not Modified, 0–1. */
  notModifiedRatio: number;
  lastItemAt: string | null;
  createdAt: string | null;
}

/** One fetch of a source. */
export interface FetchRecordView {
  at: string;
  ok: boolean;
  status: number | null;
  notModified: boolean;
  items: number;
  newItems: number;
  durationMs: number;
  error: SourceProblem | null;
  /** The document was ill-formed and read anyway: its first error, in words (null when well-formed). */
  readWithErrors: string | null;
  /** Items the feed gave in all, kept or not (null when the service does not say). */
  itemsTotal: number | null;
  /** Items the feed gave that were not kept, each with why. */
  dropped: DroppedItemView[];
}

/** An item a source gave that is not kept, and why, in words. */
export interface DroppedItemView {
  title: string;
  id: string | null;
  reason: string;
}

export interface PreviewItemView {
  title: string;
  /** Null when the item has no link of its own (it is cited by its source and date). */
  url: string | null;
  publishedAt: string;
  /** `fetch`: the item had no date; the time it was read stands in. */
  publishedAtSource: 'item' | 'fetch';
  summary: string;
}

export interface SourcePreview {
  /** What would be added (the service's reading of the request: name, kind, cadence). */
  source: { name: string; kind: string; url: string; cadenceS: number };
  items: PreviewItemView[];
  /** How many items the source gave in all (kept or not). */
  itemsTotal: number;
  /** Items it gave that would not be kept, each with why. */
  dropped: DroppedItemView[];
  /** The document was ill-formed and read anyway: its first error. */
  readWithErrors: string | null;
}

export interface ProposalView {
  id: string;
  url: string;
  name: string | null;
  kind: string | null;
  note: string | null;
  proposedBy: string | null;
  proposedAt: string;
  status: 'pending' | 'accepted' | 'rejected';
  decidedAt: string | null;
  reason: string | null;
  sourceId: string | null;
}

/**
 * Whether the analyst may manage the sources of the service in use, as the service answered:
 * `admin` (GET /api/v1/sources was 200), `not_admin` (401/403), `unsupported` (the service has
 * no sources surface: 404), `unavailable` (it could not be asked).
 */
export type SourcesAccess = 'admin' | 'not_admin' | 'unsupported' | 'unavailable';

export interface SourcesOverview {
  access: SourcesAccess;
  /** Why the controls are not shown, in words (null for `admin`). */
  accessReason: string | null;
  mode: 'local' | 'remote';
  sources: FetchedSource[];
  /** The service's stated rule for healthy / degraded / down. */
  healthRule: string | null;
  /** Newest first; null when the service could not list them. */
  proposals: ProposalView[] | null;
  /** What the service said when listing proposals failed. */
  proposalsError: string | null;
  /**
   * The service's own words on its synthetic sample (the health snapshot's `sample`: a fixed
   * snapshot, replayed, …); null when it has none or does not say.
   */
  sample: string | null;
}
