/**
 * The sources a Retail Signal service fetches, managed from the app (issue 26, part 6): list with
 * the facts behind each health, fetch history, preview and add, edit, pause, remove, and the
 * proposals queue. Every call goes to the service's admin surface (`/api/v1/sources`).
 *
 * Who is administrator is the service's answer, never the app's guess: on the embedded service
 * the app presents the admin token its supervisor obtained (local-service-supervisor.ts); on a
 * remote one, the analyst's own credential, and `GET /api/v1/sources` answering 200 (not 401/403)
 * is what shows the controls.
 * SECURITY: credentials stay in the client's one header; nothing here returns or logs them.
 */
import type { z } from 'zod';
import { fail, ok, type Result } from '../../../shared/bridge-contract';
import type { EndpointId, Endpoints } from '../../../shared/endpoints/table';
import type { ResponseOf } from '../../../shared/endpoints/define';
import { FeedSource, type DroppedItem, type FeedSourceDryRun, type FetchRecord, type QueuedProposal } from '../../../shared/feed-source-schemas';
import type { DroppedItemView, FetchRecordView, FetchedSource, NewSourceArgs, ProposalView, SourceHealth, SourcePreview, SourcesOverview } from '../../../shared/sources';
import { RetailSignalClient, type CallInput, type Credential } from '../service-client/api-client';
import { privateHostOf, sourceHostOf } from './private-hosts';

/** What the analyst typed in "Add a source", validated (defaults applied) by the bridge. */
export type NewSource = z.output<typeof NewSourceArgs>;

const HEALTH: readonly SourceHealth[] = ['healthy', 'degraded', 'down', 'unknown'];

export interface SourceAdminDeps {
  /** Which service is in use: its mode and base URL (null while it starts or is unreachable). */
  service: () => { mode: 'local' | 'remote'; baseUrl: string | null };
  /** The embedded service's admin token (its supervisor's); null where none was granted. */
  localAdminToken: () => string | null;
  /** The analyst's own credential (the keychain), for a remote service. */
  userCredential: () => Promise<Credential | null>;
  /** Origins besides the service's that the user trusts (Settings); the client's rule. */
  trustedOrigins?: () => readonly string[];
  /** Private hosts the analyst allowed the embedded service to fetch (issue 47); none by default. */
  allowedHosts?: () => readonly string[];
  /** Whether an address is on a private network (tests give a resolver of their own). */
  privateHost?: (url: string) => Promise<string | null>;
  fetch?: typeof fetch;
}

/** The sample's description changes only with a restart: asked at most once a minute. */
const SAMPLE_TTL_MS = 60_000;
/** Longer than this, the service's word on its sample is not shown. */
const SAMPLE_NOTE_MAX = 500;

export class SourceAdmin {
  private sampleNote: { baseUrl: string; at: number; text: string | null } | null = null;

  constructor(private readonly deps: SourceAdminDeps) {}

  /** The sources with their health facts, the proposals, and whether the analyst may manage them. */
  async overview(): Promise<Result<SourcesOverview>> {
    const { mode } = this.deps.service();
    const api = this.client();
    if (!api.ok) return ok(this.closed(mode, 'unavailable', api.error.message));
    const listed = await api.value.call('listFeedSources', {}, 'a source list');
    if (!listed.ok) {
      const status = listed.error.status;
      if (status === 401 || status === 403) return ok(this.closed(mode, 'not_admin', this.notAdminReason(mode, status, listed.error.message)));
      if (status === 404 || status === 405) return ok(this.closed(mode, 'unsupported', 'This service does not let the app manage its sources (it has no /api/v1/sources).'));
      return ok(this.closed(mode, 'unavailable', listed.error.message));
    }
    // Each source on its own (the row reads the array as anything): one the app cannot read is left out, not the list.
    const sources = listed.value.sources.flatMap((raw) => {
      const parsed = FeedSource.safeParse(raw);
      return parsed.success ? [sourceView(parsed.data)] : [];
    });
    const proposals = await api.value.call('listSourceProposals', {}, 'a proposal list');
    const sample = await this.sample(api.value);
    return ok({
      access: 'admin',
      accessReason: null,
      mode,
      sources,
      healthRule: listed.value.health_rule ?? null,
      proposals: proposals.ok ? proposals.value.proposals.map(proposalView).sort((a, b) => b.proposedAt.localeCompare(a.proposedAt)) : null,
      proposalsError: proposals.ok ? null : proposals.error.message,
      sample,
    });
  }

  /** The health snapshot's word on the synthetic sample (`off` and silence both give null). */
  private async sample(api: RetailSignalClient): Promise<string | null> {
    const cached = this.sampleNote;
    if (cached && cached.baseUrl === api.baseUrl && Date.now() - cached.at < SAMPLE_TTL_MS) return cached.text;
    const read = await api.call('getSourcesHealth', {}, 'a health snapshot');
    // `sample` is this service's extension of the snapshot: a short sentence, or `off`.
    const said = read.ok ? read.value.sample : null;
    const text = typeof said === 'string' && said !== 'off' && said.length <= SAMPLE_NOTE_MAX ? said : null;
    this.sampleNote = { baseUrl: api.baseUrl, at: Date.now(), text };
    return text;
  }

  async history(id: string): Promise<Result<{ source: FetchedSource; history: FetchRecordView[] }>> {
    const read = await this.call('getFeedSource', { params: { id } }, 'a source');
    if (!read.ok) return read;
    return ok({ source: sourceView(read.value.source), history: (read.value.history ?? []).map(fetchView) });
  }

  /** Fetches the address once (`?dry_run=true`): the items it would give, nothing added. */
  async preview(args: NewSource): Promise<Result<SourcePreview>> {
    const consent = await this.askConsent(args.url);
    if (consent) return consent;
    const read = await this.call('addFeedSource', { query: new URLSearchParams({ dry_run: 'true' }), body: definitionBody(args) }, 'a preview');
    if (!read.ok) return this.inWords(withWhyNoItems(read), args.url);
    // No name typed: the feed's own title names it ("Open world desk"), the host only when it has none.
    const view = previewView(read.value);
    const feedTitle = typeof read.value.feed_title === 'string' ? read.value.feed_title.trim() : '';
    return ok(args.name || !feedTitle ? view : { ...view, source: { ...view.source, name: feedTitle } });
  }

  async add(args: NewSource): Promise<Result<{ source: FetchedSource; preview: SourcePreview }>> {
    const consent = await this.askConsent(args.url);
    if (consent) return consent;
    const body = definitionBody(args);
    const read = await this.call('addFeedSource', { body }, 'the new source');
    if (!read.ok) return this.inWords(withWhyNoItems(read), args.url);
    // A 201 carries the stored source; a 200 is a dry run's answer, which this request did not ask for.
    const created = FeedSource.safeParse(read.value.source);
    if (!created.success) return fail({ code: 'bad_response', message: 'The service answered the new source with a preview only; nothing says it was added.' });
    const source = sourceView(created.data);
    return ok({ source, preview: previewView({ source: { name: source.name, kind: source.kind, url: source.url, cadence_s: source.cadenceS }, preview: read.value.preview, items_total: read.value.items_total, dropped: read.value.dropped, read_with_errors: read.value.read_with_errors }) });
  }

  async update(id: string, patch: { name?: string; cadenceS?: number; paused?: boolean }): Promise<Result<FetchedSource>> {
    const body = { ...(patch.name !== undefined ? { name: patch.name } : {}), ...(patch.cadenceS !== undefined ? { cadence_s: patch.cadenceS } : {}), ...(patch.paused !== undefined ? { paused: patch.paused } : {}) };
    const read = await this.call('updateFeedSource', { params: { id }, body }, 'the source');
    return read.ok ? ok(sourceView(read.value.source)) : read;
  }

  async remove(id: string): Promise<Result<{ removed: true }>> {
    const read = await this.call('deleteFeedSource', { params: { id } }, 'an answer');
    return read.ok ? ok({ removed: true }) : read;
  }

  async accept(id: string, options: { kind?: string; name?: string; cadenceS?: number }): Promise<Result<{ proposal: ProposalView; source: FetchedSource }>> {
    const body = { ...(options.kind ? { kind: options.kind } : {}), ...(options.name ? { name: options.name } : {}), ...(options.cadenceS ? { cadence_s: options.cadenceS } : {}) };
    const read = await this.call('acceptSourceProposal', { params: { id }, body }, 'the accepted proposal');
    if (!read.ok) return withWhyNoItems(read);
    return ok({ proposal: proposalView(read.value.proposal), source: sourceView(read.value.source) });
  }

  async reject(id: string, reason: string): Promise<Result<ProposalView>> {
    const read = await this.call('rejectSourceProposal', { params: { id }, body: { reason } }, 'the rejected proposal');
    return read.ok ? ok(proposalView(read.value.proposal)) : read;
  }

  /**
   * Issue 47: on the embedded service, a source on the analyst's private network is fetched only
   * after they say yes to its host (sources.allowHost); until then the view asks, by this error.
   * A remote service keeps its own rules (inWords below).
   */
  private async askConsent(url: string): Promise<Result<never> | null> {
    // Only where the host keeps the analyst's answers (compose-services gives allowedHosts).
    if (this.deps.service().mode !== 'local' || !this.deps.allowedHosts) return null;
    const host = await (this.deps.privateHost ?? privateHostOf)(url);
    if (!host || this.deps.allowedHosts().includes(host)) return null;
    return fail({ code: 'private_host', host, message: `${host} is on your private network. Fetch it from this computer?` });
  }

  /** A remote service's refusal of a private address, said as the analyst can act on it. */
  private inWords<T>(result: Result<T>, url: string): Result<T> {
    if (result.ok || this.deps.service().mode !== 'remote' || !/private|loopback|reserved address/i.test(result.error.message)) return result;
    const host = sourceHostOf(url) ?? url;
    const service = this.deps.service().baseUrl;
    const where = service ? new URL(service).host : 'The service';
    return fail({ ...result.error, message: `${where} does not fetch ${host}: it is on a private network, and that service fetches only public addresses. Ask its administrator, or add the source on the local service.` });
  }

  /** One call to a row of the endpoint table, on the admin client. */
  private async call<Id extends EndpointId>(id: Id, input: CallInput<Endpoints[Id]>, what: string): Promise<Result<ResponseOf<Endpoints[Id]>>> {
    const api = this.client();
    if (!api.ok) return api;
    return api.value.call(id, input, what);
  }

  /**
   * A client for the admin surface of the service in use, with the credential that may hold the
   * right: the supervisor's admin token on the embedded service, the analyst's own on a remote one.
   */
  private client(): Result<RetailSignalClient> {
    const { mode, baseUrl } = this.deps.service();
    if (!baseUrl) return fail({ code: 'unavailable', message: 'The service is not ready yet.' });
    const credential = mode === 'local' ? async (): Promise<Credential | null> => {
      const token = this.deps.localAdminToken();
      return token ? { secret: token, presentAs: 'bearer' } : null;
    } : this.deps.userCredential;
    return ok(new RetailSignalClient({ baseUrl, fetch: this.deps.fetch, credential, trustedOrigins: this.deps.trustedOrigins }));
  }

  private notAdminReason(mode: 'local' | 'remote', status: number, said: string): string {
    if (mode === 'local') return `The local service did not make this app its administrator, so its sources cannot be managed here (it said: “${said}”). Restart the local service from Settings to try again.`;
    if (status === 401) return `Only the service's administrator manages its sources. Your credential is missing or was not accepted (“${said}”); set one in Settings.`;
    return `Only the service's administrator manages its sources, and your credential is not an administrator's (the service said: “${said}”). You can still propose a source to its administrator.`;
  }

  private closed(mode: 'local' | 'remote', access: SourcesOverview['access'], reason: string): SourcesOverview {
    return { access, accessReason: reason, mode, sources: [], healthRule: null, proposals: null, proposalsError: null, sample: null };
  }
}

/** The service's source definition from what the analyst typed; a blank name becomes the host's. */
function definitionBody(args: NewSource): Record<string, unknown> {
  return {
    url: args.url,
    kind: args.kind,
    name: args.name || nameFromUrl(args.url),
    cadence_s: args.cadenceS,
    ...(args.itemSelector ? { item_selector: args.itemSelector } : {}),
  };
}

function nameFromUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol === 'file:') return decodeURIComponent(url.pathname.split('/').filter(Boolean).at(-1) ?? 'Folder');
    return url.hostname.replace(/^www\./, '') || raw;
  } catch {
    return raw.slice(0, 200);
  }
}

/** A 422 is the service saying the address gave no items: keep its reason, say what to try. */
function withWhyNoItems<T>(result: Result<T>): Result<T> {
  if (result.ok || result.error.status !== 422) return result;
  return fail({ ...result.error, message: `${result.error.message} Check the address and the kind (a listing page is “html”; a folder is file:///…).` });
}

/** The service's word if it is one the app knows, else `fallback` (the old catch-all defaults). */
function known<T extends string>(value: string | undefined, words: readonly T[], fallback: T): T {
  return (words as readonly string[]).includes(value ?? '') ? (value as T) : fallback;
}

function problem(raw: z.infer<typeof FeedSource>['last_error']): FetchedSource['lastError'] {
  return raw ? { kind: raw.kind ?? 'error', message: raw.message ?? '', at: raw.at ?? null } : null;
}

function sourceView(raw: FeedSource): FetchedSource {
  return {
    id: raw.id,
    name: raw.name,
    kind: raw.kind,
    url: raw.url,
    role: known(raw.role, ['primary', 'oracle'], 'primary'),
    paused: raw.paused ?? false,
    cadenceS: raw.cadence_s,
    cadence: raw.cadence ?? '',
    health: known(raw.health, HEALTH, 'unknown'),
    healthReason: raw.health_reason ?? null,
    lastFetchAt: raw.last_fetch_at ?? null,
    lastSuccessAt: raw.last_success_at ?? null,
    nextFetchAt: raw.next_fetch_at ?? null,
    consecutiveFailures: raw.consecutive_failures ?? 0,
    lastError: problem(raw.last_error),
    items24h: raw.items_24h ?? 0,
    itemsTotal: raw.items_total ?? 0,
    notModifiedRatio: raw.not_modified_ratio ?? 0,
    lastItemAt: raw.last_item_at ?? null,
    createdAt: raw.created_at ?? null,
  };
}

function fetchView(raw: z.infer<typeof FetchRecord>): FetchRecordView {
  return {
    at: raw.at,
    ok: raw.ok,
    status: raw.status ?? null,
    notModified: raw.not_modified ?? false,
    items: raw.items ?? 0,
    newItems: raw.new_items ?? 0,
    durationMs: raw.duration_ms ?? 0,
    error: problem(raw.error),
    // A fetch that succeeded with an error is a feed read anyway: its message names the first error.
    readWithErrors: raw.ok && raw.error?.kind === 'malformed_xml' ? (raw.error.message ?? null) : null,
    itemsTotal: raw.items_total ?? null,
    dropped: (raw.dropped ?? []).map(droppedView),
  };
}

function droppedView(raw: z.infer<typeof DroppedItem>): DroppedItemView {
  return { title: raw.title, id: raw.id, reason: raw.reason };
}

/** A dry run's answer and a creation's share these: the definition and the items found. */
type PreviewAnswer = Pick<z.infer<typeof FeedSourceDryRun>, 'source' | 'preview' | 'items_total' | 'dropped' | 'read_with_errors'>;

function previewView(raw: PreviewAnswer): SourcePreview {
  return {
    source: { name: raw.source.name, kind: raw.source.kind, url: raw.source.url, cadenceS: raw.source.cadence_s ?? 900 },
    items: raw.preview.map((item) => ({
      title: item.title ?? '',
      url: item.url ?? null,
      publishedAt: item.published_at ?? '',
      publishedAtSource: known(item.published_at_source, ['item', 'fetch'], 'item'),
      summary: item.summary ?? '',
    })),
    itemsTotal: raw.items_total ?? raw.preview.length,
    dropped: (raw.dropped ?? []).map(droppedView),
    readWithErrors: raw.read_with_errors ?? null,
  };
}

function proposalView(raw: z.infer<typeof QueuedProposal>): ProposalView {
  return {
    id: raw.id,
    url: raw.url,
    name: raw.name ?? null,
    kind: raw.kind ?? null,
    note: raw.note ?? null,
    proposedBy: raw.proposed_by ?? null,
    proposedAt: raw.proposed_at ?? '',
    status: known(raw.status, ['pending', 'accepted', 'rejected'], 'pending'),
    decidedAt: raw.decided_at ?? null,
    reason: raw.reason ?? null,
    sourceId: raw.source_id ?? null,
  };
}
