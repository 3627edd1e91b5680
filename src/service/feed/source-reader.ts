/**
 * Reading a source once: a feed (RSS, Atom, RSS 1.0, JSON Feed), a listing page and the articles
 * it links to, a PDF, or a local folder of documents, politely (robots.txt, conditional GET, the
 * status in words). What it gives is what the feed service stores (feed-service.ts).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeBody } from './charset';
import { asFeedFailure, FeedFailure } from './feed-failure';
import type { SourceState } from './feed-repository';
import { emptyState } from './feed-repository';
import { fetchResource, type FetchLimits, type FetchResponse } from './http-fetcher';
import type { RobotsCache } from './robots';
import type { ExtractInput } from './signal-extraction';
import type { FeedSourceRecord } from './source-registry';

/**
 * The HTML, XML and document readers (linkedom, readability, htmlparser2, fast-xml-parser: about
 * 200 files) load on the first fetch, not at every start of the service (issue 27: restart_ms).
 */
let readersLoading: Promise<typeof import('./document-readers') & Pick<typeof import('./feed-items'), 'readFeedBody'>> | null = null;
function readers(): NonNullable<typeof readersLoading> {
  if (!readersLoading) {
    readersLoading = Promise.all([import('./document-readers'), import('./feed-items')]).then(([documents, feeds]) => ({ ...documents, readFeedBody: feeds.readFeedBody }));
    // A failed load is tried again at the next fetch rather than remembered.
    readersLoading.catch(() => (readersLoading = null));
  }
  return readersLoading;
}

/** An item the feed gave that was not kept, and why, in words. */
export interface DroppedItem {
  title: string;
  id: string | null;
  reason: string;
}

export interface Collected {
  items: ExtractInput[];
  response: FetchResponse | null;
  partial: FeedFailure | null;
  /** Items the source gave (kept or not); absent where every item is kept. */
  itemsTotal?: number;
  dropped?: DroppedItem[];
  /** The feed's own title (channel/feed <title>), when it has one: what a new source is named by. */
  title?: string | null;
}

export interface SourceReaderOptions {
  robots: RobotsCache;
  userAgent: string;
  allowPrivate?: boolean;
  allowedPrivateHosts?: string[];
  limits?: Partial<FetchLimits>;
  politeIntervalMs?: number;
  maxItemsPerFetch?: number;
  maxDocumentsPerFetch?: number;
  now: () => number;
  /** Stops requests under way when the service closes. */
  signal: AbortSignal;
  /** Whether a link was read already (a PDF or an article is read once). */
  known: (url: string) => boolean;
}

export class SourceReader {
  /** A folder's file keys read by the last fetch, remembered once that fetch is stored. */
  private readonly pendingFiles = new Map<string, Record<string, string>>();

  constructor(private readonly options: SourceReaderOptions) {}

  /** The folder's file keys the last (non-preview) read of the source saw, once. */
  takePendingFiles(sourceId: string): Record<string, string> | undefined {
    const files = this.pendingFiles.get(sourceId);
    this.pendingFiles.delete(sourceId);
    return files;
  }

  async collect(source: FeedSourceRecord, state: SourceState, preview: boolean): Promise<Collected> {
    if (source.kind === 'folder') return this.collectFolder(source, preview ? emptyState() : state, preview);
    const response = await this.get(source.url, preview ? null : state);
    if (response.notModified) return { items: [], response, partial: null };
    const { readPdf, readFeedBody } = await readers();
    const contentType = headerText(response.headers['content-type']) ?? '';
    if (isPdf(contentType, response.body)) {
      const document = await readPdf(response.body);
      return { items: [{ sourceId: source.id, url: response.url, title: document.title, text: document.text, published: headerText(response.headers['last-modified']), fetchedAt: new Date(this.options.now()) }], response, partial: null };
    }
    if (source.kind === 'html') return this.collectListing(source, decodeBody(response.body, contentType).text, response);
    const feed = readFeedBody(response.body, contentType, response.url);
    const max = this.options.maxItemsPerFetch ?? 2_000;
    // An ill-formed feed read anyway: the source's health says so and names the first error.
    let partial: FeedFailure | null = feed.error ? new FeedFailure('malformed_xml', `read with errors (the first: ${feed.error})`) : null;
    let raw = feed.entries.filter((entry) => entry.dropReason === null);
    if (raw.length > max) {
      partial = new FeedFailure('no_items', `The feed lists ${raw.length.toLocaleString('en')} items; the first ${max.toLocaleString('en')} were read.`);
      raw = raw.slice(0, max);
    }
    const items: ExtractInput[] = [];
    let documents = this.options.maxDocumentsPerFetch ?? 20;
    const pageUrl = feed.link && safeUrl(feed.link, response.url) ? safeUrl(feed.link, response.url) : response.url;
    for (const entry of raw) {
      const url = entry.url;
      let text = entry.content || entry.summary;
      // PDF links met in any kind are read as documents (new ones only, a few per fetch).
      if (url && /\.pdf($|\?)/i.test(new URL(url).pathname) && documents > 0 && !this.options.known(url)) {
        documents -= 1;
        try {
          text = (await this.readDocumentAt(url)).text || text;
        } catch (error) {
          partial ??= asFeedFailure(error);
        }
      }
      items.push({ sourceId: source.id, url, guid: entry.guid, pageUrl, feedUrl: source.url, title: entry.title, text, summary: entry.summary, summaryHeadings: entry.summaryHeadings, published: entry.published ?? entry.updated, updated: entry.updated, author: entry.author, categories: entry.categories, enclosures: entry.enclosures, fetchedAt: new Date(this.options.now()) });
    }
    if (feed.entries.length === 0 && preview) throw new FeedFailure('no_items', `The ${feed.format} feed has no items.`);
    return { items, response, partial, itemsTotal: feed.entries.length, dropped: feed.dropped, title: feed.title || null };
  }

  private async collectListing(source: FeedSourceRecord, html: string, response: FetchResponse): Promise<Collected> {
    const { listingLinks } = await readers();
    const links = listingLinks(html, response.url, source.item_selector);
    if (links.length === 0) throw new FeedFailure('no_items', source.item_selector ? `The selector "${source.item_selector}" matched no links.` : 'The page has no same-site article links in its main content.');
    const items: ExtractInput[] = [];
    let partial: FeedFailure | null = null;
    let budget = this.options.maxDocumentsPerFetch ?? 20;
    for (const link of links) {
      if (this.options.known(link)) continue;
      if (budget <= 0) break;
      budget -= 1;
      try {
        const document = await this.readDocumentAt(link);
        items.push({ sourceId: source.id, url: link, title: document.title, text: document.text, summary: document.excerpt, published: document.published, author: document.byline ?? null, fetchedAt: new Date(this.options.now()) });
      } catch (error) {
        partial ??= asFeedFailure(error);
      }
    }
    return { items, response, partial };
  }

  /** An article page or a PDF, politely (the host's interval is kept between requests). */
  private async readDocumentAt(url: string): Promise<{ title: string; text: string; excerpt: string; published: string | null; byline?: string | null }> {
    await sleep(this.options.politeIntervalMs ?? 1_000);
    const response = await this.get(url, null);
    const { readPdf, readArticle } = await readers();
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
    const { readPdf, readDocx, readArticle } = await readers();
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
          items.push({ sourceId: source.id, url, title: document.title || name, text: document.text, published, fetchedAt: new Date(this.options.now()) });
        } else if (extension === '.docx') {
          const document = await readDocx(bytes);
          items.push({ sourceId: source.id, url, title: document.title || name, text: document.text, published, fetchedAt: new Date(this.options.now()) });
        } else if (extension === '.html' || extension === '.htm') {
          const article = readArticle(decodeBody(bytes, undefined).text, url);
          items.push({ sourceId: source.id, url, title: article.title || name, text: article.text, summary: article.excerpt, published: article.published ?? published, author: article.byline, fetchedAt: new Date(this.options.now()) });
        } else {
          const text = decodeBody(bytes, undefined).text;
          const firstLine = text.split(/\r?\n/).find((line) => line.trim())?.replace(/^#+\s*/, '').trim() ?? name;
          items.push({ sourceId: source.id, url, title: firstLine.slice(0, 200), text, published, fetchedAt: new Date(this.options.now()) });
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


  /** One GET with robots.txt, caps and the status mapped to words. */
  private async get(url: string, state: SourceState | null): Promise<FetchResponse> {
    const refused = await this.options.robots.check(url);
    if (refused) throw new FeedFailure('robots_disallowed', `Not fetched: ${refused}.`);
    const response = await fetchResource({ url, userAgent: this.options.userAgent, allowPrivate: this.options.allowPrivate ?? false, allowedPrivateHosts: this.options.allowedPrivateHosts, etag: state?.etag, lastModified: state?.last_modified, limits: this.options.limits, signal: this.options.signal });
    if (response.notModified || (response.status >= 200 && response.status < 300)) return response;
    const retryAfterS = retryAfter(headerText(response.headers['retry-after']), this.options.now());
    const status = response.status;
    if (status === 404) throw new FeedFailure('not_found', `HTTP 404: ${response.url} was not found.`);
    if (status === 410) throw new FeedFailure('gone', `HTTP 410: ${response.url} is gone for good.`);
    if (status === 429) throw new FeedFailure('rate_limited', `HTTP 429: the site asks us to slow down${retryAfterS ? ` (retry after ${retryAfterS} s)` : ''}.`, retryAfterS);
    if (status === 503) throw new FeedFailure('unavailable', `HTTP 503: the site is unavailable${retryAfterS ? ` (retry after ${retryAfterS} s)` : ''}.`, retryAfterS);
    if (status >= 500) throw new FeedFailure('server_error', `HTTP ${status}: the site's server failed.`);
    throw new FeedFailure('http_error', `HTTP ${status} from ${response.url}.`);
  }
}

export function headerText(value: string | string[] | undefined): string | null {
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

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
