/**
 * The one contract between the renderer and the main process (docs/decisions/conventions.md §1). Both transports
 * (Electron IPC, WebSocket for the browser host), the preload and the renderer are typed
 * from this file; the bridge host validates every payload against the schemas here.
 *
 * Adding a bridge method: one `defineMethod` entry in `BridgeMethods` below, one handler in
 * `src/main/bridge/handlers/<domain>.ts` (the compiler asks for it), and the caller.
 */
import { z } from 'zod';
import type { AskEvent } from './ask-event';
import { AnswerSettingInput, type AnswersStatus } from './answer-settings';
import type { PUSH_EVENT_NAMES } from './bridge-channels';
import { type CredentialCheck, type CredentialStatus, type ServiceStatus, type Settings, CredentialPresentation, DisplaySetting, ServiceSetting, SourceHost, ThemeChoice, TrustedHosts } from './bridge-settings';
import type { Conversation, ConversationSummary, ConversationTurn } from './conversation';
import { defineMethod, type MethodResult } from './define-method';
import { TURN_READ_MAX } from './turn-reads';
import type { ConnectionTestReport, DesktopCommand, DesktopInfo } from './desktop';
import type { HealthView, SourceCitingItem } from './health';
import { EXPORT_FORMATS, LibraryItemKind, LibraryRevision, type BundlePlan, type LibraryItemView, type LibraryLocation, type LibrarySearchResult, type LibrarySummary } from './library';
import { ResearchMode, type ResearchRunSummary, type StoredReport } from './research';
import { TIME_OF_DAY, type ResearchScheduleView, type ResearchSchedulesView } from './research-schedules';
import type { BridgeError, Result } from './result';
import { SIGNAL_ID_PATTERN, type LookedUpSource, type Signal } from './service-schemas';
import { HORIZON_PATTERN, type DiscoverPage, type Forecast, type ForecastableList } from './surface-schemas';
import type { ServiceChangelogView, ServiceNotice } from './service-notices';
import { AcceptProposalArgs, NewSourceArgs, RejectProposalArgs, SourceIdArgs, SourcePatchArgs, type FetchRecordView, type FetchedSource, type ProposalView, type SourcePreview, type SourcesOverview } from './sources';
import { FollowTargetArgs, type WatchlistView } from './watchlist';
import { WEBHOOK_EVENTS, type DeliveryView, type WebhookView, type WebhookWithSecret } from './webhooks';

export type { AskEvent } from './ask-event';
export type { AnswerSetting, AnswersStatus, ModelKeyStatus } from './answer-settings';
export { fail, ok, type BridgeError, type BridgeErrorCode, type Result } from './result';

// ── Shapes that cross the bridge: settings, service status, credentials (bridge-settings.ts) ──
export * from './bridge-settings';

// ── Invoke methods: name → argument schema (validated in main) and result type ───────────
const NoArgs = z.undefined();
const ConversationId = z.string().regex(/^cnv_[0-9a-f]{16}$/, 'Not a conversation id.');
export { TURN_READ_MAX };
/**
 * Turns asked for by id, not by position: the renderer's order of turns can differ from main's
 * (a turn retried after it failed unstored is stored at main's end, but stays in its row here).
 */
const TurnReadArgs = z.object({
  id: ConversationId,
  turnIds: z
    .array(z.string().min(1).max(64))
    .min(1, 'Name at least one turn.')
    .max(TURN_READ_MAX, `Ask for at most ${TURN_READ_MAX} turns at a time.`),
});
/** The stored turns asked for that the conversation has, in its order; `total` is its turn count. */
export interface TurnRead {
  total: number;
  turns: ConversationTurn[];
}
const RunId = z.string().regex(/^run_[0-9a-f]{16}$/, 'Not a research run id.');
/** The service's id of a research schedule (`rsc_…` here; another service's own form). */
const ScheduleId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'Not a research schedule id.');
const LibraryId = z.string().regex(/^lib_[0-9a-f]{16}$/, 'Not a library item id.');
/** `personal`, or a team library (`team_` + 8 hex). */
const LibraryLocationId = z.string().regex(/^(?:personal|team_[0-9a-f]{8})$/, 'Not a library.');
/** A `.clarity` bundle as base64 (64 MB at most once decoded). */
const BundleData = z.string().max(90_000_000).regex(/^[A-Za-z0-9+/=]*$/, 'Not a bundle file.');
const ForecastSignalId = z.string().regex(SIGNAL_ID_PATTERN);
/**
 * A forecast as the renderer shows it, to save or export (the service charges per forecast, so
 * main does not ask again). Bounded; unknown fields are dropped.
 */
export const ForecastSource = z.object({
  kind: z.literal('forecast'),
  entity: z.string().trim().min(1).max(120),
  metric: z.string().trim().min(1).max(80),
  horizon: z.string().trim().max(20),
  forecast: z.object({
    forecast: z.object({ value: z.number(), unit: z.string().max(40), period: z.string().max(20), interval: z.object({ low: z.number(), high: z.number(), level: z.number() }) }),
    method: z.string().max(2_000),
    basis: z.array(ForecastSignalId).max(5_000),
    history: z.array(z.object({ period: z.string().max(20), value: z.number(), signal: ForecastSignalId })).max(64),
    confidence: z.number(),
    cost_usd: z.number(),
  }),
});
export type ForecastSource = z.infer<typeof ForecastSource>;
export const ExportSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('library'), id: LibraryId }),
  z.object({ kind: z.literal('answer'), conversationId: ConversationId, turnId: z.string().max(64) }),
  z.object({ kind: z.literal('conversation'), conversationId: ConversationId }),
  z.object({ kind: z.literal('report'), runId: RunId }),
  ForecastSource,
]);
export type ExportSource = z.infer<typeof ExportSource>;

export interface ExportResult {
  filename: string;
  mime: string;
  /** Where Electron saved it (the user chose in the system dialog); null if cancelled or in the browser host. */
  savedPath: string | null;
  /** The file, for the browser host to download (base64); null when Electron saved it. */
  base64: string | null;
}

export interface SignalDetails {
  signal: Signal;
  source: LookedUpSource;
  fetchedAt: string;
}

/**
 * Something the user must know about their data (SECURITY.md): an unreadable file that was set
 * aside (and where), or a data folder the app cannot write. Kept until dismissed.
 */
export interface DataNotice {
  id: string;
  kind: 'set_aside' | 'unwritable';
  text: string;
  /** The file or folder concerned. */
  path: string;
}

const SignalIdArg = z.string().regex(/^sig_[0-9a-f]{16}$/, 'Not a signal id.');

export interface ApiKeySummary {
  id: string;
  last4: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface IssuedApiKey {
  /** Shown once, to be copied; main keeps it only if the user chose the keychain. */
  key: string;
  id: string;
  last4: string;
  storedInKeychain: boolean;
}

export const BridgeMethods = {
  'settings.get': defineMethod(NoArgs).returns<Settings>(),
  /** The app's name and version, for the settings page. */
  'settings.about': defineMethod(NoArgs).returns<{ name: string; version: string }>(),
  'service.status': defineMethod(NoArgs).returns<ServiceStatus>(),
  'service.set': defineMethod(ServiceSetting).returns<ServiceStatus>(),
  /** Try the service again now (the status bar's and Settings' "Retry" / "Test connection"). */
  'service.retry': defineMethod(NoArgs).returns<ServiceStatus>(),
  'settings.setTrustedHosts': defineMethod(z.object({ hosts: TrustedHosts })).returns<Settings>(),
  'settings.setTheme': defineMethod(z.object({ theme: ThemeChoice })).returns<Settings>(),
  'settings.setDisplay': defineMethod(DisplaySetting).returns<Settings>(),
  /** Settings › Answers (issue 28): the embedded service's composer, and the model key's status (never the key). */
  'answers.status': defineMethod(NoArgs).returns<AnswersStatus>(),
  /** Saves the composer setting (a key goes to the keychain) and restarts the embedded service with it. */
  'answers.set': defineMethod(AnswerSettingInput).returns<AnswersStatus>(),
  'credentials.status': defineMethod(NoArgs).returns<CredentialStatus>(),
  'credentials.set': defineMethod(z.object({
    secret: z.string().trim().min(8, 'A credential is at least 8 characters.').max(8_192),
    presentAs: CredentialPresentation,
  })).returns<CredentialStatus>(),
  'credentials.clear': defineMethod(NoArgs).returns<CredentialStatus>(),
  /** Asks the service in use whether it accepts the stored credential (Settings › Test credential). */
  'credentials.test': defineMethod(NoArgs).returns<CredentialCheck>(),
  /** Local service only: a development token from its identity provider, stored like a pasted one. */
  'credentials.devToken': defineMethod(z.object({ email: z.string().trim().max(200).regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'Enter an email address, e.g. you@example.com.') })).returns<CredentialStatus>(),
  'links.openExternal': defineMethod(z.object({ url: z.string().max(4_096) })).returns<{ opened: boolean }>(),
  'conversations.list': defineMethod(NoArgs).returns<ConversationSummary[]>(),
  'conversations.get': defineMethod(z.object({ id: ConversationId })).returns<Conversation>(),
  'conversations.create': defineMethod(NoArgs).returns<Conversation>(),
  /**
   * Turns `from` (inclusive) to `to` (exclusive) of a conversation main holds, as stored (issue 31):
   * the renderer keeps only a window of its answers and reads the rest back by range.
   */
  'conversations.turns': defineMethod(TurnReadArgs).returns<TurnRead>(),
  'conversations.rename': defineMethod(z.object({ id: ConversationId, title: z.string().trim().min(1, 'A title cannot be empty.').max(200) })).returns<Conversation>(),
  /** Conversations whose title, questions or answers hold every word (issue #16). */
  'conversations.search': defineMethod(z.object({ text: z.string().max(500) })).returns<ConversationSummary[]>(),
  'conversations.pin': defineMethod(z.object({ id: ConversationId, pinned: z.boolean() })).returns<Conversation>(),
  'conversations.delete': defineMethod(z.object({ id: ConversationId })).returns<{ deleted: true }>(),
  'conversations.restore': defineMethod(z.object({ id: ConversationId })).returns<Conversation>(),
  'conversations.share': defineMethod(z.object({ id: ConversationId, public: z.boolean() })).returns<{ publicUrl: string | null }>(),
  'signals.get': defineMethod(z.object({ id: z.string().regex(SIGNAL_ID_PATTERN, 'Not a signal id.') })).returns<SignalDetails>(),
  'research.start': defineMethod(z.object({
    topic: z.string().trim().min(3, 'Give the research a topic of at least 3 characters.').max(500),
    preset: z.string().trim().min(1).max(40).default('standard'),
    mode: ResearchMode.default('wait'),
  })).returns<ResearchRunSummary>(),
  'research.list': defineMethod(NoArgs).returns<ResearchRunSummary[]>(),
  'research.cancel': defineMethod(z.object({ id: RunId })).returns<ResearchRunSummary>(),
  'research.retry': defineMethod(z.object({ id: RunId })).returns<ResearchRunSummary>(),
  'research.report': defineMethod(z.object({ id: RunId })).returns<{ run: ResearchRunSummary; report: StoredReport }>(),
  // Issue 46: runs the service's schedules started are taken in; opening one's report clears its badge.
  'research.checkSchedules': defineMethod(NoArgs).returns<{ adopted: number }>(),
  'research.markSeen': defineMethod(z.object({ id: RunId })).returns<ResearchRunSummary>(),
  // The analyst's schedules on the service (Research › Schedules): listed, made, run now, deleted.
  'research.schedules': defineMethod(NoArgs).returns<ResearchSchedulesView>(),
  'research.schedule': defineMethod(z.object({
    topic: z.string().trim().min(3, 'Give the schedule a topic of at least 3 characters.').max(500),
    preset: z.string().trim().min(1).max(40).default('standard'),
    every: z.enum(['daily', 'weekly']),
    /** The service's UTC time of day; the renderer converts the analyst's time in their zone. */
    at: z.string().regex(TIME_OF_DAY, 'A time of day is HH:MM, e.g. 09:00.').optional(),
  })).returns<ResearchScheduleView>(),
  'research.runSchedule': defineMethod(z.object({ id: ScheduleId })).returns<ResearchRunSummary>(),
  'research.deleteSchedule': defineMethod(z.object({ id: ScheduleId })).returns<{ deleted: true }>(),
  /** A schedule's new cadence and/or UTC time of day, changed in place (its runs stay its). */
  'research.updateSchedule': defineMethod(z.object({
    id: ScheduleId,
    every: z.enum(['daily', 'weekly']).optional(),
    at: z.string().regex(TIME_OF_DAY, 'A time of day is HH:MM, e.g. 09:00.').optional(),
  }).refine((change) => change.every !== undefined || change.at !== undefined, 'Choose how often or a time to change.')).returns<ResearchScheduleView>(),
  'health.watch': defineMethod(NoArgs).returns<HealthView>(),
  'health.unwatch': defineMethod(NoArgs).returns<null>(),
  /** Fetch the snapshot now (the user's "Try again"), not waiting for the back-off. */
  'health.refresh': defineMethod(NoArgs).returns<HealthView>(),
  'health.citing': defineMethod(z.object({ sourceId: z.string().min(1).max(200) })).returns<SourceCitingItem[]>(),
  'library.search': defineMethod(z.object({
    text: z.string().max(500).optional(),
    kind: LibraryItemKind.optional(),
    from: z.string().max(40).optional(),
    to: z.string().max(40).optional(),
    source: z.string().max(200).optional(),
    entity: z.string().max(200).optional(),
    tag: z.string().max(60).optional(),
    location: LibraryLocationId.optional(),
    sort: z.enum(['date', 'title', 'citations']).optional(),
  })).returns<LibrarySearchResult>(),
  'library.facets': defineMethod(NoArgs).returns<{ sources: string[]; entities: string[]; tags: string[] }>(),
  'library.get': defineMethod(z.object({ id: LibraryId, location: LibraryLocationId.optional() })).returns<LibraryItemView>(),
  'library.saveAnswer': defineMethod(z.object({ conversationId: ConversationId, turnId: z.string().max(64), location: LibraryLocationId.optional() })).returns<LibrarySummary>(),
  'library.saveConversation': defineMethod(z.object({ conversationId: ConversationId, location: LibraryLocationId.optional() })).returns<LibrarySummary>(),
  'library.saveReport': defineMethod(z.object({ runId: RunId, location: LibraryLocationId.optional() })).returns<LibrarySummary>(),
  /** `conflict`: someone else had changed it meanwhile; both versions are kept. */
  'library.update': defineMethod(z.object({
    id: LibraryId,
    title: z.string().trim().min(1).max(300).optional(),
    tags: z.array(z.string().trim().min(1).max(60)).max(30).optional(),
    /** The revision the user was editing; a later one on disk makes this a conflict, not an overwrite. */
    revision: LibraryRevision.optional(),
  })).returns<LibrarySummary & { conflict: boolean }>(),
  'library.delete': defineMethod(z.object({ id: LibraryId })).returns<{ deleted: true }>(),
  'library.restore': defineMethod(z.object({ id: LibraryId })).returns<LibrarySummary>(),
  // Team libraries (issue 19): locations, copy/move, conflicts, bundles.
  'library.locations': defineMethod(NoArgs).returns<LibraryLocation[]>(),
  'library.addLocation': defineMethod(z.object({ path: z.string().trim().min(1).max(4_000), name: z.string().trim().max(80).default('') })).returns<LibraryLocation>(),
  /** The system folder picker (Electron); `available: false` in the browser host. */
  'library.pickFolder': defineMethod(NoArgs).returns<{ available: boolean; path: string | null }>(),
  'library.removeLocation': defineMethod(z.object({ id: LibraryLocationId })).returns<LibraryLocation[]>(),
  'library.transfer': defineMethod(z.object({ id: LibraryId, to: LibraryLocationId, mode: z.enum(['copy', 'move']) })).returns<LibrarySummary>(),
  'library.resolveConflict': defineMethod(z.object({ id: LibraryId, file: z.string().min(1).max(300), keep: z.enum(['current', 'copy', 'both']) })).returns<LibrarySummary>(),
  /** A selection as one `.clarity` file: given items, or every item with a tag. */
  'library.exportBundle': defineMethod(z.object({ ids: z.array(LibraryId).max(5_000).optional(), tag: z.string().trim().min(1).max(60).optional() })).returns<ExportResult>(),
  'library.inspectBundle': defineMethod(z.object({ data: BundleData, location: LibraryLocationId.default('personal') })).returns<BundlePlan>(),
  /** Writes new items; replaces only the newer revisions listed in `replace`; a diverged one becomes a conflict copy. */
  'library.importBundle': defineMethod(z.object({ data: BundleData, location: LibraryLocationId.default('personal'), replace: z.array(LibraryId).max(5_000).default([]) })).returns<{ added: number; replaced: number; conflicts: number; skipped: number }>(),
  'discover.search': defineMethod(z.object({
    q: z.string().trim().max(500).optional(),
    ids: z.array(z.string().regex(/^sig_[0-9a-f]{16}$/)).max(100).optional(),
    entity: z.string().trim().max(200).optional(),
    segment: z.string().trim().max(200).optional(),
    city: z.string().trim().max(200).optional(),
    source: z.string().trim().max(200).optional(),
    kind: z.string().trim().max(60).optional(),
    since: z.string().max(40).optional(),
    until: z.string().max(40).optional(),
    limit: z.number().int().min(1).max(100).optional(),
    cursor: z.string().max(400).optional(),
  })).returns<DiscoverPage>(),
  'watchlist.get': defineMethod(NoArgs).returns<WatchlistView>(),
  'watchlist.follow': defineMethod(FollowTargetArgs).returns<WatchlistView>(),
  'watchlist.unfollow': defineMethod(z.object({ id: z.string().min(1).max(64) })).returns<WatchlistView>(),
  'watchlist.markRead': defineMethod(z.object({ ids: z.array(SignalIdArg).max(1_000).optional() })).returns<WatchlistView>(),
  'watchlist.refresh': defineMethod(NoArgs).returns<WatchlistView>(),
  'forecast.get': defineMethod(z.object({
    entity: z.string().trim().min(1).max(120),
    metric: z.string().trim().min(1).max(80),
    horizon: z.string().trim().regex(HORIZON_PATTERN, 'Use next_quarter, next_year or a fiscal quarter such as "Q3 FY27".').default('next_quarter'),
  })).returns<Forecast>(),
  /** Issue 47 item 6: an entity's metrics, each judged by its history for a forecast (decision 0045). */
  'forecast.metrics': defineMethod(z.object({ entity: z.string().trim().min(1).max(120) })).returns<ForecastableList>(),
  /** Saves a shown forecast to the library as an answer stating it (see docs/service-extensions.md). */
  'forecast.save': defineMethod(ForecastSource).returns<LibrarySummary>(),
  'developer.listKeys': defineMethod(NoArgs).returns<ApiKeySummary[]>(),
  'developer.issueKey': defineMethod(z.object({ storeInKeychain: z.boolean().default(false) })).returns<IssuedApiKey>(),
  'developer.revokeKey': defineMethod(z.object({ id: z.string().min(1).max(64) })).returns<ApiKeySummary[]>(),
  // Webhooks on the service in use (Settings › Developer); a secret is returned once, never stored by the app.
  'developer.listWebhooks': defineMethod(NoArgs).returns<WebhookView[]>(),
  'developer.createWebhook': defineMethod(z.object({
    url: z.string().trim().min(1).max(2_000),
    events: z.array(z.enum(WEBHOOK_EVENTS)).min(1, 'Pick at least one event.').max(WEBHOOK_EVENTS.length),
  })).returns<WebhookWithSecret>(),
  'developer.deleteWebhook': defineMethod(z.object({ id: z.string().min(1).max(64) })).returns<WebhookView[]>(),
  'developer.rotateWebhookSecret': defineMethod(z.object({ id: z.string().min(1).max(64) })).returns<WebhookWithSecret>(),
  'developer.webhookDeliveries': defineMethod(z.object({ id: z.string().min(1).max(64) })).returns<DeliveryView[]>(),
  'developer.redeliver': defineMethod(z.object({ id: z.string().min(1).max(64), deliveryId: z.string().min(1).max(64) })).returns<DeliveryView[]>(),
  // What the service in use announces: deprecations its responses carried, and its changelog.
  'notices.list': defineMethod(NoArgs).returns<ServiceNotice[]>(),
  'notices.acknowledge': defineMethod(z.object({ id: z.string().min(1).max(64) })).returns<ServiceNotice[]>(),
  'notices.changelog': defineMethod(NoArgs).returns<ServiceChangelogView>(),
  // Sources the service fetches (issue 26): its administrator manages them; main decides who that is.
  'sources.overview': defineMethod(NoArgs).returns<SourcesOverview>(),
  'sources.history': defineMethod(SourceIdArgs).returns<{ source: FetchedSource; history: FetchRecordView[] }>(),
  /** Fetches the address once and shows what it would give; adds nothing. */
  'sources.preview': defineMethod(NewSourceArgs).returns<SourcePreview>(),
  'sources.add': defineMethod(NewSourceArgs).returns<{ source: FetchedSource; preview: SourcePreview }>(),
  'sources.update': defineMethod(SourcePatchArgs).returns<FetchedSource>(),
  /** Issue 47: the analyst said yes to fetching this private host; the embedded service restarts with it. */
  'sources.allowHost': defineMethod(z.object({ host: SourceHost })).returns<Settings>(),
  /** Withdraws that consent (Settings › Sources); the embedded service restarts without it. */
  'sources.withdrawHost': defineMethod(z.object({ host: SourceHost })).returns<Settings>(),
  'sources.remove': defineMethod(SourceIdArgs).returns<{ removed: true }>(),
  'sources.acceptProposal': defineMethod(AcceptProposalArgs).returns<{ proposal: ProposalView; source: FetchedSource }>(),
  'sources.rejectProposal': defineMethod(RejectProposalArgs).returns<ProposalView>(),
  'export.render': defineMethod(z.object({ source: ExportSource, format: z.enum(EXPORT_FORMATS) })).returns<ExportResult>(),
  'data.notices': defineMethod(NoArgs).returns<DataNotice[]>(),
  // Desktop shell (src/main/desktop, src/main/electron): network, logs, launch links.
  'desktop.info': defineMethod(NoArgs).returns<DesktopInfo>(),
  'desktop.testConnection': defineMethod(NoArgs).returns<ConnectionTestReport>(),
  'desktop.openLogsFolder': defineMethod(NoArgs).returns<{ opened: boolean; path: string | null }>(),
  /** Links and commands that arrived before the renderer subscribed (a link that launched the app). */
  'desktop.takePendingCommands': defineMethod(NoArgs).returns<DesktopCommand[]>(),
};

export type InvokeMethod = keyof typeof BridgeMethods;
/** What the caller passes (before defaults). */
export type InvokeArgs<M extends InvokeMethod> = z.input<(typeof BridgeMethods)[M]['args']>;
/** What the handler receives (validated, defaults applied). */
export type InvokeParsedArgs<M extends InvokeMethod> = z.output<(typeof BridgeMethods)[M]['args']>;
export type InvokeResults = { [M in InvokeMethod]: MethodResult<(typeof BridgeMethods)[M]> };

export function isInvokeMethod(method: string): method is InvokeMethod {
  return Object.hasOwn(BridgeMethods, method);
}

// ── Streams: open → events* → done | error (docs/decisions/conventions.md §4) ───────────────────────────────────
export const AskStreamArgs = z.object({
  question: z.string().trim().min(1, 'Type a question first.').max(8_000),
  /** The conversation the turn belongs to; main keeps the history and session. */
  conversationId: ConversationId.optional(),
  /** Re-ask this turn of the conversation (retry) instead of adding one. */
  retryTurnId: z.string().max(64).optional(),
  /** Earlier user turns of this conversation, oldest first. */
  history: z.array(z.string().min(1).max(8_000)).max(49).default([]),
  sessionId: z.string().max(64).optional(),
});
export type AskStreamArgs = z.input<typeof AskStreamArgs>;

export const StreamArgSchemas = { ask: AskStreamArgs } satisfies Record<string, z.ZodType>;
export type StreamMethod = keyof typeof StreamArgSchemas;

export type StreamMessage =
  | { streamId: string; kind: 'open' }
  | {
      streamId: string;
      kind: 'events';
      events: AskEvent[];
      seq: number;
      /** When main received the batch's first event (epoch ms, sub-ms): for the latency figure. */
      receivedAt?: number;
    }
  | { streamId: string; kind: 'done' }
  | { streamId: string; kind: 'error'; error: BridgeError; incomplete: boolean };

export const STREAM_ID = z.string().regex(/^[A-Za-z0-9_-]{6,64}$/);

// ── Push events from main ────────────────────────────────────────────────────────────────
export interface PushEvents {
  'service.status': ServiceStatus;
  'credentials.status': CredentialStatus;
  'research.updated': ResearchRunSummary;
  'health.updated': HealthView;
  'watchlist.updated': WatchlistView;
  'data.notice': DataNotice;
  /** A menu command or a validated deep link, for the renderer to act on. */
  'desktop.command': DesktopCommand;
  /** A library changed (this app, or another writer in a team folder). */
  'library.changed': { locations: LibraryLocation[] };
  /** The service in use announced a deprecation the user has not been told about. */
  'service.notice': ServiceNotice;
}
export type PushEventName = keyof PushEvents;
export { IPC_CHANNELS, PUSH_EVENT_NAMES } from './bridge-channels';

/** Compile-time check: PUSH_EVENT_NAMES (what the preload accepts) lists exactly the PushEvents. */
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type MustBeTrue<T extends true> = T;
export type PushEventNamesAreExhaustive = MustBeTrue<Exactly<(typeof PUSH_EVENT_NAMES)[number], PushEventName>>;

export type Unsubscribe = () => void;

/** What `window.clarity` is, in Electron (preload) and in the browser host (WebSocket client). */
export interface ClarityBridge {
  invoke<M extends InvokeMethod>(method: M, args?: InvokeArgs<M>): Promise<Result<InvokeResults[M]>>;
  /** Subscribe with onStreamMessage first, then start: no event can be missed. */
  startStream(streamId: string, method: StreamMethod, args: AskStreamArgs): Promise<Result<null>>;
  abortStream(streamId: string): Promise<void>;
  onStreamMessage(callback: (message: StreamMessage) => void): Unsubscribe;
  onPush<E extends PushEventName>(event: E, callback: (payload: PushEvents[E]) => void): Unsubscribe;
  /** Which host the renderer runs in; shown in the status bar. */
  readonly host: 'electron' | 'browser';
}

/** Frames of the browser host's WebSocket transport. */
export type WsClientFrame =
  | { t: 'invoke'; id: number; method: string; args: unknown }
  | { t: 'stream-start'; id: number; streamId: string; method: string; args: unknown }
  | { t: 'stream-abort'; streamId: string };

export type WsServerFrame =
  | { t: 'result'; id: number; result: Result<unknown> }
  | { t: 'stream'; message: StreamMessage }
  | { t: 'push'; event: PushEventName; payload: unknown };
