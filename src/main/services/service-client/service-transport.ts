// The one request path to the service: deadline, origin check, redirect refusal, retry of safe GETs, credential degradation, rate-limit and deprecation reports (split from api-client.ts).
import type { BridgeError, CredentialPresentation, Result } from '../../../shared/bridge-contract';
import { fail, ok } from '../../../shared/bridge-contract';
import { readDeprecation } from './deprecation-headers';
import { errorFromResponse, parseRetryAfter, refuseRedirect } from './service-errors';
import type { ObservedDeprecation } from './service-notices';

/** Deadline of an ordinary request. */
export const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_RETRIES = 3;
const RETRY_BASE_MS = 250;
const RETRY_CAP_MS = 4_000;

export interface Credential {
  secret: string;
  presentAs: CredentialPresentation;
}

export interface RateLimitObservation {
  remaining: number | null;
  retryAfterS: number | null;
}

export interface ApiClientOptions {
  baseUrl: string;
  credential?: () => Promise<Credential | null>;
  fetch?: typeof fetch;
  stallTimeoutMs?: number;
  /** Called with every response's rate-limit headers, for the status bar. */
  onRateLimit?: (observation: RateLimitObservation) => void;
  /** Every response's `x-index-state` (`warming`: the service answers before its index is whole; `ready`). */
  onIndexState?: (state: 'warming' | 'ready') => void;
  /** Every attempt's reach: the service answered (any HTTP status), or the network failed and why. */
  onReach?: (reach: { reached: true } | { reached: false; message: string; timedOut: boolean }) => void;
  /**
   * Origins other than the base URL's that the user allow-listed in Settings: report and status
   * URLs may point there (and get the credential). Every other origin is refused.
   */
  trustedOrigins?: () => readonly string[];
  /**
   * The zone the app shows dates in: sent as `time_zone` (an extension) with each ask and research
   * request, so the dates the service writes are the ones the app shows (decision 0036).
   */
  timeZone?: () => string;
  /**
   * A surface open to anonymous callers (ask, health) answered 401 to the credential: the
   * caller flags it as invalid or expired; the request is repeated once without it.
   */
  onCredentialRejected?: (detail: { status: number; message: string }) => void;
  /** True once the credential was rejected: anonymous surfaces then go without it. */
  isCredentialRejected?: () => boolean;
  /** A response said its operation is deprecated (`Deprecation` / `Sunset`, any service). */
  onDeprecation?: (observed: ObservedDeprecation) => void;
  now?: () => number;
}

/** One HTTP request to the service: what `request` (with retries) and `requestOnce` take. */
export type RequestArgs = [
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body: unknown,
  accept: string,
  signal?: AbortSignal,
  options?: RequestOptions,
];

export interface RequestOptions {
  timeoutMs?: number;
  /** A stream's deadline covers the headers only. */
  headersOnly?: boolean;
  /** The surface allows anonymous callers: a 401 to the credential is repeated without it. */
  anonymousOk?: boolean;
  /** Send no credential (set for the repeat of a rejected one). */
  withoutCredential?: boolean;
  headers?: Record<string, string>;
  /** Statuses handed back as responses rather than errors (304 for the health ETag). */
  passStatuses?: number[];
  /**
   * The route counts another bucket (follows, research, discover…): its `x-rate-limit-remaining`
   * is not the ask quota the status bar shows, so it is not reported there.
   */
  otherBucket?: boolean;
  /** GET retries on 500/503/network; 0 for callers that pace themselves (health monitor). */
  retries?: number;
}

/** What a call to one row of the endpoint table takes: its path parameters, query, body (typed by the row) and options. */
/**
 * SECURITY: every request to the service goes through here, so the rules (credential only to the
 * service and allow-listed origins, no redirects, bounded waits) live in one place to review.
 */
export class ServiceTransport {
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /**
   * GETs are safe to repeat: a 500, a 503 or a dropped connection is retried up to
   * MAX_RETRIES times with capped, jittered exponential backoff (a 503's Retry-After is
   * honoured when it is short). POSTs (ask, research, proposals) are never repeated, and a 429
   * is never retried automatically: the user sees the countdown instead.
   */
  async request(...args: RequestArgs): Promise<Result<Response>> {
    const [method, , , , signal, options = {}] = args;
    let attempt = 0;
    for (;;) {
      const result = await this.requestDegrading(...args);
      const retryable = method === 'GET' && !result.ok && (result.error.code === 'network' || result.error.status === 500 || result.error.status === 503);
      if (!retryable || attempt >= (options.retries ?? MAX_RETRIES) || signal?.aborted) return result;
      const backoff = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
      const hinted = !result.ok && result.error.retryAfterS !== undefined ? result.error.retryAfterS * 1000 : 0;
      const wait = hinted > 0 && hinted <= RETRY_CAP_MS ? hinted : backoff / 2 + Math.random() * (backoff / 2);
      attempt += 1;
      // An abort (the caller's stop at quit) ends the wait at once, not after up to 4 s.
      await abortableWait(wait, signal);
    }
  }

  /**
   * Issue #14: on a surface open to anonymous callers, a 401 to the credential flags it as
   * invalid or expired and the request is repeated once without it; once flagged, those
   * surfaces go anonymous until the user replaces the credential.
   */
  private async requestDegrading(...args: RequestArgs): Promise<Result<Response>> {
    const [method, path, body, accept, signal, options = {}] = args;
    if (!options.anonymousOk) return this.requestOnce(...args);
    const rejected = this.options.isCredentialRejected?.() === true;
    const first = await this.requestOnce(method, path, body, accept, signal, { ...options, withoutCredential: rejected });
    if (rejected || first.ok || first.error.status !== 401 || !(await this.options.credential?.())) return first;
    this.options.onCredentialRejected?.({ status: 401, message: first.error.message });
    return this.requestOnce(method, path, body, accept, signal, { ...options, withoutCredential: true });
  }

  private async requestOnce(...[method, path, body, accept, signal, options = {}]: RequestArgs): Promise<Result<Response>> {
    const target = new URL(path, this.options.baseUrl);
    // SECURITY: the credential goes to the configured service and to origins the user
    // allow-listed in Settings only. A status_url or report_url elsewhere is not followed.
    if (target.origin !== new URL(this.options.baseUrl).origin && !(this.options.trustedOrigins?.() ?? []).includes(target.origin)) {
      return fail({ code: 'bad_response', message: `The service pointed at another host (${target.origin}); the app did not follow it. To allow it, add ${target.origin} to the trusted hosts in Settings.` });
    }
    const headers: Record<string, string> = { accept, ...(options.headers ?? {}), ...(options.withoutCredential ? {} : await this.authHeaders()) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // Every request has a deadline: a service that hangs must not hang the app.
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (signal?.aborted) return fail({ code: 'aborted', message: 'Cancelled.' });
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // Named, so a body still being read when the deadline passes reads as a timeout.
      controller.abort(new DOMException(`The service did not answer within ${Math.round(timeoutMs / 1000)} s.`, 'TimeoutError'));
    }, timeoutMs);
    timer.unref?.();
    // The deadline or the caller's signal, whichever comes first; also ends reading the body.
    // AbortSignal.any, not a listener on the caller's signal: a service's stop signal lives as
    // long as the service and is passed to every request, and a listener per request left on it
    // would pile up (nothing removes it once the body has been read elsewhere).
    const aborted = signal ? AbortSignal.any([controller.signal, signal]) : controller.signal;
    let response: Response;
    try {
      // SECURITY: never follow a redirect: fetch would carry X-API-Key to whatever host it names.
      response = await this.fetchImpl(target, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: aborted, redirect: 'manual' });
    } catch (error) {
      clearTimeout(timer);
      if (signal?.aborted) return fail({ code: 'aborted', message: 'Cancelled.' });
      const failure: BridgeError = timedOut
        ? { code: 'timeout', message: `The service did not answer within ${Math.round(timeoutMs / 1000)} s.` }
        : { code: 'network', message: `Could not reach the service at ${new URL(this.options.baseUrl).origin}${describeCause(error)}.` };
      this.options.onReach?.({ reached: false, message: failure.message, timedOut });
      return fail(failure);
    }
    this.options.onReach?.({ reached: true });
    // A stream's body is watched by the stall timer instead; a user's abort still applies.
    if (options.headersOnly) clearTimeout(timer);
    const redirected = refuseRedirect(response);
    if (redirected) {
      clearTimeout(timer);
      return fail(redirected);
    }
    if (!options.otherBucket) this.reportRateLimit(response);
    const indexState = response.headers.get('x-index-state')?.trim();
    if (indexState === 'warming' || indexState === 'ready') this.options.onIndexState?.(indexState);
    this.reportDeprecation(method, target, response);
    if (response.ok || options.passStatuses?.includes(response.status)) return ok(response);
    return fail(await errorFromResponse(response, this.options.now?.() ?? Date.now()));
  }

  /** SECURITY: the secret goes into this one header and nowhere else (no logs, no errors). */
  private async authHeaders(): Promise<Record<string, string>> {
    const credential = await this.options.credential?.();
    if (!credential) return {};
    return credential.presentAs === 'x-api-key' ? { 'x-api-key': credential.secret } : { authorization: `Bearer ${credential.secret}` };
  }

  private reportRateLimit(response: Response): void {
    const raw = response.headers.get('x-rate-limit-remaining');
    const remaining = raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw) : null;
    const retryAfterS = response.status === 429 ? parseRetryAfter(response.headers.get('retry-after'), this.options.now?.() ?? Date.now()) : null;
    this.options.onRateLimit?.({ remaining, retryAfterS });
  }

  private reportDeprecation(method: string, target: URL, response: Response): void {
    if (!this.options.onDeprecation) return;
    const read = readDeprecation(response.headers, response.url || target.href);
    if (!read) return;
    // The path as the interface names it: relative to the base URL's own path.
    const basePath = new URL(this.options.baseUrl).pathname.replace(/\/$/, '');
    const path = basePath && target.pathname.startsWith(`${basePath}/`) ? target.pathname.slice(basePath.length) : target.pathname;
    this.options.onDeprecation({ ...read, method, path });
  }
}

/** Waits `ms`, or less if `signal` aborts meanwhile (no timer is left behind). */
function abortableWait(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function describeCause(error: unknown): string {
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return cause ? ` (${cause})` : '';
}
