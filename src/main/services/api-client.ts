/**
 * Client of the Retail Signal service: fetch + eventsource-parser, abortable, every failure
 * a typed BridgeError. It knows nothing of Electron or the renderer (STYLE §7): the base URL,
 * the credential and fetch are given to it.
 */
import type { z } from 'zod';
import type { AskEvent, BridgeError, CredentialPresentation, Result } from '../../shared/bridge-contract';
import { fail, ok } from '../../shared/bridge-contract';
import { normalizeConfidence } from '../../shared/confidence';
import {
  AskResponse,
  ErrorBody,
  HealthSnapshot,
  Report,
  ResearchQueuedResponse,
  ResearchRun,
  ResearchV1Response,
  SessionVisibility,
  SignalLookup,
  type AskRequest,
  type Signal,
  type SourceEntry,
} from '../../shared/service-schemas';
import { interpretAskMessage, knownCode } from './ask-events';
import { readSseStream, SseStreamError } from './sse-reader';

/** Deadline of an ordinary request, and of a synchronous (v1) research run. */
export const DEFAULT_TIMEOUT_MS = 15_000;
export const RESEARCH_TIMEOUT_MS = 4 * 60_000;
const MAX_RETRIES = 3;
const RETRY_BASE_MS = 250;
const RETRY_CAP_MS = 4_000;

export type ResearchRunBody = z.infer<typeof ResearchRun>;
export type HealthSnapshotBody = z.infer<typeof HealthSnapshot>;
export type ReportBody = z.infer<typeof Report>;

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
  now?: () => number;
}

export interface AskJsonAnswer {
  content: string;
  citations: string[];
  confidence: number | null;
  sessionId: string;
  sessionSlug: string;
}

export interface AskStreamHandlers {
  signal?: AbortSignal;
  onOpen?: () => void;
  onEvent(event: AskEvent): void;
}

/** A stream failure, with whether any answer text had already arrived. */
export interface StreamFailure extends BridgeError {
  incomplete: boolean;
}

const CODE_BY_STATUS: Record<number, BridgeError['code']> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal',
  503: 'unavailable',
};

/** `Retry-After` as seconds or an HTTP date; a past date means now; garbage gives null. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (!Number.isNaN(date) && /[a-z]/i.test(trimmed)) return Math.max(0, Math.ceil((date - now) / 1000));
  return null;
}

/** One HTTP request to the service: what `request` (with retries) and `requestOnce` take. */
type RequestArgs = [
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  accept: string,
  signal?: AbortSignal,
  options?: {
    timeoutMs?: number;
    /** A stream: the deadline covers the headers only. */
    headersOnly?: boolean;
    /** Extra request headers (If-None-Match). */
    headers?: Record<string, string>;
    /** A 304 is an answer (a conditional GET), not an error. */
    notModifiedIsOk?: boolean;
  },
];

export class RetailSignalClient {
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  async askJson(request: AskRequest, signal?: AbortSignal): Promise<Result<AskJsonAnswer>> {
    const response = await this.post('/api/v1/ask', { ...request, stream: false }, 'application/json', signal);
    if (!response.ok) return response;
    const body = await readJson(response.value);
    const parsed = AskResponse.safeParse(body);
    if (!parsed.success) return fail({ code: 'bad_response', message: 'The service answered in a shape the app does not understand.' });
    return ok({
      content: parsed.data.content,
      citations: parsed.data.citations,
      confidence: normalizeConfidence(parsed.data.confidence),
      sessionId: parsed.data.session_id,
      sessionSlug: parsed.data.session_slug,
    });
  }

  /**
   * Streams an answer. Resolves ok when `message_stop` arrives; otherwise a StreamFailure
   * that says whether the answer is incomplete (some text arrived before the failure).
   */
  async askStream(request: AskRequest, handlers: AskStreamHandlers): Promise<{ ok: true } | { ok: false; error: StreamFailure }> {
    const response = await this.post('/api/v1/ask', { ...request, stream: true }, 'text/event-stream', handlers.signal);
    if (!response.ok) return { ok: false, error: { ...response.error, incomplete: false } };
    const contentType = response.value.headers.get('content-type') ?? '';
    if (!contentType.includes('text/event-stream')) {
      // Some services ignore `stream`; accept a JSON answer as one whole event.
      if (contentType.includes('application/json')) return this.acceptJsonAsStream(response.value, handlers);
      await response.value.body?.cancel().catch(() => undefined);
      return { ok: false, error: { code: 'bad_response', message: `Expected an event stream, got "${contentType || 'no content type'}".`, incomplete: false } };
    }
    handlers.onOpen?.();
    let sawText = false;
    let stopped = false;
    let streamError: BridgeError | null = null;
    try {
      await readSseStream(response.value.body!, {
        signal: handlers.signal,
        stallTimeoutMs: this.options.stallTimeoutMs,
        onMessage: (message) => {
          if (stopped || streamError) return;
          const outcome = interpretAskMessage(message);
          if (outcome.kind === 'event') {
            if (outcome.event.type === 'text') sawText = true;
            handlers.onEvent(outcome.event);
          } else if (outcome.kind === 'stop') stopped = true;
          else if (outcome.kind === 'error') streamError = outcome.error;
        },
      });
    } catch (error) {
      if (error instanceof SseStreamError) {
        const code = error.reason === 'aborted' ? 'aborted' : error.reason === 'stalled' ? 'timeout' : 'bad_response';
        return { ok: false, error: { code, message: error.message, incomplete: sawText } };
      }
      return { ok: false, error: { code: 'network', message: 'The connection to the service dropped mid-answer.', incomplete: sawText } };
    }
    if (streamError) return { ok: false, error: { ...(streamError as BridgeError), incomplete: sawText } };
    if (!stopped) {
      return { ok: false, error: { code: 'network', message: 'The answer stream ended before the service finished.', incomplete: sawText } };
    }
    return { ok: true };
  }

  /**
   * Starts research. v1 services answer `completed` after 30–90 s; a v2-style service answers
   * `queued` with a `status_url` to poll. `queue: true` asks for the v2 endpoint directly.
   */
  async startResearch(
    topic: string,
    preset: string,
    options: { queue: boolean; signal?: AbortSignal },
  ): Promise<Result<{ kind: 'completed'; reportUrl: string; citationCount: number; costUsd: number; remoteId: string | null } | { kind: 'queued'; statusUrl: string; remoteId: string | null }>> {
    const path = options.queue ? '/api/v2/research' : '/api/v1/research';
    // v1 holds the request for the whole run (30–90 s for the standard preset).
    const response = await this.request('POST', path, { topic, preset }, 'application/json', options.signal, { timeoutMs: options.queue ? DEFAULT_TIMEOUT_MS : RESEARCH_TIMEOUT_MS });
    if (!response.ok) return response;
    const body = await readJson(response.value);
    const completed = ResearchV1Response.safeParse(body);
    if (completed.success) {
      return ok({
        kind: 'completed',
        reportUrl: this.resolve(completed.data.report_url),
        citationCount: completed.data.citation_count,
        costUsd: completed.data.cost_usd,
        remoteId: typeof completed.data.id === 'string' ? completed.data.id : null,
      });
    }
    const queued = ResearchQueuedResponse.safeParse(body);
    if (queued.success) {
      const statusUrl = this.resolve(queued.data.status_url);
      return ok({ kind: 'queued', statusUrl, remoteId: typeof queued.data.id === 'string' ? queued.data.id : (statusUrl.split('/').pop() ?? null) });
    }
    return fail({ code: 'bad_response', message: 'The service answered the research request in a shape the app does not understand.' });
  }

  async pollResearch(statusUrl: string): Promise<Result<ResearchRunBody>> {
    const response = await this.request('GET', statusUrl, undefined, 'application/json');
    if (!response.ok) return response;
    const parsed = ResearchRun.safeParse(await readJson(response.value));
    return parsed.success ? ok(parsed.data) : fail({ code: 'bad_response', message: 'The research status could not be read.' });
  }

  /** Fetches a report: JSON per DESIGN §3, or markdown, or HTML (the caller sanitises HTML). */
  async getReport(reportUrl: string): Promise<Result<{ format: 'json'; report: ReportBody } | { format: 'markdown' | 'html'; text: string }>> {
    const response = await this.request('GET', reportUrl, undefined, 'application/json, text/markdown;q=0.9, text/html;q=0.8');
    if (!response.ok) return response;
    const type = response.value.headers.get('content-type') ?? '';
    if (type.includes('application/json')) {
      const parsed = Report.safeParse(await readJson(response.value));
      return parsed.success ? ok({ format: 'json', report: parsed.data }) : fail({ code: 'bad_response', message: 'The report could not be read.' });
    }
    const text = await response.value.text();
    return ok({ format: type.includes('text/html') ? 'html' : 'markdown', text });
  }

  /**
   * The health snapshot, revalidated with its ETag. Returns `not-modified` on 304, and the
   * cache lifetime the service asked for (Cache-Control max-age).
   */
  async getHealth(etag: string | null, timeoutMs = 8_000): Promise<Result<{ kind: 'not-modified'; maxAgeS: number } | { kind: 'snapshot'; snapshot: HealthSnapshotBody; etag: string | null; maxAgeS: number }>> {
    const response = await this.request('GET', '/api/v1/sources/health', undefined, 'application/json', undefined, {
      timeoutMs,
      headers: etag ? { 'if-none-match': etag } : {},
      notModifiedIsOk: true,
    });
    if (!response.ok) return response;
    const maxAge = /max-age=(\d+)/.exec(response.value.headers.get('cache-control') ?? '')?.[1];
    const maxAgeS = maxAge ? Number(maxAge) : 60;
    if (response.value.status === 304) return ok({ kind: 'not-modified', maxAgeS });
    const body = await readJson(response.value);
    const parsed = HealthSnapshot.safeParse(normalizeHealth(body));
    if (!parsed.success) return fail({ code: 'bad_response', message: 'The health snapshot could not be read.' });
    return ok({ kind: 'snapshot', snapshot: parsed.data, etag: response.value.headers.get('etag'), maxAgeS });
  }

  /** `report_url` and `status_url` may be absolute or relative to the base URL. */
  resolve(url: string): string {
    return new URL(url, this.options.baseUrl).href;
  }

  /** Extension (DESIGN §3): one signal with its source and the source's health now. */
  async getSignal(id: string, signal?: AbortSignal): Promise<Result<{ signal: Signal; source: SourceEntry }>> {
    const response = await this.request('GET', `/api/v1/signals/${encodeURIComponent(id)}`, undefined, 'application/json', signal);
    if (!response.ok) return response;
    const parsed = SignalLookup.safeParse(await readJson(response.value));
    if (!parsed.success) return fail({ code: 'bad_response', message: 'The service sent a signal the app cannot read.' });
    return ok({ signal: parsed.data.signal, source: parsed.data.source });
  }

  /** Extension: make a session public (or private again); returns its public page URL. */
  async setSessionVisibility(sessionId: string, isPublic: boolean): Promise<Result<{ url: string | null }>> {
    const response = await this.request('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/visibility`, { public: isPublic }, 'application/json');
    if (!response.ok) return response;
    const parsed = SessionVisibility.safeParse(await readJson(response.value));
    if (!parsed.success) return fail({ code: 'bad_response', message: 'The service does not support sharing sessions.' });
    return ok({ url: parsed.data.public ? new URL(parsed.data.url, this.options.baseUrl).href : null });
  }

  private async acceptJsonAsStream(response: Response, handlers: AskStreamHandlers): Promise<{ ok: true } | { ok: false; error: StreamFailure }> {
    const parsed = AskResponse.safeParse(await readJson(response));
    if (!parsed.success) return { ok: false, error: { code: 'bad_response', message: 'The service answered in a shape the app does not understand.', incomplete: false } };
    handlers.onOpen?.();
    handlers.onEvent({ type: 'meta', sessionId: parsed.data.session_id, sessionSlug: parsed.data.session_slug });
    const confidence = normalizeConfidence(parsed.data.confidence);
    if (confidence !== null) handlers.onEvent({ type: 'confidence', value: confidence });
    for (const id of parsed.data.citations) handlers.onEvent({ type: 'citation', citation: { id } });
    handlers.onEvent({ type: 'text', text: parsed.data.content });
    return { ok: true };
  }

  private post(path: string, body: unknown, accept: string, signal?: AbortSignal): Promise<Result<Response>> {
    // A stream's deadline covers the headers only; the stall timer watches the body.
    return this.request('POST', path, body, accept, signal, { headersOnly: accept === 'text/event-stream' });
  }

  /**
   * GETs are safe to repeat: a 500, a 503 or a dropped connection is retried up to
   * MAX_RETRIES times with capped, jittered exponential backoff (a 503's Retry-After is
   * honoured when it is short). POSTs (ask, research, proposals) are never repeated, and a 429
   * is never retried automatically: the user sees the countdown instead.
   */
  private async request(...args: RequestArgs): Promise<Result<Response>> {
    const [method, , , , signal] = args;
    let attempt = 0;
    for (;;) {
      const result = await this.requestOnce(...args);
      const retryable = method === 'GET' && !result.ok && (result.error.code === 'network' || result.error.status === 500 || result.error.status === 503);
      if (!retryable || attempt >= MAX_RETRIES || signal?.aborted) return result;
      const backoff = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
      const hinted = !result.ok && result.error.retryAfterS !== undefined ? result.error.retryAfterS * 1000 : 0;
      const wait = hinted > 0 && hinted <= RETRY_CAP_MS ? hinted : backoff / 2 + Math.random() * (backoff / 2);
      attempt += 1;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private async requestOnce(...[method, path, body, accept, signal, options = {}]: RequestArgs): Promise<Result<Response>> {
    const headers: Record<string, string> = { accept, ...options.headers, ...(await this.authHeaders()) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const target = new URL(path, this.options.baseUrl);
    // SECURITY: the credential goes to the configured service only. A status_url or report_url
    // pointing at another origin is not followed.
    if (target.origin !== new URL(this.options.baseUrl).origin) {
      return fail({ code: 'bad_response', message: `The service pointed at another host (${target.origin}); the app did not follow it.` });
    }
    // Every request has a deadline: a service that hangs must not hang the app.
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    timer.unref?.();
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let response: Response;
    try {
      // SECURITY: never follow a redirect: fetch would carry X-API-Key to whatever host it names.
      response = await this.fetchImpl(target, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: controller.signal, redirect: 'manual' });
    } catch (error) {
      clearTimeout(timer);
      if (signal?.aborted) return fail({ code: 'aborted', message: 'Cancelled.' });
      if (timedOut) return fail({ code: 'timeout', message: `The service did not answer within ${Math.round(timeoutMs / 1000)} s.` });
      return fail({ code: 'network', message: `Could not reach the service at ${new URL(this.options.baseUrl).origin}${describeCause(error)}.` });
    }
    // A stream's body is watched by the stall timer instead; a user's abort still applies.
    if (options.headersOnly) clearTimeout(timer);
    const redirected = refuseRedirect(response);
    if (redirected) {
      clearTimeout(timer);
      return fail(redirected);
    }
    this.reportRateLimit(response);
    if (response.ok || (options.notModifiedIsOk && response.status === 304)) return ok(response);
    return fail(await this.errorFrom(response));
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

  private async errorFrom(response: Response): Promise<BridgeError> {
    const parsed = ErrorBody.safeParse(await readJson(response));
    const code = parsed.success ? knownCode(parsed.data.error) : (CODE_BY_STATUS[response.status] ?? (response.status >= 500 ? 'internal' : 'invalid_request'));
    const error: BridgeError = {
      code: parsed.success && code === 'internal' && CODE_BY_STATUS[response.status] ? CODE_BY_STATUS[response.status]! : code,
      message: parsed.success ? parsed.data.message : `The service answered ${response.status} ${response.statusText}.`,
      status: response.status,
    };
    if (response.status === 429) {
      const retryAfterS = parseRetryAfter(response.headers.get('retry-after'), this.options.now?.() ?? Date.now());
      // No usable Retry-After: wait a capped default rather than hammering.
      error.retryAfterS = retryAfterS ?? 30;
    } else if (response.status === 503) {
      const retryAfterS = parseRetryAfter(response.headers.get('retry-after'), this.options.now?.() ?? Date.now());
      if (retryAfterS !== null) error.retryAfterS = retryAfterS;
    }
    return error;
  }
}

/**
 * DESIGN §3: when a service names its source list differently, the list is the first array of
 * objects in the snapshot.
 */
function normalizeHealth(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  if (Array.isArray(record.sources)) return body;
  const list = Object.values(record).find((value) => Array.isArray(value) && value.length > 0 && typeof value[0] === 'object');
  return list ? { ...record, sources: list } : body;
}

/**
 * SECURITY: requests carry the credential, so a redirect is refused, not followed (fetch keeps
 * `X-API-Key` across origins). 304 is a cache answer, not a redirect.
 */
function refuseRedirect(response: Response): BridgeError | null {
  const isRedirect = response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400 && response.status !== 304);
  if (!isRedirect) return null;
  void response.body?.cancel().catch(() => undefined);
  let where = 'another address';
  try {
    const location = response.headers.get('location');
    if (location) where = new URL(location, response.url || 'http://invalid/').origin;
  } catch {
    // An unparsable Location: say "another address".
  }
  return {
    code: 'bad_response',
    status: response.status,
    message: `The service answered with a redirect (${response.status}) to ${where}. The app does not follow redirects, so your credential was not sent there; check the service address in Settings.`,
  };
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

function describeCause(error: unknown): string {
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return cause ? ` (${cause})` : '';
}
