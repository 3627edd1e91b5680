/**
 * The bridge host: implements ClarityBridge on top of the main-process services. It is
 * transport-agnostic; the Electron IPC transport and the browser host's WebSocket transport
 * both call into it. Every payload is validated here (zod) before any service sees it.
 */
import {
  fail,
  InvokeArgSchemas,
  ok,
  STREAM_ID,
  StreamArgSchemas,
  type AskEvent,
  type InvokeMethod,
  type InvokeResults,
  type PushEventName,
  type PushEvents,
  type Result,
  type ServiceSetting,
  type ServiceStatus,
  type StreamMessage,
} from '../../shared/bridge-contract';
import { applyAskEvent, type ConversationTurn } from '../../shared/conversation';
import { RetailSignalClient, type RateLimitObservation } from '../services/api-client';
import type { ConversationStore } from '../services/conversation-store';
import { buildDocument, type DocumentSources } from '../services/documents';
import { renderExport } from '../services/exporter';
import { HealthMonitor } from '../services/health-monitor';
import { summarize, type LibraryStore } from '../services/library-store';
import { ResearchService } from '../services/research-service';
import type { CredentialStore } from '../services/credential-store';
import { safeExternalUrl } from '../services/external-links';
import type { LocalServiceSupervisor } from '../services/local-service-supervisor';
import type { SettingsStore } from '../services/settings-store';
import { loggerFor } from '../logging/logger';

const log = loggerFor('bridge');

export type StreamSink = (message: StreamMessage) => void;
export type PushListener = <E extends PushEventName>(event: E, payload: PushEvents[E]) => void;

export interface BridgeHostDeps {
  settings: SettingsStore;
  credentials: CredentialStore;
  /** Starts the embedded local service; null where the host runs remote-only. */
  localService: LocalServiceSupervisor | null;
  conversations: ConversationStore;
  library: LibraryStore;
  /** Saves an export where the user chooses (Electron's save dialog); absent in the browser host. */
  saveFile?: (filename: string, data: Buffer) => Promise<string | null>;
  /** Where research runs and reports are kept (`<dataDir>/research`). */
  dataDir: string;
  /** A system notification (Electron); the browser host shows an in-app one instead. */
  notify?: (title: string, body: string) => void;
  /** Opens an allow-listed URL outside the app; returns false where the host cannot (browser host). */
  openExternal: (url: string) => Promise<boolean>;
  fetch?: typeof fetch;
  stallTimeoutMs?: number;
  /**
   * Interval over which stream deltas are coalesced into one message (STYLE §4). The renderer
   * already applies them once per frame, so this only caps the message rate (250/s at 4 ms);
   * a full 16 ms frame here added up to 16 ms of latency and saved the renderer nothing.
   */
  coalesceMs?: number;
}

interface ActiveStream {
  controller: AbortController;
  sink: StreamSink;
  conversationId: string | null;
}

export class BridgeHost {
  private readonly streams = new Map<string, ActiveStream>();
  private readonly pushListeners = new Set<PushListener>();
  private status: ServiceStatus;
  private client: RetailSignalClient | null = null;
  private restarts: number[] = [];
  private disposed = false;

  constructor(private readonly deps: BridgeHostDeps) {
    const service = deps.settings.get().service;
    this.status = {
      mode: service.mode,
      baseUrl: service.mode === 'remote' ? service.baseUrl : null,
      state: 'starting',
      synthetic: service.mode === 'local',
      rateLimitRemaining: null,
      retryAt: null,
    };
  }

  private research: ResearchService | null = null;
  private health: HealthMonitor | null = null;

  /** Connects to the configured service, starting the local one if that is the setting. */
  async start(): Promise<void> {
    this.research = await ResearchService.open({
      dataDir: this.deps.dataDir,
      client: () => this.client,
      onUpdate: (run) => this.push('research.updated', run),
      notify: this.deps.notify,
    });
    this.health = await HealthMonitor.open({
      dataDir: this.deps.dataDir,
      client: () => this.client,
      onUpdate: (view) => this.push('health.updated', view),
    });
    await this.applyService(this.deps.settings.get().service);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.research?.dispose();
    this.health?.stop();
    for (const stream of this.streams.values()) stream.controller.abort();
    this.streams.clear();
    await this.deps.localService?.stop();
  }

  onPush(listener: PushListener): () => void {
    this.pushListeners.add(listener);
    return () => this.pushListeners.delete(listener);
  }

  get pushListenerCount(): number {
    return this.pushListeners.size;
  }

  get activeStreamCount(): number {
    return this.streams.size;
  }

  serviceStatus(): ServiceStatus {
    return this.status;
  }

  async invoke(method: string, rawArgs: unknown): Promise<Result<unknown>> {
    if (!Object.hasOwn(InvokeArgSchemas, method)) {
      return fail({ code: 'unknown_method', message: `Unknown bridge method "${method}".` });
    }
    const schema = InvokeArgSchemas[method as InvokeMethod];
    const parsed = schema.safeParse(rawArgs);
    if (!parsed.success) {
      return fail({ code: 'invalid_argument', message: parsed.error.issues[0]?.message ?? 'Invalid argument.' });
    }
    try {
      return await this.dispatch(method as InvokeMethod, parsed.data);
    } catch (error) {
      // SECURITY: internal errors cross the bridge as a generic message; details stay in main.
      log.error(`${method} failed`, error);
      return fail({ code: 'internal', message: `${method} failed unexpectedly.` });
    }
  }

  private async dispatch(method: InvokeMethod, args: unknown): Promise<Result<InvokeResults[InvokeMethod]>> {
    const { settings, credentials } = this.deps;
    switch (method) {
      case 'settings.get':
        return ok(settings.get());
      case 'service.status':
        return ok(this.status);
      case 'service.set': {
        const service = args as ServiceSetting;
        await settings.update({ service });
        await this.applyService(service);
        return ok(this.status);
      }
      case 'credentials.status':
        return ok(await credentials.status());
      case 'credentials.set': {
        const { secret, presentAs } = args as { secret: string; presentAs: 'bearer' | 'x-api-key' };
        await settings.update({ credentialPresentation: presentAs });
        try {
          await credentials.set(secret);
        } catch {
          return fail({ code: 'keychain_unavailable', message: 'The OS keychain refused to store the credential. It was not saved.' });
        }
        const status = await credentials.status();
        this.push('credentials.status', status);
        return ok(status);
      }
      case 'credentials.clear': {
        await credentials.clear();
        const status = await credentials.status();
        this.push('credentials.status', status);
        return ok(status);
      }
      case 'links.openExternal': {
        const url = safeExternalUrl((args as { url: string }).url);
        if (!url) return fail({ code: 'invalid_argument', message: 'Only http, https and mailto links can be opened.' });
        return ok({ opened: await this.deps.openExternal(url) });
      }
      case 'conversations.list':
        return ok(this.deps.conversations.list());
      case 'conversations.get': {
        const conversation = this.deps.conversations.get((args as { id: string }).id);
        return conversation ? ok(conversation) : fail({ code: 'not_found', message: 'That conversation no longer exists.' });
      }
      case 'conversations.create':
        return ok(await this.deps.conversations.create());
      case 'conversations.rename': {
        const { id, title } = args as { id: string; title: string };
        const conversation = await this.deps.conversations.rename(id, title);
        return conversation ? ok(conversation) : fail({ code: 'not_found', message: 'That conversation no longer exists.' });
      }
      case 'conversations.delete': {
        const id = (args as { id: string }).id;
        if ([...this.streams.values()].some((stream) => stream.conversationId === id)) {
          return fail({ code: 'invalid_argument', message: 'Stop the running answer before deleting this conversation.' });
        }
        return (await this.deps.conversations.remove(id)) ? ok({ deleted: true as const }) : fail({ code: 'not_found', message: 'That conversation no longer exists.' });
      }
      case 'conversations.restore': {
        const conversation = await this.deps.conversations.restore((args as { id: string }).id);
        return conversation ? ok(conversation) : fail({ code: 'not_found', message: 'Nothing to restore.' });
      }
      case 'conversations.share':
        return this.share(args as { id: string; public: boolean });
      case 'research.start': {
        if (!this.research) return fail({ code: 'unavailable', message: 'Research is not ready yet.' });
        if (!this.client || !this.status.baseUrl) return fail({ code: 'unavailable', message: this.status.detail ?? 'The service is not ready yet.' });
        const { topic, preset, mode } = args as { topic: string; preset: string; mode: 'wait' | 'queue' };
        return ok(this.research.start(topic, preset, mode, this.status.baseUrl));
      }
      case 'research.list':
        return ok(this.research?.list() ?? []);
      case 'research.cancel': {
        const run = this.research?.cancel((args as { id: string }).id);
        return run ? ok(run) : fail({ code: 'invalid_argument', message: 'That run is not running.' });
      }
      case 'research.retry': {
        const run = this.research?.retry((args as { id: string }).id);
        return run ? ok(run) : fail({ code: 'invalid_argument', message: 'Only failed or cancelled runs can be retried.' });
      }
      case 'research.report': {
        const id = (args as { id: string }).id;
        const run = this.research?.list().find((r) => r.id === id);
        const report = run ? await this.research!.report(id) : null;
        return run && report ? ok({ run, report }) : fail({ code: 'not_found', message: 'That report is not available (yet).' });
      }
      case 'health.watch':
        return this.health ? ok(this.health.watch()) : fail({ code: 'unavailable', message: 'The health monitor is starting.' });
      case 'health.unwatch':
        this.health?.unwatch();
        return ok(null);
      case 'health.citing': {
        const sourceId = (args as { sourceId: string }).sourceId;
        const answers = this.deps.conversations.citing(sourceId).map(({ conversation, turnIndex }) => ({
          kind: 'answer' as const,
          id: `${conversation.id}:${turnIndex}`,
          title: conversation.turns[turnIndex]!.question,
          at: conversation.turns[turnIndex]!.askedAt,
          openId: conversation.id,
        }));
        const reports = ((await this.research?.reportsCiting(sourceId)) ?? []).map((run) => ({ kind: 'report' as const, id: run.id, title: run.topic, at: run.startedAt, openId: run.id }));
        return ok([...answers, ...reports].sort((a, b) => b.at.localeCompare(a.at)));
      }
      case 'library.search':
        return ok(this.deps.library.search(args as Parameters<LibraryStore['search']>[0]));
      case 'library.facets':
        return ok(this.deps.library.facets());
      case 'library.get': {
        const item = this.deps.library.get((args as { id: string }).id);
        return item ? ok(item) : fail({ code: 'not_found', message: 'That saved item no longer exists.' });
      }
      case 'library.saveAnswer':
      case 'library.saveConversation':
      case 'library.saveReport': {
        const source =
          method === 'library.saveAnswer'
            ? { kind: 'answer' as const, ...(args as { conversationId: string; turnId: string }) }
            : method === 'library.saveConversation'
              ? { kind: 'conversation' as const, ...(args as { conversationId: string }) }
              : { kind: 'report' as const, ...(args as { runId: string }) };
        const doc = await buildDocument(source, this.documentSources());
        if (!doc) return fail({ code: 'not_found', message: 'There is nothing to save yet: the answer or report has no text.' });
        const item = await this.deps.library.save({ kind: doc.kind, title: doc.title, markdown: doc.markdown, citations: doc.citations, createdAt: doc.createdAt, meta: doc.meta as never });
        return ok(summarize(item));
      }
      case 'library.update': {
        const { id, ...patch } = args as { id: string; title?: string; tags?: string[] };
        const item = await this.deps.library.update(id, patch);
        return item ? ok(summarize(item)) : fail({ code: 'not_found', message: 'That saved item no longer exists.' });
      }
      case 'library.delete':
        return (await this.deps.library.remove((args as { id: string }).id)) ? ok({ deleted: true as const }) : fail({ code: 'not_found', message: 'That saved item no longer exists.' });
      case 'library.restore': {
        const item = await this.deps.library.restore((args as { id: string }).id);
        return item ? ok(summarize(item)) : fail({ code: 'not_found', message: 'Nothing to restore.' });
      }
      case 'export.render': {
        const { source, format } = args as { source: Parameters<typeof buildDocument>[0]; format: Parameters<typeof renderExport>[1] };
        const doc = await buildDocument(source, this.documentSources());
        if (!doc) return fail({ code: 'not_found', message: 'There is nothing to export yet.' });
        const file = await renderExport(doc, format);
        if (this.deps.saveFile) {
          const savedPath = await this.deps.saveFile(file.filename, file.data);
          return ok({ filename: file.filename, mime: file.mime, savedPath, base64: null });
        }
        return ok({ filename: file.filename, mime: file.mime, savedPath: null, base64: file.data.toString('base64') });
      }
      case 'signals.get': {
        if (!this.client) return fail({ code: 'unavailable', message: this.status.detail ?? 'The service is not ready yet.' });
        const result = await this.client.getSignal((args as { id: string }).id);
        return result.ok ? ok({ ...result.value, fetchedAt: new Date().toISOString() }) : result;
      }
    }
  }

  private documentSources(): DocumentSources {
    return { conversations: this.deps.conversations, library: this.deps.library, research: this.research, serviceUrl: () => this.status.baseUrl };
  }

  private async share({ id, public: isPublic }: { id: string; public: boolean }): Promise<Result<{ publicUrl: string | null }>> {
    const conversation = this.deps.conversations.get(id);
    if (!conversation) return fail({ code: 'not_found', message: 'That conversation no longer exists.' });
    if (!conversation.sessionId) return fail({ code: 'invalid_request', message: 'Ask a question first: there is no session to share yet.' });
    if (!this.client) return fail({ code: 'unavailable', message: this.status.detail ?? 'The service is not ready yet.' });
    const result = await this.client.setSessionVisibility(conversation.sessionId, isPublic);
    if (!result.ok) {
      return fail(result.error.code === 'not_found' ? { ...result.error, message: 'The service no longer knows this session (it may have restarted), so it cannot be shared.' } : result.error);
    }
    conversation.publicUrl = result.value.url;
    await this.deps.conversations.save(conversation);
    return ok({ publicUrl: result.value.url });
  }

  /** Starts a stream; the caller has already subscribed its sink. */
  startStream(streamId: unknown, method: unknown, rawArgs: unknown, sink: StreamSink): Result<null> {
    const id = STREAM_ID.safeParse(streamId);
    if (!id.success) return fail({ code: 'invalid_argument', message: 'Invalid stream id.' });
    if (method !== 'ask' || !Object.hasOwn(StreamArgSchemas, method)) {
      return fail({ code: 'unknown_method', message: `Unknown stream "${String(method)}".` });
    }
    if (this.streams.has(id.data)) return fail({ code: 'invalid_argument', message: 'That stream id is already in use.' });
    const args = StreamArgSchemas.ask.safeParse(rawArgs);
    if (!args.success) return fail({ code: 'invalid_argument', message: args.error.issues[0]?.message ?? 'Invalid question.' });
    const client = this.client;
    if (!client) {
      return fail({ code: 'unavailable', message: this.status.detail ?? 'The service is not ready yet.' });
    }
    const conversationId = args.data.conversationId ?? null;
    if (conversationId && !this.deps.conversations.get(conversationId)) {
      return fail({ code: 'not_found', message: 'That conversation no longer exists.' });
    }
    if (conversationId && [...this.streams.values()].some((stream) => stream.conversationId === conversationId)) {
      return fail({ code: 'invalid_argument', message: 'This conversation is already answering.' });
    }
    const controller = new AbortController();
    this.streams.set(id.data, { controller, sink, conversationId });
    void this.runAsk(id.data, client, args.data, controller, sink);
    return ok(null);
  }

  abortStream(streamId: unknown): void {
    if (typeof streamId !== 'string') return;
    this.streams.get(streamId)?.controller.abort();
  }

  /** A renderer went away: abort every stream it owned. */
  detachSink(sink: StreamSink): void {
    for (const stream of this.streams.values()) if (stream.sink === sink) stream.controller.abort();
  }

  private async runAsk(
    streamId: string,
    client: RetailSignalClient,
    args: { question: string; history: string[]; sessionId?: string; conversationId?: string; retryTurnId?: string },
    controller: AbortController,
    sink: StreamSink,
  ): Promise<void> {
    let pending: AskEvent[] = [];
    let pendingSince: number | null = null;
    let seq = 0;
    let flushTimer: NodeJS.Timeout | null = null;
    let open = true;
    const flush = (): void => {
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      if (pending.length === 0 || !open) return;
      sink({ streamId, kind: 'events', events: pending, seq: seq++, ...(pendingSince !== null ? { receivedAt: pendingSince } : {}) });
      pending = [];
      pendingSince = null;
    };
    let lastFlushAt = 0;
    const windowMs = this.deps.coalesceMs ?? 4;
    const enqueue = (event: AskEvent): void => {
      pendingSince ??= performance.timeOrigin + performance.now();
      const last = pending[pending.length - 1];
      // Consecutive text deltas become one: one message per ~frame, not per token.
      if (event.type === 'text' && last?.type === 'text') pending[pending.length - 1] = { type: 'text', text: last.text + event.text };
      else pending.push(event);
      if (flushTimer) return;
      // Leading edge: after a quiet spell, send at once; within a busy window, wait for its end.
      const sinceLast = performance.now() - lastFlushAt;
      if (sinceLast >= windowMs) {
        lastFlushAt = performance.now();
        flushTimer = setTimeout(flush, 0);
      } else {
        flushTimer = setTimeout(() => {
          lastFlushAt = performance.now();
          flush();
        }, windowMs - sinceLast);
      }
    };

    // With a conversation, main keeps the turn: history and session come from it, and every
    // event is applied to the stored answer, so nothing is lost if the renderer goes away.
    const conversation = args.conversationId ? this.deps.conversations.get(args.conversationId) : undefined;
    const turn = conversation ? await this.deps.conversations.beginTurn(conversation.id, args.question, args.retryTurnId) : undefined;
    const history = conversation && turn ? conversation.turns.filter((t) => t.id !== turn.id && t.askedAt <= turn.askedAt).map((t) => t.question).slice(-49) : args.history;
    const sessionId = conversation?.sessionId ?? args.sessionId;
    let lastSave = Date.now();
    const persist = async (force: boolean): Promise<void> => {
      if (!conversation) return;
      if (!force && Date.now() - lastSave < 1_000) return;
      lastSave = Date.now();
      this.deps.conversations.touch(conversation);
      await this.deps.conversations.save(conversation).catch((error: unknown) => log.error('conversation save failed', error));
    };
    const details: Array<Promise<void>> = [];
    const onEvent = (event: AskEvent): void => {
      if (turn && conversation) {
        turn.answer = applyAskEvent(turn.answer, event);
        if (event.type === 'meta') {
          conversation.sessionId = event.sessionId ?? conversation.sessionId;
          conversation.sessionSlug = event.sessionSlug ?? conversation.sessionSlug;
        }
        if (event.type === 'citation') details.push(this.snapshotCitation(client, event.citation.id, turn, enqueue));
        void persist(false);
      }
      enqueue(event);
    };

    try {
      if (conversation && turn) enqueue({ type: 'turn', conversationId: conversation.id, turnId: turn.id });
      const messages = [...history, args.question].map((content) => ({ role: 'user' as const, content }));
      const result = await client.askStream(
        { messages, ...(sessionId ? { session_id: sessionId } : {}) },
        { signal: controller.signal, onOpen: () => sink({ streamId, kind: 'open' }), onEvent },
      );
      // Citation snapshots finish (briefly) before the stream is declared done.
      await Promise.race([Promise.allSettled(details), new Promise((resolve) => setTimeout(resolve, 3_000))]);
      flush();
      if (result.ok) {
        if (turn) turn.answer = { ...turn.answer, status: 'done', error: null };
        sink({ streamId, kind: 'done' });
      } else {
        const { incomplete, ...error } = result.error;
        if (turn) {
          const cancelled = error.code === 'aborted';
          turn.answer = { ...turn.answer, status: cancelled ? 'cancelled' : turn.answer.text ? 'incomplete' : 'failed', error: cancelled ? null : error };
        }
        sink({ streamId, kind: 'error', error, incomplete });
        if (error.code === 'network' && this.status.mode === 'local' && !this.deps.localService?.running) {
          this.setStatus({ state: 'unreachable', detail: 'The local service is not running.' });
        }
      }
    } finally {
      open = false;
      if (flushTimer) clearTimeout(flushTimer);
      this.streams.delete(streamId);
      await persist(true);
    }
  }

  /**
   * Snapshots a cited signal with its source's health at the moment of citing, so the answer
   * can show "health when cited" later and read completely offline. Services without the
   * signal-lookup extension simply leave the citation as the stream described it.
   */
  private async snapshotCitation(client: RetailSignalClient, id: string, turn: ConversationTurn, enqueue: (event: AskEvent) => void): Promise<void> {
    const result = await client.getSignal(id);
    if (!result.ok) return;
    const { signal, source } = result.value;
    const detail = {
      type: signal.type,
      body: signal.body,
      entities: signal.entities,
      metrics: signal.metrics,
      sourceKind: source.kind ?? null,
      healthWhenCited: source.health,
      itemsWhenCited: source.items_24h,
      citedAt: new Date().toISOString(),
    };
    const event: AskEvent = { type: 'citation_detail', id, detail };
    turn.answer = applyAskEvent(turn.answer, event);
    enqueue(event);
  }

  private async applyService(service: ServiceSetting): Promise<void> {
    this.client = null;
    const previousMode = this.status.mode;
    const previousUrl = this.status.baseUrl;
    if (service.mode === 'remote') {
      await this.deps.localService?.stop();
      this.setStatus({ mode: 'remote', baseUrl: service.baseUrl, synthetic: false, state: 'ready', detail: undefined, rateLimitRemaining: null, retryAt: null });
      this.client = this.makeClient(service.baseUrl);
      if (previousMode !== 'remote' || previousUrl !== service.baseUrl) this.health?.reset();
      return;
    }
    if (!this.deps.localService) {
      this.setStatus({ mode: 'local', baseUrl: null, synthetic: true, state: 'error', detail: 'This host cannot run the local service.' });
      return;
    }
    this.setStatus({ mode: 'local', baseUrl: null, synthetic: true, state: 'starting', detail: 'Starting the local service…', rateLimitRemaining: null, retryAt: null });
    try {
      const url = await this.deps.localService.start();
      this.client = this.makeClient(url);
      this.setStatus({ baseUrl: url, state: 'ready', detail: undefined });
      // Same local service, new port after a restart: the history carries on.
      if (previousMode !== 'local') this.health?.reset();
    } catch (error) {
      this.setStatus({ state: 'error', detail: error instanceof Error ? error.message : 'The local service could not start.' });
    }
  }

  /**
   * Called by the supervisor when the local service exits on its own: say so, then restart it
   * (at most 3 times a minute, so a service that cannot run does not spin).
   */
  localServiceExited(detail: string): void {
    if (this.status.mode !== 'local' || this.disposed) return;
    const now = Date.now();
    this.restarts = this.restarts.filter((at) => now - at < 60_000);
    if (this.restarts.length >= 3) {
      this.setStatus({ state: 'unreachable', detail: `${detail} It stopped 3 times in a minute; switch to it again in Settings to retry.` });
      return;
    }
    this.restarts.push(now);
    this.client = null;
    this.setStatus({ state: 'unreachable', detail: `${detail} Restarting it…` });
    setTimeout(() => {
      if (this.status.mode === 'local' && !this.disposed) void this.applyService({ mode: 'local' });
    }, 500);
  }

  private makeClient(baseUrl: string): RetailSignalClient {
    const client: RetailSignalClient = new RetailSignalClient({
      baseUrl,
      fetch: this.deps.fetch,
      stallTimeoutMs: this.deps.stallTimeoutMs,
      credential: () => this.deps.credentials.credential(),
      // A late answer from a replaced client (the service restarted, or the user switched
      // services) says nothing about the current one: it must not mark a restarting service ready.
      onRateLimit: (observation) => {
        if (this.client === client) this.observeRateLimit(observation);
      },
    });
    return client;
  }

  private observeRateLimit({ remaining, retryAfterS }: RateLimitObservation): void {
    this.setStatus({
      rateLimitRemaining: remaining ?? this.status.rateLimitRemaining,
      retryAt: retryAfterS !== null ? Date.now() + retryAfterS * 1000 : remaining !== null && remaining > 0 ? null : this.status.retryAt,
      ...(this.status.state === 'unreachable' ? { state: 'ready' as const, detail: undefined } : {}),
    });
  }

  private setStatus(patch: Partial<ServiceStatus>): void {
    this.status = { ...this.status, ...patch };
    this.push('service.status', this.status);
  }

  private push<E extends PushEventName>(event: E, payload: PushEvents[E]): void {
    for (const listener of this.pushListeners) listener(event, payload);
  }
}
