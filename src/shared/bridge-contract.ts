/**
 * The one contract between the renderer and the main process (STYLE §1). Both transports
 * (Electron IPC, WebSocket for the browser host), the preload and the renderer are typed
 * from this file; the bridge host validates every payload against the schemas here.
 */
import { z } from 'zod';
import type { CitationDetail, Conversation, ConversationSummary } from './conversation';
import type { HealthView, SourceCitingItem } from './health';
import { EXPORT_FORMATS, LibraryItemKind, type LibraryItem, type LibrarySearchResult, type LibrarySummary } from './library';
import { ResearchMode, type ResearchRunSummary, type StoredReport } from './research';
import type { CitationPayload, ServiceErrorCode, Signal, SourceEntry } from './service-schemas';

// ── Results: errors are values at the boundary (STYLE §10) ───────────────────────────────
export type BridgeErrorCode =
  | ServiceErrorCode
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'bad_response'
  | 'invalid_argument'
  | 'unknown_method'
  | 'keychain_unavailable';

export interface BridgeError {
  code: BridgeErrorCode;
  message: string;
  /** Seconds until the request may be sent again (429). */
  retryAfterS?: number;
  /** HTTP status, when the error came from the service. */
  status?: number;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: BridgeError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (error: BridgeError): Result<never> => ({ ok: false, error });

// ── Shapes that cross the bridge ─────────────────────────────────────────────────────────
export const HTTPS_OR_LOOPBACK_URL = z
  .string()
  .trim()
  .max(2_000)
  .refine((value) => {
    try {
      const url = new URL(value);
      if (url.username || url.password) return false;
      if (url.protocol === 'https:') return true;
      // Plain http only to this machine (a service you run yourself).
      return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    } catch {
      return false;
    }
  }, 'Enter an https:// address (plain http is allowed for 127.0.0.1 and localhost only).');

export const ServiceSetting = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('local') }),
  z.object({ mode: z.literal('remote'), baseUrl: HTTPS_OR_LOOPBACK_URL }),
]);
export type ServiceSetting = z.infer<typeof ServiceSetting>;

export const CredentialPresentation = z.enum(['bearer', 'x-api-key']);
export type CredentialPresentation = z.infer<typeof CredentialPresentation>;

export interface Settings {
  service: ServiceSetting;
  credentialPresentation: CredentialPresentation;
}

export interface ServiceStatus {
  mode: 'local' | 'remote';
  /** Base URL in use, or null while the local service is starting. */
  baseUrl: string | null;
  state: 'starting' | 'ready' | 'unreachable' | 'error';
  /** The local service serves synthetic sample data; the UI says so. */
  synthetic: boolean;
  detail?: string;
  rateLimitRemaining: number | null;
  /** Epoch ms until which the service asked us to wait (429), if any. */
  retryAt: number | null;
}

export type CredentialKind = 'jwt' | 'api-key' | 'token';

export interface CredentialStatus {
  set: boolean;
  /** The last four characters only; the secret itself never crosses the bridge. */
  last4: string | null;
  kind: CredentialKind | null;
  presentAs: CredentialPresentation;
  backend: 'keychain' | 'session-only';
  backendDetail: string;
}

// ── Invoke methods: name → argument schema (validated in main) and result type ───────────
const NoArgs = z.undefined();
const ConversationId = z.string().regex(/^cnv_[0-9a-f]{16}$/, 'Not a conversation id.');
const RunId = z.string().regex(/^run_[0-9a-f]{16}$/, 'Not a research run id.');
const LibraryId = z.string().regex(/^lib_[0-9a-f]{16}$/, 'Not a library item id.');
export const ExportSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('library'), id: LibraryId }),
  z.object({ kind: z.literal('answer'), conversationId: ConversationId, turnId: z.string().max(64) }),
  z.object({ kind: z.literal('conversation'), conversationId: ConversationId }),
  z.object({ kind: z.literal('report'), runId: RunId }),
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
  source: SourceEntry;
  fetchedAt: string;
}

export const InvokeArgSchemas = {
  'settings.get': NoArgs,
  'service.status': NoArgs,
  'service.set': ServiceSetting,
  'credentials.status': NoArgs,
  'credentials.set': z.object({
    secret: z.string().trim().min(8, 'A credential is at least 8 characters.').max(8_192),
    presentAs: CredentialPresentation,
  }),
  'credentials.clear': NoArgs,
  'links.openExternal': z.object({ url: z.string().max(4_096) }),
  'conversations.list': NoArgs,
  'conversations.get': z.object({ id: ConversationId }),
  'conversations.create': NoArgs,
  'conversations.rename': z.object({ id: ConversationId, title: z.string().trim().min(1, 'A title cannot be empty.').max(200) }),
  'conversations.delete': z.object({ id: ConversationId }),
  'conversations.restore': z.object({ id: ConversationId }),
  'conversations.share': z.object({ id: ConversationId, public: z.boolean() }),
  'signals.get': z.object({ id: z.string().regex(/^sig_[0-9a-f]{16}$/, 'Not a signal id.') }),
  'research.start': z.object({
    topic: z.string().trim().min(3, 'Give the research a topic of at least 3 characters.').max(500),
    preset: z.string().trim().min(1).max(40).default('standard'),
    mode: ResearchMode.default('wait'),
  }),
  'research.list': NoArgs,
  'research.cancel': z.object({ id: RunId }),
  'research.retry': z.object({ id: RunId }),
  'research.report': z.object({ id: RunId }),
  'health.watch': NoArgs,
  'health.unwatch': NoArgs,
  'health.citing': z.object({ sourceId: z.string().min(1).max(200) }),
  'library.search': z.object({
    text: z.string().max(500).optional(),
    kind: LibraryItemKind.optional(),
    from: z.string().max(40).optional(),
    to: z.string().max(40).optional(),
    source: z.string().max(200).optional(),
    entity: z.string().max(200).optional(),
    tag: z.string().max(60).optional(),
    sort: z.enum(['date', 'title', 'citations']).optional(),
  }),
  'library.facets': NoArgs,
  'library.get': z.object({ id: LibraryId }),
  'library.saveAnswer': z.object({ conversationId: ConversationId, turnId: z.string().max(64) }),
  'library.saveConversation': z.object({ conversationId: ConversationId }),
  'library.saveReport': z.object({ runId: RunId }),
  'library.update': z.object({ id: LibraryId, title: z.string().trim().min(1).max(300).optional(), tags: z.array(z.string().trim().min(1).max(60)).max(30).optional() }),
  'library.delete': z.object({ id: LibraryId }),
  'library.restore': z.object({ id: LibraryId }),
  'export.render': z.object({ source: ExportSource, format: z.enum(EXPORT_FORMATS) }),
} satisfies Record<string, z.ZodType>;

export interface InvokeResults {
  'settings.get': Settings;
  'service.status': ServiceStatus;
  'service.set': ServiceStatus;
  'credentials.status': CredentialStatus;
  'credentials.set': CredentialStatus;
  'credentials.clear': CredentialStatus;
  'links.openExternal': { opened: boolean };
  'conversations.list': ConversationSummary[];
  'conversations.get': Conversation;
  'conversations.create': Conversation;
  'conversations.rename': Conversation;
  'conversations.delete': { deleted: true };
  'conversations.restore': Conversation;
  'conversations.share': { publicUrl: string | null };
  'signals.get': SignalDetails;
  'research.start': ResearchRunSummary;
  'research.list': ResearchRunSummary[];
  'research.cancel': ResearchRunSummary;
  'research.retry': ResearchRunSummary;
  'research.report': { run: ResearchRunSummary; report: StoredReport };
  'health.watch': HealthView;
  'health.unwatch': null;
  'health.citing': SourceCitingItem[];
  'library.search': LibrarySearchResult;
  'library.facets': { sources: string[]; entities: string[]; tags: string[] };
  'library.get': LibraryItem;
  'library.saveAnswer': LibrarySummary;
  'library.saveConversation': LibrarySummary;
  'library.saveReport': LibrarySummary;
  'library.update': LibrarySummary;
  'library.delete': { deleted: true };
  'library.restore': LibrarySummary;
  'export.render': ExportResult;
}

export type InvokeMethod = keyof typeof InvokeArgSchemas;
export type InvokeArgs<M extends InvokeMethod> = z.input<(typeof InvokeArgSchemas)[M]>;

// ── Streams: open → events* → done | error (STYLE §4) ───────────────────────────────────
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

/** Normalised ask events: what the renderer needs, independent of the wire format. */
export type AskEvent =
  | { type: 'meta'; messageId?: string; sessionId?: string; sessionSlug?: string }
  | { type: 'text'; text: string }
  | { type: 'citation'; citation: CitationPayload }
  | { type: 'confidence'; value: number }
  | { type: 'promotion'; topic: string; preset: string; reason?: string }
  | { type: 'turn'; conversationId: string; turnId: string }
  | { type: 'citation_detail'; id: string; detail: CitationDetail };

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
}
export type PushEventName = keyof PushEvents;
export { IPC_CHANNELS, PUSH_EVENT_NAMES } from './bridge-channels';

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
