/**
 * The bridge host: implements ClarityBridge on top of the main-process services. It is
 * transport-agnostic; the Electron IPC transport and the browser host's WebSocket transport
 * both call into it. Every payload is validated here (zod) before any handler sees it; the
 * handlers live in ./handlers (one file per domain), the ask stream in ./ask-stream.ts and
 * the service connection in ./service-connection.ts. compose-services.ts builds it.
 */
import type { z } from 'zod';
import { BridgeMethods, fail, isInvokeMethod, type InvokeMethod, type InvokeParsedArgs, type IndexProgress, type InvokeResults, type PushEventName, type PushEvents, type Result, type ServiceStatus } from '../../shared/bridge-contract';
import type { MethodSpec } from '../../shared/define-method';
import type { ConversationStore } from '../services/conversations/conversation-store';
import type { DataNotices } from '../services/data-folder/data-notices';
import type { LibraryHub } from '../services/library/library-hub';
import type { ServiceNoticeStore } from '../services/service-client/service-notices';
import type { HealthMonitor } from '../services/health/health-monitor';
import type { Watchlist } from '../services/watchlist/watchlist';
import type { ResearchService } from '../services/research/research-service';
import type { ScheduledRuns } from '../services/research/scheduled-runs';
import type { SettingsStore } from '../services/settings/settings-store';
import type { AskStreamRunner, StreamSink } from './ask-stream';
import type { HandlerMap } from './handlers';
import type { PushHub, PushListener } from './push-hub';
import type { ServiceConnection } from './service-connection';
import { loggerFor } from '../logging/logger';

const log = loggerFor('bridge');

export type { StreamSink } from './ask-stream';
export type { PushListener } from './push-hub';

/**
 * The contract seen through a mapped type: indexed with a generic method name it keeps that
 * method's argument type, so a parsed argument reaches its handler without a cast.
 */
type MethodTable = { [M in InvokeMethod]: MethodSpec<z.ZodType<InvokeParsedArgs<M>>, InvokeResults[M]> };
const METHODS: MethodTable = BridgeMethods;

export interface BridgeHostParts {
  settings: SettingsStore;
  handlers: HandlerMap;
  hub: PushHub;
  connection: ServiceConnection;
  streams: AskStreamRunner;
  research: ResearchService;
  health: HealthMonitor;
  notices: DataNotices;
  watchlist?: Watchlist;
  /** Closed by dispose: its watchers and timers stop and its index cache is written. */
  library?: LibraryHub;
  /** Their pending writes are awaited by dispose. */
  serviceNotices?: ServiceNoticeStore;
  conversations?: ConversationStore;
  /** Stopped by dispose: no check of the service's research schedules after quit. */
  scheduledRuns?: ScheduledRuns;
}

export class BridgeHost {
  constructor(private readonly parts: BridgeHostParts) {}

  /** Connects to the configured service, starting the local one if that is the setting. */
  async start(): Promise<void> {
    await this.parts.connection.apply(this.parts.settings.get().service);
  }

  async dispose(): Promise<void> {
    const { connection, research, health, streams, watchlist, library, serviceNotices, conversations, scheduledRuns } = this.parts;
    scheduledRuns?.stop();
    // Research, health, the watchlist, the libraries and the answers streaming now finish their
    // pending writes: nothing is lost at quit, and nothing is written into the data folder after
    // dispose resolves (a test's afterAll removes that folder right after; CI failed on this).
    await Promise.all([research.dispose(), health.stop(), streams.abortAll(), watchlist?.stop(), library?.close()]);
    // Last, once nothing above can add one: notices recorded and conversations saved meanwhile.
    await Promise.all([serviceNotices?.flushed(), conversations?.flushed()]);
    await connection.dispose();
  }

  onPush(listener: PushListener): () => void {
    return this.parts.hub.on(listener);
  }

  /** Sends a push event from the host itself (the desktop shell: menu commands, updates). */
  push<E extends PushEventName>(event: E, payload: PushEvents[E]): void {
    this.parts.hub.push(event, payload);
  }

  get pushListenerCount(): number {
    return this.parts.hub.listenerCount;
  }

  get activeStreamCount(): number {
    return this.parts.streams.activeCount;
  }

  /** Resolves once every answer streamed so far has ended and its conversation is saved. */
  streamsSettled(): Promise<void> {
    return this.parts.streams.settled();
  }

  serviceStatus(): ServiceStatus {
    return this.parts.connection.status;
  }

  async invoke(method: string, rawArgs: unknown): Promise<Result<unknown>> {
    if (!isInvokeMethod(method)) {
      return fail({ code: 'unknown_method', message: `Unknown bridge method "${method}".` });
    }
    try {
      return await this.call(method, rawArgs);
    } catch (error) {
      log.error(`${method} failed`, error);
      // A disk that refuses writes is said plainly (and shown as a notice).
      const unwritable = this.parts.notices.writeFailure(error);
      if (unwritable) return fail(unwritable);
      // SECURITY: other internal errors cross the bridge as a generic message; details stay in main.
      return fail({ code: 'internal', message: `${method} failed unexpectedly.` });
    }
  }

  private async call<M extends InvokeMethod>(method: M, rawArgs: unknown): Promise<Result<InvokeResults[M]>> {
    const parsed = METHODS[method].args.safeParse(rawArgs);
    if (!parsed.success) {
      return fail({ code: 'invalid_argument', message: parsed.error.issues[0]?.message ?? 'Invalid argument.' });
    }
    const handler = this.parts.handlers[method];
    return handler(parsed.data);
  }

  /** Starts a stream; the caller has already subscribed its sink. */
  startStream(streamId: unknown, method: unknown, rawArgs: unknown, sink: StreamSink): Result<null> {
    return this.parts.streams.start(streamId, method, rawArgs, sink);
  }

  abortStream(streamId: unknown): void {
    this.parts.streams.abort(streamId);
  }

  /** A renderer went away: abort every stream it owned. */
  detachSink(sink: StreamSink): void {
    this.parts.streams.detachSink(sink);
  }

  /** Called by the supervisor when the local service exits on its own. */
  localServiceExited(detail: string): void {
    this.parts.connection.localServiceExited(detail);
  }

  /** Called by the supervisor once a second while the local service starts: what it is doing. */
  localServiceStarting(detail: string): void {
    this.parts.connection.localServiceStarting(detail);
  }

  /** Called by the supervisor while the listening local service loads its index; null once whole. */
  localServiceIndexing(progress: IndexProgress | null): void {
    this.parts.connection.localServiceIndexing(progress);
  }
}
