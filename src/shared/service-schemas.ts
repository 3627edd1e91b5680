/**
 * The Retail Signal service interface as zod schemas, with the decisions of docs/decisions/design.md §3.
 * The client, the local service and the OpenAPI document are all derived from this file.
 *
 * Response schemas are loose on purpose (`z.looseObject`): the client must ignore unknown
 * fields and keep working against any valid variant of the service.
 */
import { z } from 'zod';
import { canonicalTimeZone } from './format';
import { Signal } from './signal-schemas';

// Signals, sources and the health snapshot live in signal-schemas.ts; their names are exported from here too.
export * from './signal-schemas';

// ── Errors ──────────────────────────────────────────────────────────────────────────────
export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'limit_reached',
  'not_found',
  'payload_too_large',
  'unsupported_media_type',
  'insufficient_history',
  'source_unreadable',
  'rate_limited',
  'internal',
  'unavailable',
] as const;
export type ServiceErrorCode = (typeof ERROR_CODES)[number];

/** A service's error code as the app knows it; anything else counts as `internal`. */
export function knownServiceErrorCode(code: string): ServiceErrorCode {
  return ERROR_CODES.find((known) => known === code) ?? 'internal';
}

export const ErrorBody = z
  .looseObject({
    error: z.string().meta({ description: 'Machine-readable code, e.g. `rate_limited`.' }),
    message: z.string().meta({ description: 'Human-friendly text.' }),
  })
  .meta({ id: 'ErrorBody', description: 'Every error: `{error, message}` (and any other fields a service adds).' });
export type ErrorBody = z.infer<typeof ErrorBody>;

// ── Ask ─────────────────────────────────────────────────────────────────────────────────
export const MAX_MESSAGES = 50;
export const MAX_MESSAGE_CHARS = 8_000;

export const AskMessage = z
  .object({
    role: z.enum(['user', 'assistant']).meta({
      description: '`user` for a question; `assistant` for an earlier answer replayed by the client, so a conversation continues on another service or after a restart.',
    }),
    content: z.string().min(1).max(MAX_MESSAGE_CHARS),
  })
  .meta({ id: 'AskMessage' });

/**
 * Extension (issue 43, decision 0036): the analyst's IANA time zone. Dates the service writes
 * (answer text, period labels, conflicts, reports) are calendar dates in it; absent, the
 * service's own (`--time-zone`, default Asia/Kolkata).
 */
const TimeZoneField = z
  .string()
  .max(64)
  .refine((value) => canonicalTimeZone(value) !== null, { message: 'not a time zone: give an IANA zone name such as Asia/Kolkata, Europe/London or UTC' })
  .optional()
  .meta({ description: 'Extension: the analyst\'s IANA time zone (e.g. `Asia/Kolkata`). Every date the answer writes is the calendar date in this zone; absent, the service\'s own (default Asia/Kolkata).', examples: ['Asia/Kolkata'] });

export const AskRequest = z
  .object({
    messages: z
      .array(AskMessage)
      .min(1)
      .max(MAX_MESSAGES)
      // The question is the last turn: a conversation may replay earlier answers, but it ends with the user's turn.
      .superRefine((messages, issues) => {
        const last = messages.length - 1;
        if (last >= 0 && messages[last]!.role !== 'user') {
          issues.addIssue({ code: 'custom', path: [last, 'role'], message: 'The last turn must be the user\'s question (role `user`).' });
        }
      })
      .meta({ description: 'The conversation, oldest first, ending with the question (a `user` turn); earlier `assistant` turns may be replayed.' }),
    stream: z.boolean().default(false).meta({ description: '`true` selects SSE; defaults to `false`.' }),
    session_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'Extension: continue this session.' }),
    time_zone: TimeZoneField,
  })
  .meta({ id: 'AskRequest' });
export type AskRequest = z.input<typeof AskRequest>;

/** docs/decisions/design.md §3: a number in [0,1]; the client also accepts 0–100 and low/medium/high. */
export const ConfidenceValue = z
  .union([z.number().min(0).max(100), z.enum(['low', 'medium', 'high'])])
  .meta({ id: 'Confidence', description: 'Number in [0,1] (services may send 0–100 or low/medium/high).' });

/** Extension (issue 28): who wrote the answer; `fallback_reason` when a model failed and the extractive composer answered. */
export const ComposerInfo = z
  .looseObject({
    backend: z.enum(['extractive', 'model']),
    model: z.string().optional(),
    /** Whether the model runs on the service's machine (a loopback URL): if not, questions and cited signals leave it. */
    local: z.boolean().optional(),
    fallback_reason: z.string().optional(),
  })
  .meta({ id: 'ComposerInfo' });
export type ComposerInfo = z.infer<typeof ComposerInfo>;

/** Extension (issue 28): one sentence removed (or marked) because its cited signals do not state its claims. */
export const RemovedClaim = z.looseObject({ text: z.string(), reason: z.string() }).meta({ id: 'RemovedClaim' });
export type RemovedClaim = z.infer<typeof RemovedClaim>;

/** Extension (issue 28): where a cited signal supports a sentence (`start`/`end`: offsets into the signal's body). */
export const ClaimSupport = z
  .looseObject({
    sentence: z.string(),
    citation: z.string(),
    start: z.number().int().nonnegative(),
    end: z.number().int().nonnegative(),
  })
  .meta({ id: 'ClaimSupport' });
export type ClaimSupport = z.infer<typeof ClaimSupport>;

/**
 * Extension (issue 30): two sources state different figures for the same measure, entity, place
 * and day (or reported period). The answer's text says so too, under "Sources disagree".
 */
export const FigureConflict = z
  .looseObject({
    measure: z.string(),
    entity: z.string(),
    place: z.string(),
    as_of: z.string(),
    figures: z.array(z.looseObject({ value: z.number(), signal_id: z.string(), source_id: z.string().optional(), source_name: z.string().optional(), published_at: z.string().optional() })).min(2),
    note: z.string(),
  })
  .meta({
    id: 'FigureConflict',
    description:
      'Extension: conflicting figures among the cited signals — same `measure` (app_rank, store_count, revenue_cr, gov_growth_yoy_pct), `entity`, `place` and `as_of` day or period, values that differ beyond rounding. `figures[0]` is the one the answer leads with; `note` is the sentence the answer says about it.',
  });
export type FigureConflict = z.infer<typeof FigureConflict>;

export const VerificationSummary = z
  .looseObject({
    sentences: z.number().int().nonnegative(),
    supported: z.number().int().nonnegative(),
    removed: z.array(RemovedClaim),
  })
  .meta({ id: 'VerificationSummary', description: 'Extension: sentences checked, sentences supported, and the sentences removed with why.' });

export const AskResponse = z
  .looseObject({
    content: z.string(),
    citations: z.array(z.string()),
    confidence: ConfidenceValue,
    session_id: z.string(),
    session_slug: z.string(),
    composer: ComposerInfo.optional(),
    verification: VerificationSummary.optional(),
    support: z.array(ClaimSupport).optional(),
    conflicts: z.array(FigureConflict).optional(),
  })
  .meta({ id: 'AskResponse' });
export type AskResponse = z.infer<typeof AskResponse>;

// ── SSE event payloads (Anthropic-Messages-shaped) ───────────────────────────────────────
export const CitationPayload = z
  .looseObject({
    id: z.string(),
    title: z.string().optional(),
    source_id: z.string().optional(),
    source_name: z.string().optional(),
    published_at: z.string().optional(),
    url: z.string().nullable().optional().meta({ description: 'Null when the cited item has no link of its own: cite it by source_name and published_at.' }),
    slug: z.string().optional(),
    snippet: z.string().optional(),
  })
  .meta({ id: 'Citation' });
export type CitationPayload = z.infer<typeof CitationPayload>;

export const SseMessageStart = z.looseObject({
  message: z.looseObject({ id: z.string().optional(), session_id: z.string().optional(), session_slug: z.string().optional(), composer: ComposerInfo.optional() }),
}).meta({ id: 'SseEvent_message_start' });
export const SseContentBlockStart = z.looseObject({
  index: z.number().int().nonnegative(),
  content_block: z.looseObject({ type: z.string(), text: z.string().optional() }),
}).meta({ id: 'SseEvent_content_block_start' });
export const SseContentBlockDelta = z.looseObject({
  index: z.number().int().nonnegative(),
  delta: z.looseObject({ type: z.string(), text: z.string().optional() }),
}).meta({ id: 'SseEvent_content_block_delta' });
export const SseContentBlockStop = z.looseObject({ index: z.number().int().nonnegative() }).meta({ id: 'SseEvent_content_block_stop' });
export const SseMessageStop = z.looseObject({}).meta({ id: 'SseEvent_message_stop' });
export const SseCitationEmitted = z.looseObject({ citation: CitationPayload }).meta({ id: 'SseEvent_clarity_citation_emitted' });
export const SseConfidenceUpdated = z.looseObject({ confidence: ConfidenceValue }).meta({ id: 'SseEvent_clarity_confidence_updated' });
export const SseResearchPromotion = z.looseObject({
  topic: z.string(),
  preset: z.string().optional(),
  reason: z.string().optional(),
}).meta({ id: 'SseEvent_clarity_research_promotion_available' });
export const SseClaimRemoved = RemovedClaim.meta({ id: 'SseEvent_clarity_claim_removed' });
export const SseClaimSupported = ClaimSupport.meta({ id: 'SseEvent_clarity_claim_supported' });
export const SseComposerFallback = z
  .looseObject({
    reason: z.string(),
    code: z.string().optional(),
    /** The model's text already sent is replaced by the extractive answer that follows (clear it). */
    replaces_text: z.boolean().optional(),
  })
  .meta({ id: 'SseEvent_clarity_composer_fallback' });
export const SseConflictsFlagged = z.looseObject({ conflicts: z.array(FigureConflict) }).meta({ id: 'SseEvent_clarity_conflicts_flagged' });
export const SseError = z.looseObject({ error: z.looseObject({ error: z.string(), message: z.string() }) }).meta({ id: 'SseEvent_error' });

/** Every SSE event the service emits, by name, with its payload schema. */
export const SSE_EVENTS = {
  message_start: SseMessageStart,
  content_block_start: SseContentBlockStart,
  content_block_delta: SseContentBlockDelta,
  content_block_stop: SseContentBlockStop,
  message_stop: SseMessageStop,
  'clarity.citation_emitted': SseCitationEmitted,
  'clarity.confidence_updated': SseConfidenceUpdated,
  'clarity.research_promotion_available': SseResearchPromotion,
  'clarity.claim_removed': SseClaimRemoved,
  'clarity.claim_supported': SseClaimSupported,
  'clarity.composer_fallback': SseComposerFallback,
  'clarity.conflicts_flagged': SseConflictsFlagged,
  error: SseError,
} as const;
export type SseEventName = keyof typeof SSE_EVENTS;
export type SsePayload<N extends SseEventName> = z.infer<(typeof SSE_EVENTS)[N]>;

// ── Research ─────────────────────────────────────────────────────────────────────────────
export const ResearchRequest = z
  .object({
    topic: z.string().min(3).max(500),
    preset: z.string().min(1).max(40).default('standard'),
    time_zone: TimeZoneField,
  })
  .meta({ id: 'ResearchRequest' });

export const ResearchV1Response = z
  .looseObject({
    status: z.literal('completed'),
    id: z.string().optional().meta({ description: 'Extension: the run id, pollable at /api/v1/research/{id}.' }),
    report_url: z.string(),
    citation_count: z.number().int().nonnegative(),
    cost_usd: z.number().nonnegative().nullable().meta({ description: 'What the run cost: 0 written locally; with a model, its reported token usage at the operator\'s prices (null when none are set).' }),
  })
  .meta({ id: 'ResearchCompleted' });

export const ResearchQueuedResponse = z
  .looseObject({ status: z.literal('queued'), status_url: z.string() })
  .meta({ id: 'ResearchQueued' });

export const ResearchStatus = z.enum(['queued', 'running', 'completed', 'failed']);

export const ResearchStage = z.enum(['planning', 'retrieving', 'writing', 'verifying', 'done']);
export const ResearchProgress = z
  .object({ stage: ResearchStage, done: z.number().int().nonnegative(), total: z.number().int().nonnegative() })
  .meta({ id: 'ResearchProgress', description: 'Where a run is: its stage, and how many of the stage\'s steps (sections, sub-questions) are done.' });

export const CostBasis = z.enum(['local', 'model_usage']).meta({ description: '`local`: the extractive composer wrote it, nothing was bought. `model_usage`: the model API\'s reported tokens × the operator\'s prices.' });

export const ReportVerification = z
  .object({
    sentences: z.number().int().nonnegative(),
    supported: z.number().int().nonnegative(),
    removed: z.array(z.object({ text: z.string(), reason: z.string() })),
  })
  .meta({ id: 'ReportVerification' });

export const ReportSupport = z.object({ sentence: z.string(), citation: z.string(), start: z.number().int(), end: z.number().int() });

export const ReportChanges = z
  .object({
    previous_id: z.string(),
    since: z.string(),
    new_signals: z.array(z.object({ id: z.string(), title: z.string(), published_at: z.string() })),
    changed_figures: z.array(z.object({ subject: z.string(), metric: z.string(), before: z.number(), after: z.number(), citations: z.array(z.string()) })),
    resolved_disagreements: z.array(z.object({ note: z.string(), citations: z.array(z.string()) })),
    new_disagreements: z.array(z.object({ note: z.string(), citations: z.array(z.string()) })),
  })
  .meta({ id: 'ReportChanges', description: 'What changed since the caller\'s previous run of the same topic.' });

export const ReportSeries = z.object({
  title: z.string(),
  metric: z.string(),
  kind: z.enum(['over_time', 'by_subject']),
  points: z.array(z.object({ x: z.string(), value: z.number(), citation: z.string() })),
});

export const ResearchRun = z
  .looseObject({
    id: z.string(),
    status: ResearchStatus,
    topic: z.string().optional(),
    preset: z.string().optional(),
    report_url: z.string().optional(),
    citation_count: z.number().optional(),
    cost_usd: z.number().nullable().optional(),
    error: z.string().optional(),
  })
  .meta({ id: 'ResearchRun' });

export const ResearchRunV2 = z
  .looseObject({
    id: z.string(),
    status: ResearchStatus,
    topic: z.string(),
    preset: z.string(),
    created_at: z.string(),
    progress: ResearchProgress.nullable(),
    report_url: z.string().optional(),
    citation_count: z.number().optional(),
    cost_usd: z.number().nullable().optional(),
    cost_basis: CostBasis.optional(),
    verification: ReportVerification.optional(),
    changes: ReportChanges.nullable().optional(),
    schedule_id: z.string().nullable().optional(),
    error: z.string().optional(),
  })
  .meta({ id: 'ResearchRunV2' });

export const Report = z
  .looseObject({
    id: z.string(),
    topic: z.string(),
    preset: z.string(),
    status: z.string(),
    created_at: z.string(),
    markdown: z.string(),
    citations: z.array(Signal),
    citation_count: z.number(),
    cost_usd: z.number().nullable(),
    cost_basis: CostBasis.optional(),
    verification: ReportVerification.optional(),
    support: z.array(ReportSupport).optional(),
    changes: ReportChanges.nullable().optional(),
    series: z.array(ReportSeries).optional(),
  })
  .meta({ id: 'Report' });

export const ResearchScheduleRequest = z
  .object({
    topic: z.string().min(3).max(500),
    preset: z.string().min(1).max(40).default('standard'),
    every: z.enum(['daily', 'weekly']),
    at: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'at is a UTC time of day, HH:MM')
      .optional()
      .meta({ description: 'UTC time of day (HH:MM) the run starts; now\'s time of day when absent.' }),
  })
  .meta({ id: 'ResearchScheduleRequest' });

/** A schedule's new cadence and time (either or both); its topic, runs and reports stay. */
export const ResearchScheduleUpdate = z
  .object({
    every: z.enum(['daily', 'weekly']).optional(),
    at: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'at is a UTC time of day, HH:MM')
      .optional()
      .meta({ description: 'UTC time of day (HH:MM) the runs start.' }),
  })
  .meta({ id: 'ResearchScheduleUpdate' });

export const ResearchSchedule = z
  .object({
    id: z.string(),
    topic: z.string(),
    preset: z.string(),
    every: z.enum(['daily', 'weekly']),
    at: z.string(),
    created_at: z.string(),
    next_run_at: z.string(),
    last_run_id: z.string().nullable(),
  })
  .meta({ id: 'ResearchSchedule' });

// ── Source proposals ─────────────────────────────────────────────────────────────────────
export const ProposeRequest = z
  .object({
    url: z.url({ protocol: /^https?$/ }),
    name: z.string().max(200).optional(),
    kind: z.string().max(60).optional(),
    rationale: z.string().max(2_000).optional(),
  })
  .meta({ id: 'SourceProposal' });

export const ProposeResponse = z
  .looseObject({ status: z.literal('received'), proposal_id: z.string() })
  .meta({ id: 'SourceProposalReceived' });

// ── Extensions: sharing, API keys, identity provider ─────────────────────────────────────
export const SessionVisibilityRequest = z.object({ public: z.boolean() }).meta({ id: 'SessionVisibilityRequest' });
export const SessionVisibility = z
  .looseObject({ session_id: z.string(), session_slug: z.string(), public: z.boolean(), turns: z.number().int(), url: z.string() })
  .meta({ id: 'SessionVisibility', description: 'Extension: `url` is the public page of the latest turn.' });

export const ApiKeyIssued = z
  .looseObject({ key: z.string().regex(/^ck_[A-Za-z0-9]{32}$/), id: z.string(), last4: z.string(), created_at: z.string(), note: z.string().optional() })
  .meta({ id: 'ApiKeyIssued', description: 'The key is shown once; the service keeps only its SHA-256.' });
export const ApiKeyList = z
  .looseObject({ keys: z.array(z.looseObject({ id: z.string(), last4: z.string(), created_at: z.string(), revoked_at: z.string().nullable() })) })
  .meta({ id: 'ApiKeyList' });
export const ApiKeyRevoked = z.looseObject({ id: z.string(), revoked_at: z.string() }).meta({ id: 'ApiKeyRevoked' });
export const DevTokenRequest = z
  .object({
    email: z.string().regex(/^[^@\s]+@[^@\s]+$/).max(254).meta({ description: 'Who the token is for; its subject is derived from it.' }),
    ttl_s: z.number().int().min(60).max(30 * 24 * 3600).optional().meta({ description: 'Lifetime in seconds (60 s to 30 days). Defaults to 43,200 (12 hours).' }),
  })
  .meta({ id: 'DevTokenRequest', description: 'Local service only: ask its development identity provider for a bearer JWT.' });
export const DevTokenIssued = z
  .looseObject({ token: z.string(), token_type: z.literal('Bearer'), expires_at: z.string(), subject: z.string(), issuer: z.string() })
  .meta({ id: 'DevTokenIssued', description: 'A bearer JWT signed by this service\'s development identity provider.' });
export const Jwks = z.looseObject({ keys: z.array(z.looseObject({ kty: z.string(), kid: z.string().optional() })) }).meta({ id: 'Jwks' });
