/**
 * Feed documents to raw items: RSS 2.0 and RDF (RSS 1.0), Atom and JSON Feed 1.1.
 * SECURITY: XML goes through src/shared/safe-xml.ts (entity declarations and external DTDs
 * refused before parsing, so no expansion ever runs).
 */
import { parseUntrustedXml, UnsafeXmlError } from '../../shared/safe-xml';
import { FeedFailure } from './feed-failure';

export interface RawItem {
  guid: string | null;
  url: string | null;
  title: string;
  /** HTML or text, as the feed gives it (cleaned later). */
  summaryHtml: string;
  contentHtml: string;
  published: string | null;
  updated: string | null;
}

export interface ParsedFeed {
  format: 'rss' | 'rdf' | 'atom' | 'jsonfeed';
  title: string;
  items: RawItem[];
}

/** Elements that are lists even when a feed has one. */
const LIST_ELEMENTS = ['item', 'entry', 'link', 'category'];

/** Untrusted XML parsed safely; what is refused becomes the source's failure. */
function parseXml(text: string): Record<string, unknown> {
  try {
    return parseUntrustedXml(text, LIST_ELEMENTS);
  } catch (error) {
    if (!(error instanceof UnsafeXmlError)) throw error;
    throw new FeedFailure(error.kind === 'malformed_xml' ? 'malformed_xml' : 'entity_declarations', error.message);
  }
}

export function parseFeedDocument(text: string, contentType: string): ParsedFeed {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('{') || /json/i.test(contentType)) return parseJsonFeed(trimmed);
  if (/^<!DOCTYPE\s+html|^<html[\s>]/i.test(trimmed) || (/text\/html/i.test(contentType) && !trimmed.startsWith('<?xml'))) {
    throw new FeedFailure('not_a_feed', 'The URL returned an HTML page, not a feed (use kind "html" for a listing page).');
  }
  if (!trimmed.startsWith('<')) throw new FeedFailure('not_a_feed', 'The body is neither XML nor JSON: not a feed.');
  const doc = parseXml(trimmed);
  if (isRecord(doc.rss)) return parseRss(doc.rss);
  if (isRecord(doc.RDF)) return parseRdf(doc.RDF);
  if (isRecord(doc.feed)) return parseAtom(doc.feed);
  if (isRecord(doc.html)) throw new FeedFailure('not_a_feed', 'The URL returned an HTML page, not a feed.');
  throw new FeedFailure('not_a_feed', `The XML is not RSS, RDF or Atom (its root is <${Object.keys(doc).find((key) => !key.startsWith('?')) ?? 'nothing'}>).`);
}

function parseRss(rss: Record<string, unknown>): ParsedFeed {
  const channel = isRecord(rss.channel) ? rss.channel : {};
  const items = asArray(channel.item).filter(isRecord);
  return { format: 'rss', title: text(channel.title), items: items.map(rssItem) };
}

function parseRdf(rdf: Record<string, unknown>): ParsedFeed {
  const channel = isRecord(rdf.channel) ? rdf.channel : {};
  return { format: 'rdf', title: text(channel.title), items: asArray(rdf.item).filter(isRecord).map(rssItem) };
}

function rssItem(item: Record<string, unknown>): RawItem {
  const links = asArray(item.link).map((link) => (isRecord(link) ? text(link['@_href'] ?? link['#text']) : text(link))).filter(Boolean);
  const guid = isRecord(item.guid) ? text(item.guid['#text']) : text(item.guid);
  const permalink = isRecord(item.guid) && item.guid['@_isPermaLink'] !== 'false' && /^https?:/i.test(guid) ? guid : null;
  return {
    guid: guid || (isRecord(item) ? text(item['@_about']) : '') || null,
    url: links[0] ?? permalink ?? (text(item['@_about']) || null),
    title: text(item.title),
    summaryHtml: text(item.description),
    contentHtml: text(item.encoded),
    published: text(item.pubDate) || text(item.date) || null,
    updated: text(item.updated) || null,
  };
}

function parseAtom(feed: Record<string, unknown>): ParsedFeed {
  const entries = asArray(feed.entry).filter(isRecord);
  return {
    format: 'atom',
    title: text(feed.title),
    items: entries.map((entry) => {
      const links = asArray(entry.link).filter(isRecord);
      const alternate = links.find((link) => !link['@_rel'] || link['@_rel'] === 'alternate') ?? links[0];
      return {
        guid: text(entry.id) || null,
        url: alternate ? text(alternate['@_href']) || null : null,
        title: text(entry.title),
        summaryHtml: text(entry.summary),
        contentHtml: text(entry.content),
        published: text(entry.published) || text(entry.issued) || null,
        updated: text(entry.updated) || text(entry.modified) || null,
      };
    }),
  };
}

function parseJsonFeed(body: string): ParsedFeed {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (error) {
    throw new FeedFailure('not_a_feed', `The JSON does not parse: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (!isRecord(doc) || typeof doc.version !== 'string' || !doc.version.includes('jsonfeed.org/version/') || !Array.isArray(doc.items)) {
    throw new FeedFailure('not_a_feed', 'The JSON is not a JSON Feed (no "version" naming jsonfeed.org, or no "items" list).');
  }
  return {
    format: 'jsonfeed',
    title: text(doc.title),
    items: doc.items.filter(isRecord).map((item) => ({
      guid: text(item.id) || null,
      url: text(item.url) || text(item.external_url) || null,
      title: text(item.title),
      summaryHtml: text(item.summary),
      contentHtml: text(item.content_html) || escapeText(text(item.content_text)),
      published: text(item.date_published) || null,
      updated: text(item.date_modified) || null,
    })),
  };
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

function text(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return String(value);
  if (isRecord(value)) return text(value['#text']);
  if (Array.isArray(value)) return text(value[0]);
  return '';
}
