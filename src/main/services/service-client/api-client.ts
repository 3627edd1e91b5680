/**
 * Client of the Retail Signal service: fetch + eventsource-parser, abortable, every failure
 * a typed BridgeError. It knows nothing of Electron or the renderer (docs/decisions/conventions.md §7): the base URL,
 * the credential and fetch are given to it.
 *
 * Over 400 lines on purpose: every call to the service shares one request path (deadline,
 * redirect refusal, retry of safe GETs, credential degradation, rate-limit reports, bounded
 * bodies), and keeping that path and its callers in one class keeps the security rules in one
 * place to review. What is not a request lives elsewhere: `service-readers.ts` (reading bodies),
 * `ask-events.ts` (stream frames), `answer-limits.ts` (caps).
 */
import type { z } from 'zod';
import type { AskEvent, BridgeError, CredentialPresentation, Result } from '../../../shared/bridge-contract';
import { fail, ok } from '../../../shared/bridge-contract';
import { fillPath, responseSchema, type EndpointSpec, type RequestOf, type ResponseOf } from '../../../shared/endpoints/define';
import { ENDPOINTS, type EndpointId, type Endpoints } from '../../../shared/endpoints/table';
import type { ReadHealthSnapshot } from '../../../shared/health';
import { ErrorBody, type AskRequest, type LookedUpSource, type Signal } from '../../../shared/service-schemas';
import type { ServiceChangelogView } from '../../../shared/service-notices';
import { ChangelogFeed } from '../../../shared/surface-schemas';
import { parseAtomChangelog } from './changelog-atom';
import { interpretAskMessage, knownCode } from './ask-events';
import { readDeprecation } from './deprecation-headers';
import type { ObservedDeprecation } from './service-notices';
import { readAnswer, readHealthSnapshot, readReport, readResearchStatus, type Read, type ReadAnswer, type ReadReport, type ReadResearchStatus } from './service-readers';
import { readSseStream, SseStreamError } from './sse-reader';

/** Deadline of an ordinary request, and of a synchronous (v1) research run. */
export const DEFAULT_TIMEOUT_MS = 15_000;
export const RESEARCH_TIMEOUT_MS = 4 * 60_000;
const MAX_RETRIES = 3;
const RETRY_BASE_MS = 250;
const RETRY_CAP_MS = 4_000;


/** Bounds on one non-streamed body: JSON (a 5,000-source health snapshot is about 2 MB) and a report. */
export const MAX_JSON_BYTES = 16 * 1_048_576;
export const MAX_REPORT_BYTES = 8 * 1_048_576;

export type ResearchStart =
  | { kind: 'completed'; reportUrl: string | null; inlineReport: ReadReport | null; citationCount: number | null; costUsd: number | null; remoteId: string | null }
  | { kind: 'queued'; statusUrl: string; remoteId: string | null; reported: string };

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

export type AskJsonAnswer = ReadAnswer;

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
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  405: 'invalid_request',
  408: 'timeout',
  409: 'invalid_request',
  410: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_request',
  429: 'rate_limited',
  451: 'forbidden',
  500: 'internal',
  501: 'unavailable',
  502: 'unavailable',
  503: 'unavailable',
  504: 'timeout',
};

/** What a status means to a user when the service's own body says nothing readable. */
const MESSAGE_BY_CODE: Partial<Record<BridgeError['code'], string>> = {
  payment_required: 'The service wants payment or a higher plan for this request.',
  unauthorized: 'The service needs a valid credential for this request.',
  forbidden: 'The credential is not allowed to do this.',
  not_found: 'The service does not have what was asked for.',
  rate_limited: 'The service asked the app to slow down.',
  unavailable: 'The service is unavailable right now.',
  timeout: 'The service timed out.',
};

/** A status the app has no word for still gets a sensible code: by its class, not `internal`. */
function codeForStatus(status: number): BridgeError['code'] {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'unavailable' : 'invalid_request');
}

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
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body: unknown,
  accept: string,
  signal?: AbortSignal,
  options?: RequestOptions,
];

interface RequestOptions {
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
export type CallInput<Spec extends EndpointSpec> = {
  /** The path's `{name}` parameters (percent-encoded here). */
  params?: Record<string, string>;
  query?: URLSearchParams;
  signal?: AbortSignal;
  options?: RequestOptions;
} & (RequestOf<Spec> extends undefined ? { body?: undefined } : { body: RequestOf<Spec> });

/** Every status a probe accepts as "the service answered". */
const PROBE_STATUSES = Array.from({ length: 500 }, (_, i) => 100 + i);

export class RetailSignalClient {
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  async askJson(request: AskRequest, signal?: AbortSignal): Promise<Result<AskJsonAnswer>> {
    const response = await this.postAsk(request, false, signal);
    if (!response.ok) return response;
    return readWith(response.value, readAnswer, (problem) => `The service's answer could not be read: ${problem}`);
  }

  /**
   * The `session_id` extension is offered only with a session id this service handed out (the
   * stream runner passes the conversation's, which only a service's answer sets). A service
   * that answers 400 to it has refused it: it is never sent to that service again.
   */
  private sessionExtensionRefused = false;

  /**
   * Replayed `assistant` turns (replay-messages.ts) are allowed by docs/decisions/design.md §3; a service that
   * answers 400 to them gets the questions only, then and from then on.
   */
  private assistantTurnsRefused = false;

  private async postAsk(withoutZone: AskRequest, stream: boolean, signal?: AbortSignal): Promise<Result<Response>> {
    const zone = withoutZone.time_zone ?? this.options.timeZone?.();
    const request: AskRequest = zone ? { ...withoutZone, time_zone: zone } : withoutZone;
    if (!request.messages.some((message) => message.role === 'assistant')) return this.postAskSession(request, stream, signal);
    const questionsOnly: AskRequest = { ...request, messages: request.messages.filter((message) => message.role === 'user') };
    if (this.assistantTurnsRefused) return this.postAskSession(questionsOnly, stream, signal);
    const first = await this.postAskSession(request, stream, signal);
    if (first.ok || first.error.status !== 400) return first;
    const second = await this.postAskSession(questionsOnly, stream, signal);
    if (second.ok) this.assistantTurnsRefused = true;
    return second;
  }

  /** POST /api/v1/ask, repeated once without `session_id` if a strict service refuses it. */
  private async postAskSession(request: AskRequest, stream: boolean, signal?: AbortSignal): Promise<Result<Response>> {
    const { session_id: sessionId, ...rest } = request;
    const accept = stream ? 'text/event-stream' : 'application/json';
    const send = (body: AskRequest): Promise<Result<Response>> => this.post(ENDPOINTS.ask.path, { ...body, stream }, accept, signal);
    if (!sessionId || this.sessionExtensionRefused) return send(rest);
    const first = await send({ ...rest, session_id: sessionId });
    if (first.ok || first.error.status !== 400) return first;
    // The extension is optional (docs/decisions/design.md §3): a strict service answers 400 to an unknown field.
    const second = await send(rest);
    if (second.ok) this.sessionExtensionRefused = true;
    return second;
  }

  /**
   * Streams an answer. Resolves ok when `message_stop` arrives; otherwise a StreamFailure
   * that says whether the answer is incomplete (some text arrived before the failure).
   */
  async askStream(request: AskRequest, handlers: AskStreamHandlers): Promise<{ ok: true } | { ok: false; error: StreamFailure }> {
    const response = await this.postAsk(request, true, handlers.signal);
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
    // message_stop completes the answer: reading ends there, not at close (pings or silence
    // after it cannot hold an answer open), and nothing sent after it is kept (issue 30).
    let endReading: () => void = () => undefined;
    const stoppedReading = new Promise<void>((resolve) => (endReading = resolve));
    try {
      await readSseStream(response.value.body!, {
        signal: handlers.signal,
        stallTimeoutMs: this.options.stallTimeoutMs,
        until: stoppedReading,
        onMessage: (message) => {
          // The answer the service declared finished is the answer: deltas, citations,
          // confidence and errors after message_stop (even in the same chunk) are ignored.
          if (streamError || stopped) return;
          const outcome = interpretAskMessage(message);
          if (outcome.kind === 'event') {
            if (outcome.event.type === 'text') sawText = true;
            handlers.onEvent(outcome.event);
          } else if (outcome.kind === 'stop') {
            stopped = true;
            endReading();
          } else if (outcome.kind === 'error') streamError = outcome.error;
        },
      });
    } catch (error) {
      if (stopped && !(error instanceof SseStreamError && error.reason === 'aborted')) return { ok: true };
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
  ): Promise<Result<ResearchStart>> {
    const path = options.queue ? ENDPOINTS.researchV2.path : ENDPOINTS.researchV1.path;
    // v1 holds the request for the whole run (30–90 s for the standard preset).
    const zone = this.options.timeZone?.();
    const response = await this.request('POST', path, { topic, preset, ...(zone ? { time_zone: zone } : {}) }, 'application/json', options.signal, { timeoutMs: options.queue ? DEFAULT_TIMEOUT_MS : RESEARCH_TIMEOUT_MS });
    if (!response.ok) return response;
    const read = await readWith(response.value, readResearchStatus, (problem) => problem);
    if (!read.ok) return read;
    const run = read.value;
    if (run.state === 'completed') {
      if (!run.reportUrl && !run.inlineReport) return fail({ code: 'bad_response', message: 'The service said the report is complete but gave no report_url to fetch it from.' });
      return ok({ kind: 'completed', reportUrl: run.reportUrl ? this.resolve(run.reportUrl) : null, inlineReport: run.inlineReport, citationCount: run.citationCount, costUsd: run.costUsd, remoteId: run.id });
    }
    if (run.state === 'failed') return fail({ code: 'invalid_request', message: run.error ?? 'The service could not run this report.' });
    // Queued or running: poll status_url, or the interface's GET /api/v1/research/{id}.
    const statusUrl = run.statusUrl ?? (run.id ? fillPath(ENDPOINTS.getResearchRun.path, { id: run.id }) : null);
    if (!statusUrl) return fail({ code: 'bad_response', message: `The service queued the report ("${run.reported}") but gave neither a status_url nor an id to poll.` });
    const resolved = this.resolve(statusUrl);
    return ok({ kind: 'queued', statusUrl: resolved, remoteId: run.id ?? (new URL(resolved).pathname.split('/').pop() || null), reported: run.reported });
  }

  async pollResearch(statusUrl: string, signal?: AbortSignal): Promise<Result<ReadResearchStatus>> {
    const response = await this.request('GET', statusUrl, undefined, 'application/json', signal);
    if (!response.ok) return response;
    return readWith(response.value, readResearchStatus, (problem) => problem);
  }

  /** Fetches a report: JSON per docs/decisions/design.md §3, or markdown, or HTML (the caller sanitises HTML). */
  async getReport(reportUrl: string, signal?: AbortSignal): Promise<Result<{ format: 'json'; report: ReadReport } | { format: 'markdown' | 'html'; text: string }>> {
    const response = await this.request('GET', reportUrl, undefined, 'application/json, text/markdown;q=0.9, text/html;q=0.8', signal);
    if (!response.ok) return response;
    const type = response.value.headers.get('content-type') ?? '';
    if (type.includes('application/json')) {
      const read = await readWith(response.value, readReport, (problem) => `The report could not be read: ${problem}`);
      return read.ok ? ok({ format: 'json', report: read.value }) : read;
    }
    const text = await readBoundedText(response.value, MAX_REPORT_BYTES);
    if (!text.ok) return text;
    return ok({ format: type.includes('text/html') ? 'html' : 'markdown', text: text.value });
  }

  /**
   * The health snapshot, revalidated with its ETag. Returns `not-modified` on 304, and the
   * cache lifetime the service asked for (Cache-Control max-age).
   */
  async getHealth(etag: string | null, timeoutMs = 8_000, signal?: AbortSignal): Promise<Result<{ kind: 'not-modified'; maxAgeS: number } | { kind: 'snapshot'; snapshot: ReadHealthSnapshot; etag: string | null; maxAgeS: number }>> {
    const response = await this.request('GET', ENDPOINTS.getSourcesHealth.path, undefined, 'application/json', signal, {
      timeoutMs,
      anonymousOk: true,
      retries: 0,
      passStatuses: [304],
      headers: etag ? { 'if-none-match': etag } : {},
    });
    if (!response.ok) return response;
    const maxAge = /max-age=(\d+)/.exec(response.value.headers.get('cache-control') ?? '')?.[1];
    const maxAgeS = maxAge ? Number(maxAge) : 60;
    if (response.value.status === 304) return ok({ kind: 'not-modified', maxAgeS });
    const read = await readWith(response.value, readHealthSnapshot, (problem) => problem);
    if (!read.ok) return read;
    return ok({ kind: 'snapshot', snapshot: read.value, etag: response.value.headers.get('etag'), maxAgeS });
  }

  /** Whether a credential would be sent (for wording errors; the secret stays here). */
  async hasCredential(): Promise<boolean> {
    return !!(await this.options.credential?.());
  }

  /**
   * Is anything answering at the base URL? Any HTTP status counts (the root need not exist);
   * sent without the credential, never retried. The connection's "ready" rests on it.
   */
  async probe(timeoutMs = 8_000): Promise<Result<number>> {
    const response = await this.request('GET', '/', undefined, '*/*', undefined, { timeoutMs, retries: 0, withoutCredential: true, passStatuses: PROBE_STATUSES });
    if (!response.ok) return response.error.status !== undefined ? ok(response.error.status) : response;
    await response.value.body?.cancel().catch(() => undefined);
    return ok(response.value.status);
  }

  /**
   * Whether the service accepts the stored credential (Settings › Test credential): asks for
   * the status of a research run that cannot exist, which only a signed-in caller may do, so
   * 404 means accepted and 401/403 refused. Never repeated anonymously, never flags it.
   */
  async checkCredential(): Promise<Result<{ verdict: 'accepted' | 'refused' | 'forbidden' | 'none'; message: string | null }>> {
    if (!(await this.options.credential?.())) return ok({ verdict: 'none', message: null });
    const response = await this.request('GET', fillPath(ENDPOINTS.getResearchRun.path, { id: 'run_0000000000000000' }), undefined, 'application/json', undefined, {
      retries: 0,
      passStatuses: [200, 401, 403, 404],
    });
    if (!response.ok) return response;
    const { status } = response.value;
    if (status !== 401 && status !== 403) return ok({ verdict: 'accepted', message: null });
    return ok({ verdict: status === 401 ? 'refused' : 'forbidden', message: (await this.errorFrom(response.value)).message });
  }

  /**
   * The embedded local service's development identity provider (`POST /api/v1/dev/token`):
   * a bearer token for `email`. Sent without any credential (a stale one would be refused).
   */
  async issueDevelopmentToken(email: string): Promise<Result<{ token: string; expiresAt: string | null }>> {
    const issued = await this.call('issueDevelopmentToken', { body: { email }, options: { withoutCredential: true } }, 'a development token');
    return issued.ok ? ok({ token: issued.value.token, expiresAt: issued.value.expires_at ?? null }) : issued;
  }

  /** `report_url` and `status_url` may be absolute or relative to the base URL. */
  resolve(url: string): string {
    return new URL(url, this.options.baseUrl).href;
  }

  /** Extension (docs/decisions/design.md §3): one signal with its source and the source's health now. */
  async getSignal(id: string, signal?: AbortSignal): Promise<Result<{ signal: Signal; source: LookedUpSource }>> {
    const lookup = await this.call('getSignal', { params: { id }, signal }, 'a signal');
    return lookup.ok ? ok({ signal: lookup.value.signal, source: lookup.value.source }) : lookup;
  }

  /**
   * One call to a row of the endpoint table (src/shared/endpoints/table.ts): method and path from
   * the row, the body typed by its request schema, the answer read with its response schema. An
   * endpoint the app starts using is one such call, not a new request path.
   */
  async call<Id extends EndpointId>(id: Id, input: CallInput<Endpoints[Id]>, what: string): Promise<Result<ResponseOf<Endpoints[Id]>>> {
    const row: EndpointSpec = ENDPOINTS[id];
    const path = `${fillPath(row.path, input.params)}${input.query ? `?${input.query.toString()}` : ''}`;
    const otherBucket = row.limit !== undefined && row.limit !== 'ask';
    const response = await this.request(row.method, path, input.body, 'application/json', input.signal, otherBucket ? { ...input.options, otherBucket } : input.options);
    if (!response.ok) return response;
    const schema = responseSchema(row, response.value.status);
    const read = schema ? bySchema(schema) : (json: unknown): Read<unknown> => ({ ok: true, value: json });
    return readWith(response.value, read, () => `The service sent ${what} the app cannot read.`) as Promise<Result<ResponseOf<Endpoints[Id]>>>;
  }

  /**
   * The service's changelog, machine-readable: a JSON Feed at `/developer/changelog.json` (this
   * service's shape; others that publish one the same way are read too), else, for a service
   * that publishes only an Atom feed, `/developer/changelog.atom`. Absolute URLs in it are
   * resolved against the base URL; only http(s) ones are kept.
   */
  async getChangelog(): Promise<Result<ServiceChangelogView>> {
    const webUrl = (value: string | undefined | null): string | null => {
      if (!value) return null;
      try {
        const url = new URL(value, this.options.baseUrl);
        return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
      } catch {
        return null;
      }
    };
    const serviceLabel = new URL(this.options.baseUrl).origin;
    const response = await this.request('GET', ENDPOINTS.changelogJson.path, undefined, 'application/feed+json, application/json', undefined, { anonymousOk: true });
    if (!response.ok) {
      // No JSON Feed (or not this way): the Atom feed is the other standard form.
      if (response.error.status === 404 || response.error.status === 405 || response.error.status === 406) return this.getAtomChangelog(serviceLabel, webUrl);
      return response;
    }
    const json = await readJson(response.value);
    if (!json.ok) return json;
    const parsed = ChangelogFeed.safeParse(json.value);
    if (!parsed.success) {
      const atom = await this.getAtomChangelog(serviceLabel, webUrl);
      return atom.ok ? atom : fail({ code: 'bad_response', message: 'The service sent a changelog the app cannot read (expected a JSON Feed or an Atom feed).' });
    }
    const feed = parsed.data;
    return ok({
      serviceLabel,
      pageUrl: webUrl(feed.home_page_url ?? '/developer/changelog'),
      entries: feed.items.slice(0, 200).map((item) => ({
        version: item._retail_signal?.version ?? null,
        date: item._retail_signal?.date ?? item.date_published?.slice(0, 10) ?? null,
        title: item.title ?? item._retail_signal?.version ?? item.id,
        notes: (item._retail_signal?.notes ?? (item.content_text ?? '').split('\n').map((line) => line.replace(/^-\s*/, ''))).filter((note) => note.trim()).slice(0, 100),
      })),
      deprecations: (feed._retail_signal?.deprecations ?? []).slice(0, 100).map((entry) => ({
        method: entry.method,
        path: entry.path,
        deprecatedAt: entry.deprecated_at,
        sunsetAt: entry.sunset_at ?? null,
        replacement: entry.replacement ? `${entry.replacement.method} ${entry.replacement.path}` : null,
        change: entry.change ?? null,
      })),
    });
  }

  /** The changelog as an Atom feed (`/developer/changelog.atom`); Atom carries no deprecation records. */
  private async getAtomChangelog(serviceLabel: string, webUrl: (value: string | null) => string | null): Promise<Result<ServiceChangelogView>> {
    const response = await this.request('GET', ENDPOINTS.changelogAtom.path, undefined, 'application/atom+xml, application/xml;q=0.9, text/xml;q=0.8', undefined, { anonymousOk: true });
    if (!response.ok) {
      if (response.error.status === 404) return fail({ code: 'not_found', message: 'This service publishes no machine-readable changelog (neither /developer/changelog.json nor /developer/changelog.atom).' });
      return response;
    }
    const text = await readBoundedText(response.value, MAX_REPORT_BYTES);
    if (!text.ok) return text;
    try {
      const atom = parseAtomChangelog(text.value);
      return ok({ serviceLabel, pageUrl: webUrl(atom.pageHref ?? '/developer/changelog'), entries: atom.entries, deprecations: [] });
    } catch (error) {
      return fail({ code: 'bad_response', message: `The service sent a changelog the app cannot read: ${(error as Error).message}` });
    }
  }

  /** Extension: make a session public (or private again); returns its public page URL. */
  async setSessionVisibility(sessionId: string, isPublic: boolean): Promise<Result<{ url: string | null }>> {
    const shared = await this.call('setSessionVisibility', { params: { id: sessionId }, body: { public: isPublic } }, 'sharing settings');
    return shared.ok ? ok({ url: shared.value.public ? new URL(shared.value.url, this.options.baseUrl).href : null }) : shared;
  }

  private async acceptJsonAsStream(response: Response, handlers: AskStreamHandlers): Promise<{ ok: true } | { ok: false; error: StreamFailure }> {
    const read = await readWith(response, readAnswer, (problem) => `The service's answer could not be read: ${problem}`);
    if (!read.ok) return { ok: false, error: { ...read.error, incomplete: false } };
    const answer = read.value;
    handlers.onOpen?.();
    handlers.onEvent({ type: 'meta', ...(answer.sessionId ? { sessionId: answer.sessionId } : {}), ...(answer.sessionSlug ? { sessionSlug: answer.sessionSlug } : {}) });
    if (answer.confidence !== null) handlers.onEvent({ type: 'confidence', value: answer.confidence });
    for (const id of answer.citations) handlers.onEvent({ type: 'citation', citation: { id } });
    handlers.onEvent({ type: 'text', text: answer.content });
    return { ok: true };
  }

  private post(path: string, body: unknown, accept: string, signal?: AbortSignal): Promise<Result<Response>> {
    // A stream's deadline covers the headers only; the stall timer watches the body.
    return this.request('POST', path, body, accept, signal, { headersOnly: accept === 'text/event-stream', anonymousOk: path === ENDPOINTS.ask.path });
  }

  /**
   * GETs are safe to repeat: a 500, a 503 or a dropped connection is retried up to
   * MAX_RETRIES times with capped, jittered exponential backoff (a 503's Retry-After is
   * honoured when it is short). POSTs (ask, research, proposals) are never repeated, and a 429
   * is never retried automatically: the user sees the countdown instead.
   */
  private async request(...args: RequestArgs): Promise<Result<Response>> {
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
    this.reportDeprecation(method, target, response);
    if (response.ok || options.passStatuses?.includes(response.status)) return ok(response);
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

  private reportDeprecation(method: string, target: URL, response: Response): void {
    if (!this.options.onDeprecation) return;
    const read = readDeprecation(response.headers, response.url || target.href);
    if (!read) return;
    // The path as the interface names it: relative to the base URL's own path.
    const basePath = new URL(this.options.baseUrl).pathname.replace(/\/$/, '');
    const path = basePath && target.pathname.startsWith(`${basePath}/`) ? target.pathname.slice(basePath.length) : target.pathname;
    this.options.onDeprecation({ ...read, method, path });
  }

  private async errorFrom(response: Response): Promise<BridgeError> {
    const read = await readJson(response);
    const body = read.ok ? read.value : undefined;
    const parsed = ErrorBody.safeParse(body);
    // The body's code wins when the app knows it; otherwise the status decides (402 is not `internal`).
    const byStatus = codeForStatus(response.status);
    const fromBody = parsed.success ? knownCode(parsed.data.error) : null;
    const code = fromBody && (fromBody !== 'internal' || response.status === 500) ? fromBody : byStatus;
    // A flat `{message}` or `{error: "…"}` without the other half still says something useful.
    const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const message = parsed.success ? parsed.data.message : typeof record.message === 'string' ? record.message : typeof record.error === 'string' ? record.error : null;
    const error: BridgeError = {
      code,
      message: message ?? `${MESSAGE_BY_CODE[code] ?? 'The service refused the request.'} (HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''})`,
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

/**
 * A JSON body, read with a bound: a crafted service cannot make main buffer an endless body
 * (SECURITY.md, answer caps). Malformed JSON reads as `undefined` for the caller's reader to
 * name what is missing; a body over the bound is a clear error.
 */
async function readJson(response: Response, maxBytes = MAX_JSON_BYTES): Promise<Result<unknown>> {
  const text = await readBoundedText(response, maxBytes);
  if (!text.ok) return text;
  try {
    return ok(JSON.parse(text.value) as unknown);
  } catch {
    return ok(undefined);
  }
}

/**
 * Read JSON → read it → a typed Result: the one way a JSON answer becomes a value (the table's
 * calls and the tolerant readers of answers, research and health).
 */
async function readWith<T>(response: Response, read: (body: unknown) => Read<T>, unreadable: (problem: string) => string): Promise<Result<T>> {
  const json = await readJson(response);
  if (!json.ok) return json;
  const value = read(json.value);
  return value.ok ? ok(value.value) : fail({ code: 'bad_response', message: unreadable(value.problem) });
}

/** A zod schema as a reader. */
function bySchema<T>(schema: z.ZodType<T>): (body: unknown) => Read<T> {
  return (body) => {
    const parsed = schema.safeParse(body);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: parsed.error.issues[0]?.message ?? 'invalid' };
  };
}

/** The body as text, refusing it (by Content-Length, or while reading) past `maxBytes`. */
export async function readBoundedText(response: Response, maxBytes: number): Promise<Result<string>> {
  const tooLarge = (): Result<string> =>
    fail({ code: 'bad_response', message: `The service sent more than ${formatBytes(maxBytes)} in one response; the app stopped reading it.` });
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return tooLarge();
  }
  if (!response.body) return ok('');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (error) {
      // The request's signal ended it (the caller stopped, or the deadline passed), or the
      // connection dropped: a Result like any other failure, not an exception in the caller.
      const name = (error as { name?: string } | null)?.name;
      if (name === 'TimeoutError') return fail({ code: 'timeout', message: (error as Error).message });
      return fail(name === 'AbortError' ? { code: 'aborted', message: 'Cancelled.' } : { code: 'network', message: 'The connection to the service dropped while reading its answer.' });
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
  return ok(text + decoder.decode());
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

const formatBytes = (bytes: number): string => `${Math.round(bytes / 1_048_576)} MB`;

function describeCause(error: unknown): string {
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return cause ? ` (${cause})` : '';
}
