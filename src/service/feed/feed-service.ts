/**
 * The live feed: a scheduler over the registered sources that fetches each at its cadence (with
 * jitter), politely (one request at a time per host, a minimum interval between them, robots.txt,
 * conditional GET, Retry-After, capped exponential backoff), turns items into signals the store
 * answers from at once, and keeps the facts its health and the oracle miss rate are computed from.
 * A failure of any kind lands in that source's state; nothing stops the scheduler or another source.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CorpusSource, SourceKind } from '../corpus/generator';
import type { SignalStore } from '../signal-store';
import type { SourceEntry } from '../../shared/service-schemas';
import { canonicalUrl } from './canonical-url';
import { decodeBody } from './charset';
import { htmlToText, listingLinks, readArticle, readDocx, readPdf } from './document-readers';
import { asFeedFailure, FeedFailure } from './feed-failure';
import { HEALTH_RULE, healthOf } from './feed-health';
import { parseFeedDocument } from './feed-parsers';
import { emptyState, InMemoryFeedRepository, type FeedRepository, type FetchRecord, type ProposalRecord, type SourceState } from './feed-repository';
import { fetchResource, type FetchLimits, type FetchResponse } from './http-fetcher';
import { NearDuplicateIndex } from './near-duplicate';
import { RobotsCache } from './robots';
import { extractSignal, type ExtractInput, type FeedSignal } from './signal-extraction';
import { cadenceText, FEED_KINDS, newSourceId, SourceDefinition, urlProblem, type FeedKind, type FeedSourceRecord, type SourceDefinitionInput } from './source-registry';

export interface FeedServiceOptions {
  store: SignalStore;
  repository?: FeedRepository;
  now?: () => number;
  /** Fetch loopback and private addresses (`--allow-private-sources`; tests). */
  allowPrivate?: boolean;
  /** Exact private `host:port` pairs fetched anyway (tests of the SSRF guard; see http-fetcher). */
  allowedPrivateHosts?: string[];
  /** Named in the User-Agent so a site's operator can reach whoever runs the service. */
  contactUrl?: string;
  limits?: Partial<FetchLimits>;
  /** Minimum wait between two requests to one host (default 1 s). */
  politeIntervalMs?: number;
  /** How often the scheduler looks for due sources (default 250 ms). */
  tickMs?: number;
  /** Share of the cadence a fetch time may move either way (default 0.1). */
  jitter?: number;
  /** Longest wait after failures (default 6 h). */
  backoffCapS?: number;
  /** Newest items read from one fetch of a feed (default 2,000). */
  maxItemsPerFetch?: number;
  /** Article pages or linked PDFs read per fetch (default 20). */
  maxDocumentsPerFetch?: number;
  /** Oracle window (default 24 h). */
  oracleWindowMs?: number;
}

export interface SourceView extends FeedSourceRecord {
  state: SourceState;
  health: SourceEntry['health'];
  health_reason: string | null;
}

export interface PreviewItem {
  title: string;
  url: string;
  published_at: string;
  published_at_source: 'item' | 'fetch';
  summary: string;
}

interface Collected {
  items: ExtractInput[];
  response: FetchResponse | null;
  partial: FeedFailure | null;
}

interface OracleItem {
  title: string;
  url: string;
  canonical: string;
  published_at: string;
  text: string;
}

export const USER_AGENT_PRODUCT = 'ClarityRetailSignal';
export const DEFAULT_CONTACT_URL = 'https://github.com/clarity-desktop/clarity-desktop#feed-crawler';

export class FeedService {
  readonly repository: FeedRepository;
  private readonly store: SignalStore;
  private readonly now: () => number;
  private readonly userAgent: string;
  private readonly robots: RobotsCache;
  private readonly signals = new Map<string, FeedSignal>();
  private readonly oracleItems = new Map<string, OracleItem>();
  private readonly duplicates = new NearDuplicateIndex(0.7);
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly hostBusy = new Set<string>();
  private readonly hostLastAt = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Stops fetches under way when the service closes (a hanging source must not hold it open). */
  private readonly stopping = new AbortController();

  constructor(private readonly options: FeedServiceOptions) {
    this.store = options.store;
    this.repository = options.repository ?? new InMemoryFeedRepository();
    this.now = options.now ?? Date.now;
    this.userAgent = `${USER_AGENT_PRODUCT}/1.0 (+${options.contactUrl ?? DEFAULT_CONTACT_URL})`;
    this.robots = new RobotsCache({ userAgent: this.userAgent, productToken: USER_AGENT_PRODUCT, allowPrivate: options.allowPrivate ?? false, allowedPrivateHosts: options.allowedPrivateHosts, signal: this.stopping.signal, now: this.now, limits: options.limits });
    for (const source of this.repository.listSources()) this.register(source);
    for (const signal of this.repository.listSignals()) this.remember(signal, false);
    // A fetched source's entry in the store is the measured one.
    this.store.feedSourceEntry = (id, now) => {
      const source = this.repository.listSources().find((candidate) => candidate.id === id);
      return source ? this.entry(source, now) : null;
    };
  }

  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 250);
    this.timer.unref();
    this.tick();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  sources(): SourceView[] {
    const now = this.now();
    return this.repository.listSources().map((source) => this.view(source, now));
  }

  source(id: string): SourceView | null {
    const source = this.find(id);
    return source ? this.view(source, this.now()) : null;
  }

  history(id: string, limit = 20): FetchRecord[] {
    return this.repository.history(id, limit);
  }

  /** Validates a definition and fetches it once; throws a FeedFailure (no items, unreachable, …) or a message. */
  async preview(input: SourceDefinitionInput): Promise<{ definition: FeedSourceRecord; preview: PreviewItem[] }> {
    const definition = this.definitionOf(input);
    const collected = await this.collect(definition, emptyState(), true);
    const at = new Date(this.now());
    const preview = collected.items
      .map((item) => extractSignal({ ...item, fetchedAt: at }))
      .filter((signal): signal is FeedSignal => signal !== null)
      .slice(0, 20)
      .map((signal) => ({ title: signal.title, url: signal.url, published_at: signal.published_at, published_at_source: signal.published_at_source, summary: signal.summary }));
    if (preview.length === 0) throw collected.partial ?? new FeedFailure('no_items', 'The URL was read but gave no items.');
    return { definition, preview };
  }

  /** Adds a source without fetching it first (sources file); it is fetched at once. */
  add(input: SourceDefinitionInput): FeedSourceRecord {
    const definition = this.definitionOf(input);
    if (this.find(definition.id)) throw new SourceInputError(`A source with id "${definition.id}" already exists.`);
    this.repository.putSource(definition);
    this.register(definition);
    return definition;
  }

  update(id: string, patch: { name?: string; cadence_s?: number; paused?: boolean }): SourceView | null {
    const source = this.find(id);
    if (!source) return null;
    const next = { ...source, ...patch };
    this.repository.putSource(next);
    this.register(next);
    if (patch.cadence_s !== undefined || patch.paused === false) {
      const state = this.repository.getState(id);
      this.repository.putState(id, { ...state, next_fetch_at: new Date(this.now()).toISOString() });
    }
    return this.view(next, this.now());
  }

  remove(id: string): boolean {
    if (!this.find(id)) return false;
    this.repository.deleteSource(id);
    // Its signals stay answerable (they were true when read); the source no longer reports health.
    return true;
  }

  /** Runs one fetch of a source now (the scheduler's own path; tests and accept use it). */
  fetchNow(id: string): Promise<void> {
    const source = this.find(id);
    if (!source) return Promise.resolve();
    return this.run(source);
  }

  /** The measured entries, oracle and stats; the health route caches the result. */
  snapshotParts(now: number) {
    const all = this.repository.listSources();
    const entries = all.map((source) => this.entry(source, now));
    const dayAgo = now - 86_400_000;
    let signals24h = 0;
    for (const signal of this.signals.values()) if (Date.parse(signal.first_seen_at) >= dayAgo) signals24h += 1;
    return { entries, signals24h, oracle: this.oracle(now), health_rule: HEALTH_RULE };
  }

  entry(source: FeedSourceRecord, now: number): SourceEntry {
    const state = this.repository.getState(source.id);
    const { health, reason } = healthOf(state, source.cadence_s, now, source.created_at);
    const dayAgo = now - 86_400_000;
    let items24h = 0;
    let lastItemAt: string | null = null;
    for (const signal of this.signals.values()) {
      if (signal.source_id !== source.id) continue;
      if (Date.parse(signal.first_seen_at) >= dayAgo) items24h += 1;
      if (!lastItemAt || signal.published_at > lastItemAt) lastItemAt = signal.published_at;
    }
    if (source.role === 'oracle') {
      items24h = 0;
      for (const item of this.oracleItems.values()) if (item.canonical.length > 0 && Date.parse(item.published_at) >= dayAgo) items24h += 1;
    }
    return {
      id: source.id,
      name: source.name,
      kind: source.kind,
      health,
      cadence: cadenceText(source.cadence_s),
      items_24h: items24h,
      last_item_at: lastItemAt,
      url: source.url,
      role: source.role,
      paused: source.paused,
      cadence_s: source.cadence_s,
      health_reason: reason,
      last_fetch_at: state.last_fetch_at,
      last_success_at: state.last_success_at,
      consecutive_failures: state.consecutive_failures,
      last_error: state.last_error,
      next_fetch_at: source.paused ? null : state.next_fetch_at,
      not_modified_ratio: state.fetches > 0 ? Math.round((state.not_modified / state.fetches) * 1000) / 1000 : 0,
      items_total: state.items_total,
      origin: 'fetched',
    };
  }

  /**
   * The oracle miss rate: an oracle item published within the window counts once it is older than
   * the grace (2 × the slowest primary cadence), and is missed when no primary signal has its
   * canonical URL or near-duplicate text by then.
   */
  oracle(now: number) {
    const windowMs = this.options.oracleWindowMs ?? 86_400_000;
    const primaries = this.repository.listSources().filter((source) => source.role === 'primary');
    const graceMs = 2 * Math.max(0, ...primaries.map((source) => source.cadence_s)) * 1000;
    const primaryIds = new Set(primaries.map((source) => source.id));
    const primaryUrls = new Set<string>();
    for (const signal of this.signals.values()) if (primaryIds.has(signal.source_id)) primaryUrls.add(signal.canonical_url);
    let counted = 0;
    let matched = 0;
    const misses: OracleItem[] = [];
    for (const item of this.oracleItems.values()) {
      const age = now - Date.parse(item.published_at);
      if (age > windowMs || age < graceMs) continue;
      counted += 1;
      const found = primaryUrls.has(item.canonical) || this.duplicates.matches(item.text, (id) => primaryIds.has(this.signals.get(id)?.source_id ?? ''));
      if (found) matched += 1;
      else misses.push(item);
    }
    misses.sort((a, b) => b.published_at.localeCompare(a.published_at));
    return {
      miss_rate: counted > 0 ? Math.round(((counted - matched) / counted) * 1000) / 1000 : 0,
      window: `${Math.round(windowMs / 3_600_000)}h`,
      grace: `${Math.round(graceMs / 1000)}s`,
      counted,
      matched,
      missed: counted - matched,
      latest_misses: misses.slice(0, 5).map((item) => ({ title: item.title, url: item.url, published_at: item.published_at })),
      updated_at: new Date(now).toISOString(),
    };
  }

  // ── Proposals ───────────────────────────────────────────────────────────────────────────

  /** A proposal is stored, never fetched until an administrator accepts it. */
  propose(input: { url: string; name?: string; kind?: string; rationale?: string }, proposedBy: string): ProposalRecord {
    const proposal: ProposalRecord = {
      id: `prp_${randomBytes(8).toString('hex')}`,
      url: input.url,
      name: input.name ?? null,
      kind: input.kind ?? null,
      note: input.rationale ?? null,
      proposed_by: proposedBy,
      proposed_at: new Date(this.now()).toISOString(),
      status: 'pending',
      decided_at: null,
      reason: null,
      source_id: null,
    };
    this.repository.putProposal(proposal);
    return proposal;
  }

  /**
   * Accepting makes the proposal a source, fetched at once. Its kind is the one asked for, else
   * the proposer's when it is one of ours, else found by reading the URL (a feed, or a listing page).
   */
  async accept(id: string, overrides: { kind?: FeedKind; name?: string; cadence_s?: number } = {}): Promise<{ proposal: ProposalRecord; source: FeedSourceRecord }> {
    const proposal = this.repository.getProposal(id);
    if (!proposal) throw new SourceInputError(`No proposal ${id}.`);
    if (proposal.status !== 'pending') throw new SourceInputError(`Proposal ${id} is already ${proposal.status}.`);
    let kind = overrides.kind ?? (FEED_KINDS as readonly string[]).find((known) => known === proposal.kind) as FeedKind | undefined;
    const name = overrides.name ?? proposal.name ?? new URL(proposal.url).hostname;
    if (!kind) {
      kind = 'rss';
      try {
        await this.preview({ name, kind: 'rss', url: proposal.url });
      } catch (error) {
        if (error instanceof FeedFailure && error.kind === 'not_a_feed') kind = 'html';
      }
    }
    const source = this.add({ name, kind, url: proposal.url, ...(overrides.cadence_s ? { cadence_s: overrides.cadence_s } : {}) });
    const decided: ProposalRecord = { ...proposal, status: 'accepted', decided_at: new Date(this.now()).toISOString(), source_id: source.id };
    this.repository.putProposal(decided);
    return { proposal: decided, source };
  }

  reject(id: string, reason: string): ProposalRecord {
    const proposal = this.repository.getProposal(id);
    if (!proposal) throw new SourceInputError(`No proposal ${id}.`);
    if (proposal.status !== 'pending') throw new SourceInputError(`Proposal ${id} is already ${proposal.status}.`);
    const decided: ProposalRecord = { ...proposal, status: 'rejected', decided_at: new Date(this.now()).toISOString(), reason };
    this.repository.putProposal(decided);
    return decided;
  }

  // ── Scheduling ──────────────────────────────────────────────────────────────────────────

  private tick(): void {
    if (this.closed) return;
    const now = this.now();
    const polite = this.options.politeIntervalMs ?? 1_000;
    for (const source of this.repository.listSources()) {
      if (source.paused || this.inFlight.has(source.id)) continue;
      const state = this.repository.getState(source.id);
      if (state.next_fetch_at && Date.parse(state.next_fetch_at) > now) continue;
      const host = hostOf(source.url);
      if (this.hostBusy.has(host) || now - (this.hostLastAt.get(host) ?? 0) < polite) continue;
      void this.run(source);
    }
  }

  private run(source: FeedSourceRecord): Promise<void> {
    const running = this.inFlight.get(source.id);
    if (running) return running;
    const host = hostOf(source.url);
    this.hostBusy.add(host);
    const done = this.fetchAndIngest(source)
      .catch(() => undefined)
      .finally(() => {
        this.hostBusy.delete(host);
        this.hostLastAt.set(host, this.now());
        this.inFlight.delete(source.id);
      });
    this.inFlight.set(source.id, done);
    return done;
  }

  private async fetchAndIngest(source: FeedSourceRecord): Promise<void> {
    const started = this.now();
    const before = this.repository.getState(source.id);
    const state: SourceState = { ...before, last_fetch_at: new Date(started).toISOString(), fetches: before.fetches + 1 };
    let record: FetchRecord;
    try {
      const collected = await this.collect(source, before, false);
      const fetchedAt = new Date(this.now());
      const { items, newItems } = this.ingest(source, collected.items, fetchedAt);
      const response = collected.response;
      state.consecutive_failures = 0;
      state.last_success_at = fetchedAt.toISOString();
      state.last_partial = collected.partial ? { kind: collected.partial.kind, message: collected.partial.message, at: fetchedAt.toISOString() } : null;
      if (response?.notModified) state.not_modified += 1;
      if (response && !response.notModified) {
        state.etag = headerText(response.headers.etag);
        state.last_modified = headerText(response.headers['last-modified']);
      }
      state.items_total += newItems;
      state.next_fetch_at = new Date(this.now() + this.jittered(source.cadence_s * 1000)).toISOString();
      record = { at: state.last_fetch_at!, ok: true, status: response?.status ?? null, not_modified: response?.notModified ?? false, items, new_items: newItems, duration_ms: this.now() - started, error: collected.partial ? { kind: collected.partial.kind, message: collected.partial.message } : null };
    } catch (error) {
      const failure = asFeedFailure(error);
      const at = new Date(this.now());
      state.consecutive_failures = before.consecutive_failures + 1;
      state.last_error = { kind: failure.kind, message: failure.message, at: at.toISOString() };
      const backoffMs = Math.min(source.cadence_s * 1000 * 2 ** state.consecutive_failures, Math.max(source.cadence_s, this.options.backoffCapS ?? 6 * 3_600) * 1000);
      const waitMs = Math.max(backoffMs, (failure.retryAfterS ?? 0) * 1000);
      state.next_fetch_at = new Date(at.getTime() + this.jittered(waitMs)).toISOString();
      record = { at: state.last_fetch_at!, ok: false, status: null, not_modified: false, items: 0, new_items: 0, duration_ms: at.getTime() - started, error: { kind: failure.kind, message: failure.message } };
    }
    // A source removed while its fetch ran leaves no state behind.
    if (!this.find(source.id)) return;
    this.repository.putState(source.id, state);
    this.repository.appendFetch(source.id, record);
  }

  private jittered(ms: number): number {
    const jitter = this.options.jitter ?? 0.1;
    return Math.max(0, ms * (1 + (Math.random() * 2 - 1) * jitter));
  }

  // ── Reading a source ────────────────────────────────────────────────────────────────────

  private async collect(source: FeedSourceRecord, state: SourceState, preview: boolean): Promise<Collected> {
    if (source.kind === 'folder') return this.collectFolder(source, preview ? emptyState() : state, preview);
    const response = await this.get(source.url, preview ? null : state);
    if (response.notModified) return { items: [], response, partial: null };
    const contentType = headerText(response.headers['content-type']) ?? '';
    if (isPdf(contentType, response.body)) {
      const document = await readPdf(response.body);
      return { items: [{ sourceId: source.id, url: response.url, title: document.title, text: document.text, published: headerText(response.headers['last-modified']), fetchedAt: new Date(this.now()) }], response, partial: null };
    }
    const { text } = decodeBody(response.body, contentType);
    if (source.kind === 'html') return this.collectListing(source, text, response);
    const feed = parseFeedDocument(text, contentType);
    const max = this.options.maxItemsPerFetch ?? 2_000;
    let partial: FeedFailure | null = null;
    let raw = feed.items;
    if (raw.length > max) {
      partial = new FeedFailure('no_items', `The feed lists ${raw.length.toLocaleString('en')} items; the first ${max.toLocaleString('en')} were read.`);
      raw = raw.slice(0, max);
    }
    const items: ExtractInput[] = [];
    let documents = this.options.maxDocumentsPerFetch ?? 20;
    for (const item of raw) {
      const url = item.url ? safeUrl(item.url, response.url) : item.guid && /^https?:/i.test(item.guid) ? item.guid : null;
      if (!url) continue;
      let text = htmlToText(item.contentHtml || item.summaryHtml);
      // PDF links met in any kind are read as documents (new ones only, a few per fetch).
      if (/\.pdf($|\?)/i.test(new URL(url).pathname) && documents > 0 && !this.known(url)) {
        documents -= 1;
        try {
          text = (await this.readDocumentAt(url)).text || text;
        } catch (error) {
          partial ??= asFeedFailure(error);
        }
      }
      items.push({ sourceId: source.id, url, title: htmlToText(item.title), text, summary: htmlToText(item.summaryHtml), published: item.published ?? item.updated, fetchedAt: new Date(this.now()) });
    }
    if (feed.items.length === 0 && preview) throw new FeedFailure('no_items', `The ${feed.format} feed has no items.`);
    return { items, response, partial };
  }

  private async collectListing(source: FeedSourceRecord, html: string, response: FetchResponse): Promise<Collected> {
    const links = listingLinks(html, response.url, source.item_selector);
    if (links.length === 0) throw new FeedFailure('no_items', source.item_selector ? `The selector "${source.item_selector}" matched no links.` : 'The page has no same-site article links in its main content.');
    const items: ExtractInput[] = [];
    let partial: FeedFailure | null = null;
    let budget = this.options.maxDocumentsPerFetch ?? 20;
    for (const link of links) {
      if (this.known(link)) continue;
      if (budget <= 0) break;
      budget -= 1;
      try {
        const document = await this.readDocumentAt(link);
        items.push({ sourceId: source.id, url: link, title: document.title, text: document.text, summary: document.excerpt, published: document.published, fetchedAt: new Date(this.now()) });
      } catch (error) {
        partial ??= asFeedFailure(error);
      }
    }
    return { items, response, partial };
  }

  /** An article page or a PDF, politely (the host's interval is kept between requests). */
  private async readDocumentAt(url: string): Promise<{ title: string; text: string; excerpt: string; published: string | null }> {
    await sleep(this.options.politeIntervalMs ?? 1_000);
    const response = await this.get(url, null);
    const contentType = headerText(response.headers['content-type']) ?? '';
    if (isPdf(contentType, response.body)) {
      const document = await readPdf(response.body);
      return { ...document, excerpt: document.text.slice(0, 280), published: null };
    }
    const { text } = decodeBody(response.body, contentType);
    return readArticle(text, response.url);
  }

  private async collectFolder(source: FeedSourceRecord, state: SourceState, preview: boolean): Promise<Collected> {
    let directory: string;
    let names: string[];
    try {
      directory = fileURLToPath(source.url);
      names = await readdir(directory);
    } catch (error) {
      throw new FeedFailure('unreadable_file', `The folder cannot be read: ${error instanceof Error ? error.message : String(error)}.`);
    }
    const items: ExtractInput[] = [];
    const problems: string[] = [];
    const files: Record<string, string> = {};
    const maxBytes = this.options.limits?.maxBodyBytes ?? 10 * 1024 * 1024;
    for (const name of names.sort()) {
      const extension = extname(name).toLowerCase();
      if (!['.pdf', '.html', '.htm', '.md', '.markdown', '.txt', '.docx'].includes(extension)) continue;
      const path = join(directory, name);
      try {
        const info = await stat(path);
        if (!info.isFile()) continue;
        const key = `${info.mtimeMs}:${info.size}`;
        files[name] = key;
        if (state.files[name] === key) continue;
        if (info.size > maxBytes) throw new Error(`it is over the ${Math.round(maxBytes / 1048576)} MB cap`);
        const bytes = await readFile(path);
        const url = pathToFileURL(path).href;
        const published = info.mtime.toISOString();
        if (extension === '.pdf') {
          const document = await readPdf(bytes);
          items.push({ sourceId: source.id, url, title: document.title || name, text: document.text, published, fetchedAt: new Date(this.now()) });
        } else if (extension === '.docx') {
          const document = await readDocx(bytes);
          items.push({ sourceId: source.id, url, title: document.title || name, text: document.text, published, fetchedAt: new Date(this.now()) });
        } else if (extension === '.html' || extension === '.htm') {
          const article = readArticle(decodeBody(bytes, undefined).text, url);
          items.push({ sourceId: source.id, url, title: article.title || name, text: article.text, summary: article.excerpt, published: article.published ?? published, fetchedAt: new Date(this.now()) });
        } else {
          const text = decodeBody(bytes, undefined).text;
          const firstLine = text.split(/\r?\n/).find((line) => line.trim())?.replace(/^#+\s*/, '').trim() ?? name;
          items.push({ sourceId: source.id, url, title: firstLine.slice(0, 200), text, published, fetchedAt: new Date(this.now()) });
        }
      } catch (error) {
        // A file that fails to read is retried next time (its key is not remembered).
        delete files[name];
        problems.push(`${name}: ${error instanceof FeedFailure ? error.message : error instanceof Error ? error.message : String(error)}`);
      }
    }
    // Remembered when the fetch is ingested, so an unchanged file is not read again.
    if (!preview) this.pendingFiles.set(source.id, files);
    return { items, response: null, partial: problems.length > 0 ? new FeedFailure('unreadable_file', `${problems.length} file${problems.length === 1 ? '' : 's'} could not be read (${problems.join('; ')})`) : null };
  }

  private readonly pendingFiles = new Map<string, Record<string, string>>();

  /** One GET with robots.txt, caps and the status mapped to words. */
  private async get(url: string, state: SourceState | null): Promise<FetchResponse> {
    const refused = await this.robots.check(url);
    if (refused) throw new FeedFailure('robots_disallowed', `Not fetched: ${refused}.`);
    const response = await fetchResource({ url, userAgent: this.userAgent, allowPrivate: this.options.allowPrivate ?? false, allowedPrivateHosts: this.options.allowedPrivateHosts, etag: state?.etag, lastModified: state?.last_modified, limits: this.options.limits, signal: this.stopping.signal });
    if (response.notModified || (response.status >= 200 && response.status < 300)) return response;
    const retryAfterS = retryAfter(headerText(response.headers['retry-after']), this.now());
    const status = response.status;
    if (status === 404) throw new FeedFailure('not_found', `HTTP 404: ${response.url} was not found.`);
    if (status === 410) throw new FeedFailure('gone', `HTTP 410: ${response.url} is gone for good.`);
    if (status === 429) throw new FeedFailure('rate_limited', `HTTP 429: the site asks us to slow down${retryAfterS ? ` (retry after ${retryAfterS} s)` : ''}.`, retryAfterS);
    if (status === 503) throw new FeedFailure('unavailable', `HTTP 503: the site is unavailable${retryAfterS ? ` (retry after ${retryAfterS} s)` : ''}.`, retryAfterS);
    if (status >= 500) throw new FeedFailure('server_error', `HTTP ${status}: the site's server failed.`);
    throw new FeedFailure('http_error', `HTTP ${status} from ${response.url}.`);
  }

  // ── Signals ─────────────────────────────────────────────────────────────────────────────

  private ingest(source: FeedSourceRecord, inputs: ExtractInput[], fetchedAt: Date): { items: number; newItems: number } {
    const files = this.pendingFiles.get(source.id);
    if (files) {
      const state = this.repository.getState(source.id);
      this.repository.putState(source.id, { ...state, files });
      this.pendingFiles.delete(source.id);
    }
    const seen = new Set<string>();
    let newItems = 0;
    for (const input of inputs) {
      const signal = extractSignal({ ...input, fetchedAt });
      if (!signal || seen.has(signal.id)) continue;
      seen.add(signal.id);
      if (source.role === 'oracle') {
        if (!this.oracleItems.has(signal.canonical_url)) newItems += 1;
        this.oracleItems.set(signal.canonical_url, { title: signal.title, url: signal.url, canonical: signal.canonical_url, published_at: signal.published_at, text: `${signal.title} ${signal.summary}` });
        continue;
      }
      const existing = this.signals.get(signal.id);
      if (existing) {
        if (existing.source_id !== source.id || (existing.title === signal.title && existing.body === signal.body)) continue;
        const updated: FeedSignal = {
          ...signal,
          first_seen_at: existing.first_seen_at,
          published_at: signal.published_at_source === 'item' ? signal.published_at : existing.published_at,
          published_at_source: signal.published_at_source === 'item' ? 'item' : existing.published_at_source,
          updated_at: fetchedAt.toISOString(),
          corroborated_by: existing.corroborated_by,
          confidence: existing.confidence,
        };
        this.remember(updated, true);
        continue;
      }
      newItems += 1;
      this.remember(signal, true);
    }
    return { items: inputs.length, newItems };
  }

  /** Keeps a signal, clusters it with its near-duplicates, and hands it to the store. */
  private remember(signal: FeedSignal, persist: boolean): void {
    const isNew = !this.signals.has(signal.id);
    this.signals.set(signal.id, signal);
    const cluster = this.duplicates.add(signal.id, `${signal.title} ${signal.summary}`);
    const members = this.duplicates.membersOf(cluster).map((id) => this.signals.get(id)).filter((member): member is FeedSignal => member !== undefined);
    const sources = new Set(members.map((member) => member.source_id));
    for (const member of members) {
      member.corroborated_by = members.filter((other) => other.id !== member.id && other.source_id !== member.source_id).map((other) => other.id);
      // One source: 0.5; each further independent source adds 0.15, up to 0.95.
      member.confidence = Math.min(0.95, 0.5 + 0.15 * (sources.size - 1));
    }
    if (persist) this.repository.putSignal(signal);
    if (isNew) this.store.addSignal(signal);
    else this.store.updateSignal(signal);
  }

  private known(url: string): boolean {
    const canonical = canonicalUrl(url);
    if (!canonical) return false;
    for (const signal of this.signals.values()) if (signal.canonical_url === canonical) return true;
    return false;
  }

  private definitionOf(input: SourceDefinitionInput): FeedSourceRecord {
    const parsed = SourceDefinition.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SourceInputError(`Invalid field \`${issue?.path.join('.') || 'body'}\`: ${issue?.message ?? 'invalid value'}.`);
    }
    const problem = urlProblem(parsed.data.kind, parsed.data.url);
    if (problem) throw new SourceInputError(problem);
    const id = parsed.data.id ?? newSourceId(parsed.data.name);
    return {
      id,
      name: parsed.data.name,
      kind: parsed.data.kind,
      url: parsed.data.url,
      cadence_s: parsed.data.cadence_s,
      role: parsed.data.role,
      ...(parsed.data.item_selector ? { item_selector: parsed.data.item_selector } : {}),
      paused: parsed.data.paused,
      created_at: new Date(this.now()).toISOString(),
    };
  }

  private find(id: string): FeedSourceRecord | undefined {
    return this.repository.listSources().find((source) => source.id === id);
  }

  private view(source: FeedSourceRecord, now: number): SourceView {
    const state = this.repository.getState(source.id);
    const { health, reason } = healthOf(state, source.cadence_s, now, source.created_at);
    return { ...source, state, health, health_reason: reason };
  }

  /** The store resolves the source's signals to it (name, health) like a sample source. */
  private register(source: FeedSourceRecord): void {
    const corpusSource: CorpusSource = {
      id: source.id,
      name: source.name,
      // Feed kinds are outside the sample's kind list; readers rank unknown kinds as least authoritative.
      kind: source.kind as unknown as SourceKind,
      url: source.url,
      cadence: cadenceText(source.cadence_s),
      dailyRate: 0,
      health: 'degraded',
    };
    // Answers weigh a citation by its source's health: the measured one, read when asked.
    Object.defineProperty(corpusSource, 'health', { enumerable: true, get: () => this.view(source, this.now()).health });
    this.store.registerSource(corpusSource);
  }
}

export class SourceInputError extends Error {}

function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' ? 'file:' : parsed.host;
  } catch {
    return url;
  }
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function isPdf(contentType: string, body: Buffer): boolean {
  return /application\/pdf/i.test(contentType) || body.subarray(0, 5).toString('latin1') === '%PDF-';
}

function safeUrl(raw: string, base: string): string | null {
  try {
    const url = new URL(raw, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Retry-After in seconds (delta-seconds or an HTTP date), capped at a day. */
export function retryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Math.ceil((Date.parse(value) - now) / 1000);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 86_400) : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
