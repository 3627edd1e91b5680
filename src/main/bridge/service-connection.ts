/**
 * The connection to the Retail Signal service in use: which one (local or remote), its client,
 * its status as the status bar shows it, restarts of the local service after a crash, and the
 * rate-limit figures every response reports.
 */
import { fail, ok, type IndexProgress, type Result, type ServiceSetting, type ServiceStatus } from '../../shared/bridge-contract';
import { RetailSignalClient, type RateLimitObservation } from '../services/service-client/api-client';
import type { Credential } from '../services/service-client/api-client';
import type { CredentialStore } from '../services/credentials/credential-store';
import type { LocalServiceSupervisor } from '../services/local-service/local-service-supervisor';
import type { ObservedDeprecation } from '../services/service-client/service-notices';

export interface ServiceConnectionDeps {
  /** The setting at start-up: the status starts from it. */
  initial: ServiceSetting;
  credentials: CredentialStore;
  /** Starts the embedded local service; null where the host runs remote-only. */
  localService: LocalServiceSupervisor | null;
  /** The IANA zone the app shows dates in (Settings › Display): asks and reports send it as `time_zone`. */
  timeZone?: () => string;
  onStatus: (status: ServiceStatus) => void;
  /** Origins besides the service's that report and status URLs may name (Settings). */
  trustedHosts?: () => readonly string[];
  /** The service refused the credential on a surface open to anonymous callers (#14). */
  onCredentialRejected?: () => void;
  /** A response of the service in use announced a deprecation (Settings › Service notices). */
  onDeprecation?: (observed: ObservedDeprecation) => void;
  fetch?: typeof fetch;
  stallTimeoutMs?: number;
}

/** A first look at a service, and each retry, waits this long for an answer. */
const PROBE_TIMEOUT_MS = 8_000;
/** While unreachable, tries again after 5 s, doubling, at most every minute. */
const REPROBE_S = { first: 5, max: 60 } as const;

export class ServiceConnection {
  private probeTimer: NodeJS.Timeout | null = null;
  private reachFailures = 0;
  private current: ServiceStatus;
  private activeClient: RetailSignalClient | null = null;
  private restarts: number[] = [];
  private disposed = false;
  private readonly serviceChangedListeners = new Set<() => void>();
  private rejection: { at: string; message: string } | null = null;

  constructor(private readonly deps: ServiceConnectionDeps) {
    const service = deps.initial;
    this.current = {
      mode: service.mode,
      baseUrl: service.mode === 'remote' ? service.baseUrl : null,
      state: 'starting',
      synthetic: service.mode === 'local',
      rateLimitRemaining: null,
      retryAt: null,
      lastSuccessAt: null,
      nextAttemptAt: null,
    };
  }

  get status(): ServiceStatus {
    return this.current;
  }

  /** Which service is in use, as notices are kept: `local` (whatever its port), else the base URL. */
  get serviceKey(): string {
    return this.current.mode === 'local' ? 'local' : (this.current.baseUrl ?? 'remote');
  }

  /** The service in use as the user knows it. */
  get serviceLabel(): string {
    return this.current.mode === 'local' ? 'the local service' : `the service at ${this.current.baseUrl ? new URL(this.current.baseUrl).origin : 'its address'}`;
  }

  /**
   * The caller the app presents (issue 47): the credential the analyst set, else, on the
   * embedded service, the owner token its supervisor obtained at start. Null: anonymous.
   * SECURITY: for main's clients only; never crosses the bridge.
   */
  async credential(): Promise<Credential | null> {
    const own = await this.deps.credentials.credential();
    if (own) return own;
    return this.ownerCredential();
  }

  /** The owner token as a credential while the embedded service is the one in use. */
  private ownerCredential(): Credential | null {
    if (this.current.mode !== 'local') return null;
    const token = this.deps.localService?.ownerToken ?? null;
    return token ? { secret: token, presentAs: 'bearer' } : null;
  }

  /** Whether calls go as the owner of the embedded service (no credential of the analyst's own). */
  async actsAsOwner(): Promise<boolean> {
    return !(await this.deps.credentials.credential()) && this.ownerCredential() !== null;
  }

  /** The client of the service in use; null while it starts or when it is unreachable. */
  get client(): RetailSignalClient | null {
    return this.activeClient;
  }

  /** The client, or the error a bridge method returns while there is none. */
  requireClient(): Result<RetailSignalClient> {
    return this.activeClient ? ok(this.activeClient) : fail({ code: 'unavailable', message: this.current.detail ?? 'The service is not ready yet.' });
  }

  /**
   * Set when the service answered 401 to the credential on ask or health: those surfaces then
   * go anonymous, and the user is asked to renew it. Cleared by a new credential or service.
   */
  get credentialRejection(): { at: string; message: string } | null {
    return this.rejection;
  }

  clearCredentialRejection(): void {
    this.rejection = null;
  }

  /** Called when the app switches to another service (the health history starts again). */
  onServiceChanged(listener: () => void): void {
    this.serviceChangedListeners.add(listener);
  }

  async apply(service: ServiceSetting): Promise<void> {
    this.activeClient = null;
    // Another service may well accept the credential this one refused.
    this.rejection = null;
    const previousMode = this.current.mode;
    const previousUrl = this.current.baseUrl;
    this.stopProbing();
    if (service.mode === 'remote') {
      await this.deps.localService?.stop();
      // Not "ready" until the service has answered (issue #16): the probe below decides.
      this.setStatus({ mode: 'remote', baseUrl: service.baseUrl, synthetic: false, state: 'starting', detail: `Connecting to ${new URL(service.baseUrl).origin}…`, rateLimitRemaining: null, retryAt: null, lastSuccessAt: null, nextAttemptAt: null, indexing: undefined });
      this.activeClient = this.makeClient(service.baseUrl);
      if (previousMode !== 'remote' || previousUrl !== service.baseUrl) this.serviceChanged();
      await this.probe();
      return;
    }
    if (!this.deps.localService) {
      this.setStatus({ mode: 'local', baseUrl: null, synthetic: true, state: 'error', detail: 'This host cannot run the local service.' });
      return;
    }
    this.setStatus({ mode: 'local', baseUrl: null, synthetic: true, state: 'starting', detail: 'Starting the local service…', rateLimitRemaining: null, retryAt: null, indexing: undefined });
    try {
      const url = await this.deps.localService.start();
      this.activeClient = this.makeClient(url);
      this.setStatus({ baseUrl: url, state: 'ready', detail: undefined, lastSuccessAt: new Date().toISOString(), nextAttemptAt: null });
      // Same local service, new port after a restart: the history carries on.
      if (previousMode !== 'local') this.serviceChanged();
    } catch (error) {
      this.setStatus({ state: 'error', detail: error instanceof Error ? error.message : 'The local service could not start.' });
    }
  }

  /**
   * Called by the supervisor when the local service exits on its own: say so, then restart it
   * (at most 3 times a minute, so a service that cannot run does not spin).
   */
  localServiceExited(detail: string): void {
    if (this.current.mode !== 'local' || this.disposed) return;
    const now = Date.now();
    this.restarts = this.restarts.filter((at) => now - at < 60_000);
    if (this.restarts.length >= 3) {
      this.setStatus({ state: 'unreachable', detail: `${detail} It stopped 3 times in a minute; switch to it again in Settings to retry.` });
      return;
    }
    this.restarts.push(now);
    this.activeClient = null;
    this.setStatus({ state: 'unreachable', detail: `${detail} Restarting it…` });
    setTimeout(() => {
      if (this.current.mode === 'local' && !this.disposed) void this.apply({ mode: 'local' });
    }, 500);
  }

  /** While the local service starts: the status bar says what it is doing and for how long (start-progress.ts). */
  localServiceStarting(detail: string): void {
    if (this.current.mode !== 'local' || this.current.state !== 'starting' || this.disposed || this.current.detail === detail) return;
    this.setStatus({ detail });
  }

  /**
   * While the local service answers but still loads its index (the status bar says how far);
   * null once it holds every signal or has stopped.
   */
  localServiceIndexing(progress: IndexProgress | null): void {
    if (this.current.mode !== 'local' || this.disposed) return;
    if (!progress && !this.current.indexing) return;
    this.setStatus({ indexing: progress ?? undefined });
  }

  /**
   * Starts the embedded service again so it picks up changed settings (Settings › Answers), when
   * it is the service in use. Conversations live in main and the service's sessions in its
   * database, so both carry on; an answer streaming at that moment ends incomplete, with retry.
   */
  async restartLocalService(detail = 'Restarting the local service with the new answer settings…'): Promise<void> {
    if (this.current.mode !== 'local' || !this.deps.localService || this.disposed) return;
    this.activeClient = null;
    this.setStatus({ state: 'starting', detail });
    await this.deps.localService.stop();
    this.restarts = [];
    await this.apply({ mode: 'local' });
  }

  /** A stream failed with a network error: if the local service is gone, say so now. */
  noteNetworkFailure(): void {
    if (this.current.mode === 'local' && !this.deps.localService?.running) {
      this.setStatus({ state: 'unreachable', detail: 'The local service is not running.' });
    }
  }

  /**
   * The user's "Retry" or "Test connection": a local service that is not running is started
   * again; any other is asked once more. Resolves with the status that results.
   */
  async retry(): Promise<ServiceStatus> {
    if (this.current.mode === 'local' && !this.activeClient) {
      this.restarts = [];
      await this.apply({ mode: 'local' });
      return this.current;
    }
    this.stopProbing();
    if (this.current.state !== 'ready') this.setStatus({ state: 'starting', detail: `Trying ${this.current.baseUrl ?? 'the service'} again…`, nextAttemptAt: null });
    await this.probe();
    return this.current;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.stopProbing();
    await this.deps.localService?.stop();
  }

  private async probe(): Promise<void> {
    // Any answer counts, even an error status: onReach below turns it into the status.
    await this.activeClient?.probe(PROBE_TIMEOUT_MS);
  }

  private stopProbing(): void {
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    this.reachFailures = 0;
  }

  private observeReach(reach: { reached: true } | { reached: false; message: string; timedOut: boolean }): void {
    if (this.disposed) return;
    if (reach.reached) {
      const wasDown = this.current.state !== 'ready';
      this.stopProbing();
      // Pushed when the state changes, or at most every 10 s for the "last success" time.
      const last = this.current.lastSuccessAt ? Date.parse(this.current.lastSuccessAt) : 0;
      if (wasDown || Date.now() - last > 10_000) this.setStatus({ state: 'ready', detail: undefined, lastSuccessAt: new Date().toISOString(), nextAttemptAt: null });
      return;
    }
    // A local service that refuses connections has exited: the supervisor reports and restarts
    // it (localServiceExited). Only one that hangs (a timeout) is marked here.
    if (this.current.mode === 'local' && (!reach.timedOut || !this.deps.localService?.running)) return;
    this.reachFailures += 1;
    const waitS = Math.min(REPROBE_S.max, REPROBE_S.first * 2 ** (this.reachFailures - 1));
    this.setStatus({ state: 'unreachable', detail: reach.message, nextAttemptAt: new Date(Date.now() + waitS * 1000).toISOString() });
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      void this.probe();
    }, waitS * 1000);
    this.probeTimer.unref?.();
  }

  private serviceChanged(): void {
    for (const listener of this.serviceChangedListeners) listener();
  }

  private makeClient(baseUrl: string): RetailSignalClient {
    const client: RetailSignalClient = new RetailSignalClient({
      baseUrl,
      fetch: this.deps.fetch,
      stallTimeoutMs: this.deps.stallTimeoutMs,
      credential: () => this.credential(),
      trustedOrigins: () => this.deps.trustedHosts?.() ?? [],
      ...(this.deps.timeZone ? { timeZone: this.deps.timeZone } : {}),
      isCredentialRejected: () => this.rejection !== null,
      onCredentialRejected: ({ message }) => {
        if (this.activeClient !== client || this.rejection) return;
        this.rejection = {
          at: new Date().toISOString(),
          message: `The service refused your credential as invalid or expired ("${message}"). Asking and source health carry on anonymously; research needs a valid one, so renew the credential.`,
        };
        this.deps.onCredentialRejected?.();
      },
      // A late answer from a replaced client (the service restarted, or the user switched
      // services) says nothing about the current one: it must not mark a restarting service ready.
      onRateLimit: (observation) => {
        if (this.activeClient === client) this.observeRateLimit(observation);
      },
      onReach: (reach) => {
        if (this.activeClient === client) this.observeReach(reach);
      },
      onIndexState: (state) => {
        if (this.activeClient === client) this.observeIndexState(state);
      },
      onDeprecation: (observed) => {
        if (this.activeClient === client) this.deps.onDeprecation?.(observed);
      },
    });
    return client;
  }

  /**
   * A remote service says on every response whether its index is whole (`x-index-state`); the
   * local one's own lines say how far (localServiceIndexing), so its header is not read here.
   */
  private observeIndexState(state: 'warming' | 'ready'): void {
    if (this.current.mode !== 'remote') return;
    if (state === 'warming' && !this.current.indexing) this.setStatus({ indexing: { held: null, total: null } });
    else if (state === 'ready' && this.current.indexing) this.setStatus({ indexing: undefined });
  }

  private observeRateLimit({ remaining, retryAfterS }: RateLimitObservation): void {
    this.setStatus({
      rateLimitRemaining: remaining ?? this.current.rateLimitRemaining,
      retryAt: retryAfterS !== null ? Date.now() + retryAfterS * 1000 : remaining !== null && remaining > 0 ? null : this.current.retryAt,
      ...(this.current.state === 'unreachable' ? { state: 'ready' as const, detail: undefined } : {}),
    });
  }

  private setStatus(patch: Partial<ServiceStatus>): void {
    this.current = { ...this.current, ...patch };
    this.deps.onStatus(this.current);
  }
}
