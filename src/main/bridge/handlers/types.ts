/**
 * How a bridge method is handled in main. Each domain file exports a `HandlerMap` for the
 * methods named after it (`MethodsIn<'library'>` = every `library.*` method of the contract),
 * so a method added to the contract without a handler, or a handler with the wrong argument or
 * result type, is a compile error.
 */
import type { InvokeMethod, InvokeParsedArgs, InvokeResults, Result } from '../../../shared/bridge-contract';
import type { ConversationStore } from '../../services/conversations/conversation-store';
import type { CredentialStore } from '../../services/credentials/credential-store';
import type { DataNotices } from '../../services/data-folder/data-notices';
import type { HealthMonitor } from '../../services/health/health-monitor';
import type { LibraryHub } from '../../services/library/library-hub';
import type { ResearchService } from '../../services/research/research-service';
import type { ScheduledRuns } from '../../services/research/scheduled-runs';
import type { ServiceNoticeStore } from '../../services/service-client/service-notices';
import type { SettingsStore } from '../../services/settings/settings-store';
import type { ModelKeyStore } from '../../services/credentials/model-key-store';
import type { SourceAdmin } from '../../services/sources/source-admin';
import type { HostCapabilities } from '../../desktop/host-capabilities';
import type { Watchlist } from '../../services/watchlist/watchlist';
import type { AskStreamRunner } from '../ask-stream';
import type { Push } from '../push-hub';
import type { ServiceConnection } from '../service-connection';

export type Handler<M extends InvokeMethod> = (args: InvokeParsedArgs<M>) => Result<InvokeResults[M]> | Promise<Result<InvokeResults[M]>>;

export type HandlerMap<M extends InvokeMethod = InvokeMethod> = { [K in M]: Handler<K> };

/** The contract's methods whose name starts with `<domain>.`. */
export type MethodsIn<Domain extends string> = Extract<InvokeMethod, `${Domain}.${string}`>;

/** What handlers work with: the main-process services, constructed in compose-services.ts. */
export interface HandlerContext {
  settings: SettingsStore;
  credentials: CredentialStore;
  /** The model API key of Settings › Answers (issue 28). */
  modelKeys: ModelKeyStore;
  conversations: ConversationStore;
  library: LibraryHub;
  research: ResearchService;
  /** The service's research schedules: checked for runs the app does not hold yet, and managed (issue 46). */
  scheduledRuns: Pick<ScheduledRuns, 'check' | 'list' | 'create' | 'runNow' | 'update' | 'remove'>;
  health: HealthMonitor;
  watchlist: Watchlist;
  connection: ServiceConnection;
  streams: AskStreamRunner;
  push: Push;
  /** Files set aside, an unwritable data folder: told to the user. */
  notices: DataNotices;
  /** Deprecations the services in use announced (Settings › Service notices). */
  serviceNotices: ServiceNoticeStore;
  /** What the host can do: Electron-only abilities are null in the browser host (host-capabilities.ts). */
  capabilities: HostCapabilities;
  /** The sources the service in use fetches, for its administrator (Sources view). */
  sources: SourceAdmin;
}
