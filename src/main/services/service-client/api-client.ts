/**
 * Client of the Retail Signal service: its typed calls (ask, research, reports, health, the
 * endpoint table's rows), abortable, every failure a typed BridgeError. It knows nothing of
 * Electron or the renderer (docs/decisions/conventions.md §7): the base URL, the credential and
 * fetch are given to it.
 *
 * Every call goes through one request path, `service-transport.ts` (deadline, redirect refusal,
 * retry of safe GETs, credential degradation, rate-limit reports), which keeps the security rules
 * in one place to review. Around it: `service-errors.ts` (refusals as BridgeErrors),
 * `response-bodies.ts` (bounded bodies), `ask-stream-reading.ts` (the answer stream),
 * `changelog-reading.ts`, `service-readers.ts` (tolerant readers), `ask-events.ts` (stream frames).
 */
import type { Result } from '../../../shared/bridge-contract';
import { fail, ok } from '../../../shared/bridge-contract';
import { fillPath, responseSchema, type EndpointSpec, type RequestOf, type ResponseOf } from '../../../shared/endpoints/define';
import { ENDPOINTS, type EndpointId, type Endpoints } from '../../../shared/endpoints/table';
import type { ReadHealthSnapshot } from '../../../shared/health';
import type { AskRequest, LookedUpSource, Signal } from '../../../shared/service-schemas';
import type { ServiceChangelogView } from '../../../shared/service-notices';
import { readAskStream, type AskStreamHandlers, type StreamOutcome } from './ask-stream-reading';
import { readChangelog } from './changelog-reading';
import { bySchema, MAX_REPORT_BYTES, readBoundedText, readWith } from './response-bodies';
import { errorFromResponse } from './service-errors';
import { readAnswer, readHealthSnapshot, readReport, readResearchStatus, type Read, type ReadAnswer, type ReadReport, type ReadResearchStatus } from './service-readers';
import { DEFAULT_TIMEOUT_MS, ServiceTransport, type ApiClientOptions, type RequestArgs, type RequestOptions } from './service-transport';

// The split files' public names, from the path callers already import.
export type { AskStreamHandlers, StreamFailure } from './ask-stream-reading';
export { MAX_JSON_BYTES, MAX_REPORT_BYTES, readBoundedText } from './response-bodies';
export { parseRetryAfter } from './service-errors';
export { DEFAULT_TIMEOUT_MS, type ApiClientOptions, type Credential, type RateLimitObservation } from './service-transport';

/** Deadline of a synchronous (v1) research run. */
export const RESEARCH_TIMEOUT_MS = 4 * 60_000;


export type ResearchStart =
  | { kind: 'completed'; reportUrl: string | null; inlineReport: ReadReport | null; citationCount: number | null; costUsd: number | null; remoteId: string | null }
  | { kind: 'queued'; statusUrl: string; remoteId: string | null; reported: string };

export type AskJsonAnswer = ReadAnswer;

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
  private readonly transport: ServiceTransport;

  constructor(private readonly options: ApiClientOptions) {
    this.transport = new ServiceTransport(options);
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
  async askStream(request: AskRequest, handlers: AskStreamHandlers): Promise<StreamOutcome> {
    const response = await this.postAsk(request, true, handlers.signal);
    if (!response.ok) return { ok: false, error: { ...response.error, incomplete: false } };
    return readAskStream(response.value, handlers, this.options.stallTimeoutMs);
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
    return ok({ verdict: status === 401 ? 'refused' : 'forbidden', message: (await errorFromResponse(response.value, this.options.now?.() ?? Date.now())).message });
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
    return readChangelog(this.transport, this.options.baseUrl);
  }

  /** Extension: make a session public (or private again); returns its public page URL. */
  async setSessionVisibility(sessionId: string, isPublic: boolean): Promise<Result<{ url: string | null }>> {
    const shared = await this.call('setSessionVisibility', { params: { id: sessionId }, body: { public: isPublic } }, 'sharing settings');
    return shared.ok ? ok({ url: shared.value.public ? new URL(shared.value.url, this.options.baseUrl).href : null }) : shared;
  }

  private post(path: string, body: unknown, accept: string, signal?: AbortSignal): Promise<Result<Response>> {
    // A stream's deadline covers the headers only; the stall timer watches the body.
    return this.request('POST', path, body, accept, signal, { headersOnly: accept === 'text/event-stream', anonymousOk: path === ENDPOINTS.ask.path });
  }

  private request(...args: RequestArgs): Promise<Result<Response>> {
    return this.transport.request(...args);
  }
}
