/**
 * Feed documents to raw items, field by field as Python's feedparser reads them: RSS 0.9x/2.0,
 * RDF (RSS 1.0), Atom 0.3/1.0 and JSON Feed 1.1. XML is read strictly first (to name the first
 * error) and always through the forgiving tree (xml-tree.ts), so an ill-formed feed still gives
 * its entries and says what was wrong.
 * SECURITY: entity declarations and external DTDs are refused before any parser sees the text
 * (src/shared/safe-xml.ts): no expansion ever runs, nothing is ever loaded.
 */
import { XMLValidator } from 'fast-xml-parser';
import { refuseEntityDeclarations, UnsafeXmlError } from '../../shared/safe-xml';
import { FeedFailure } from './feed-failure';
import { parseFeedDate } from './feed-dates';
import { attr, childElements, innerXml, parseXmlTree, resolveAgainst, textOf, type XmlElement } from './xml-tree';

/** A text construct as the feed gave it: `html` is markup (or escaped markup), `text` is literal. */
export interface FeedText {
  value: string;
  type: 'text' | 'html';
}

export interface RawItem {
  guid: string | null;
  url: string | null;
  title: FeedText;
  summary: FeedText;
  content: FeedText;
  /** ISO 8601 (UTC, to the second), or null. */
  published: string | null;
  updated: string | null;
  author: string | null;
  categories: string[];
  enclosures: string[];
}

export interface ParsedFeed {
  format: 'rss' | 'rdf' | 'atom' | 'jsonfeed';
  title: FeedText;
  link: string | null;
  language: string | null;
  items: RawItem[];
  /** The first error of an ill-formed document that was read anyway; null when well-formed. */
  error: string | null;
}

const EMPTY: FeedText = { value: '', type: 'text' };
const RSS_NS = new Set(['', 'rss1', 'rss09']);
const ATOM_NS = new Set(['atom', 'atom03']);

export function parseFeedDocument(text: string, contentType: string, url = ''): ParsedFeed {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('{') || /json/i.test(contentType)) return parseJsonFeed(trimmed);
  if (/^<!DOCTYPE\s+html|^<html[\s>]/i.test(trimmed) || (/text\/html/i.test(contentType) && !trimmed.startsWith('<?xml') && !/^<(rss|feed|rdf:RDF)[\s>]/i.test(trimmed))) {
    throw new FeedFailure('not_a_feed', 'The URL returned an HTML page, not a feed (use kind "html" for a listing page).');
  }
  if (!trimmed.startsWith('<')) throw new FeedFailure('not_a_feed', 'The body is neither XML nor JSON: not a feed.');
  try {
    refuseEntityDeclarations(trimmed);
  } catch (error) {
    if (error instanceof UnsafeXmlError) throw new FeedFailure('entity_declarations', error.message);
    throw error;
  }
  const valid = XMLValidator.validate(trimmed);
  const error = valid === true ? null : `${valid.err.msg} (line ${valid.err.line})`;
  const root = parseXmlTree(trimmed, url).find((element) => ['rss', 'rdf', 'feed', 'html', 'channel'].includes(element.local)) ?? parseXmlTree(trimmed, url)[0];
  if (!root) throw new FeedFailure(error ? 'malformed_xml' : 'not_a_feed', error ? `The XML is malformed: ${error}.` : 'The document is empty: not a feed.');
  if (root.local === 'rss' || (root.local === 'channel' && root.ns !== 'rss1')) return { ...parseRss(root, root.local === 'rss' ? 'rss' : 'rss'), error };
  if (root.local === 'rdf') return { ...parseRss(root, 'rdf'), error };
  if (root.local === 'feed') return { ...parseAtom(root, url), error };
  if (root.local === 'html') throw new FeedFailure('not_a_feed', 'The URL returned an HTML page, not a feed.');
  throw new FeedFailure('not_a_feed', `The XML is not RSS, RDF or Atom (its root is <${root.local}>).`);
}

// ── Helpers over the tree ───────────────────────────────────────────────────────────────────

function children(element: XmlElement, local: string, namespaces?: Set<string> | string): XmlElement[] {
  return childElements(element).filter((child) => child.local === local && (namespaces === undefined || (typeof namespaces === 'string' ? child.ns === namespaces : namespaces.has(child.ns))));
}

function first(element: XmlElement, local: string, namespaces?: Set<string> | string): XmlElement | undefined {
  return children(element, local, namespaces)[0];
}

/** The first of several aliases in document order (feedparser keeps the first it meets). */
function firstOf(element: XmlElement, aliases: Array<[string, Set<string> | string]>): XmlElement | undefined {
  return childElements(element).find((child) => aliases.some(([local, ns]) => child.local === local && (typeof ns === 'string' ? child.ns === ns : ns.has(child.ns))));
}

/** The last of several aliases: feedparser overwrites dates and authors with each one it meets. */
function lastOf(element: XmlElement, aliases: Array<[string, Set<string> | string]>): XmlElement | undefined {
  return childElements(element).findLast((child) => aliases.some(([local, ns]) => child.local === local && (typeof ns === 'string' ? child.ns === ns : ns.has(child.ns))));
}

function plainText(element: XmlElement | undefined): string {
  return element ? textOf(element).trim() : '';
}

/** Text that may carry markup (RSS titles, descriptions): HTML when it looks like HTML. */
function looseText(element: XmlElement | undefined): FeedText {
  if (!element) return EMPTY;
  if (childElements(element).length > 0) return { value: innerXml(element).trim(), type: 'html' };
  const value = textOf(element).trim();
  return { value, type: /<\/?[a-z][^>]*>|&(#\d+|#x[\da-f]+|[a-z][a-z\d]*);/i.test(value) ? 'html' : 'text' };
}

/** An Atom text construct: type text/html/xhtml (or a MIME type), Atom 0.3's mode escaped/base64/xml. */
function atomText(element: XmlElement | undefined): FeedText {
  if (!element) return EMPTY;
  const type = (attr(element, 'type') ?? '').toLowerCase().trim();
  const mode = (attr(element, 'mode') ?? '').toLowerCase().trim();
  const isHtmlType = type === 'html' || type === 'text/html';
  const isXmlType = type === 'xhtml' || type === 'application/xhtml+xml' || (/[/+]xml$/.test(type) && !isHtmlType);
  if (mode === 'base64' || (type !== '' && !isXmlType && !isHtmlType && !type.startsWith('text') && type !== 'text')) {
    // Atom 1.0: a non-text, non-XML MIME type is base64; Atom 0.3 says so with mode="base64".
    const decoded = decodeBase64(textOf(element));
    if (decoded !== null) return { value: decoded.trim(), type: isHtmlType ? 'html' : 'text' };
  }
  if (isXmlType || mode === 'xml' || (childElements(element).length > 0 && !isHtmlType && mode !== 'escaped')) {
    const elements = childElements(element);
    const onlyDiv = elements.length === 1 && elements[0]!.local === 'div' && element.children.every((node) => typeof node !== 'string' || !node.trim());
    return { value: innerXml(onlyDiv ? elements[0]! : element).trim(), type: 'html' };
  }
  if (isHtmlType || mode === 'escaped') return { value: textOf(element).trim(), type: 'html' };
  return { value: textOf(element).trim(), type: 'text' };
}

function decodeBase64(text: string): string | null {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length === 0) return null;
  return Buffer.from(compact, 'base64').toString('utf8');
}

function dateOf(element: XmlElement | undefined): string | null {
  return element ? parseFeedDate(textOf(element)) : null;
}

/** Atom's person construct, or RSS's author text, as feedparser gives it ("name (email)"). */
function personOf(element: XmlElement | undefined): string | null {
  if (!element) return null;
  const name = plainText(first(element, 'name'));
  const email = plainText(first(element, 'email'));
  if (name || email) return name && email ? `${name} (${email})` : name || email;
  return plainText(element) || null;
}

/** The link a reader follows: rel="alternate" (text/html first), then no rel, then any. */
function atomLink(element: XmlElement): string | null {
  const links = linkElements(element).filter((link) => hrefOf(link));
  const relOf = (link: XmlElement): string => (attr(link, 'rel') ?? 'alternate').trim().toLowerCase();
  const htmlType = (link: XmlElement): boolean => /html/i.test(attr(link, 'type') ?? 'text/html');
  const chosen = links.find((link) => relOf(link) === 'alternate' && htmlType(link)) ?? links.find((link) => relOf(link) === 'alternate');
  return chosen ? resolveAgainst(hrefOf(chosen)!, chosen) : null;
}

/** Atom links, and (as feedparser reads them) Atom-style `<link href>` written in RSS without a namespace. */
function linkElements(element: XmlElement): XmlElement[] {
  return childElements(element).filter((child) => child.local === 'link' && (ATOM_NS.has(child.ns) || (RSS_NS.has(child.ns) && attr(child, 'href') !== null)));
}

/** An Atom link's target: its href, or (Atom 0.3 in the wild) its text. */
function hrefOf(link: XmlElement): string | null {
  return attr(link, 'href')?.trim() || plainText(link) || null;
}

/** Categories as feedparser's tags: RSS category, Atom category@term, dc:subject, iTunes and Media RSS categories; each once. */
function categoriesOf(element: XmlElement): string[] {
  const terms: string[] = [];
  const visit = (parent: XmlElement): void => {
    for (const child of childElements(parent)) {
      if (child.local === 'category' && ATOM_NS.has(child.ns)) terms.push((attr(child, 'term') ?? '').trim());
      else if (child.local === 'category' && RSS_NS.has(child.ns)) terms.push(childElements(child).length > 0 ? (child.children.find((node) => typeof node === 'string') as string | undefined ?? '').trim() : plainText(child));
      else if (child.local === 'subject' && child.ns === 'dc') terms.push(plainText(child));
      else if (child.local === 'category' && child.ns === 'media') terms.push(plainText(child));
      else if (child.local === 'category' && child.ns === 'itunes') {
        terms.push((attr(child, 'text') ?? '').trim());
        visit(child);
      }
    }
  };
  visit(element);
  return [...new Set(terms.filter(Boolean))];
}

// ── RSS and RDF ─────────────────────────────────────────────────────────────────────────────

function parseRss(root: XmlElement, format: 'rss' | 'rdf'): Omit<ParsedFeed, 'error'> {
  const channel = root.local === 'channel' ? root : first(root, 'channel') ?? root;
  const items = [...children(root, 'item'), ...(channel === root ? [] : children(channel, 'item'))];
  const channelLink = firstOf(channel, [['link', RSS_NS]]);
  // Microsoft's CDF (<CHANNEL HREF BASE LASTMOD>, <ITEM HREF>, <ABSTRACT>), which feedparser reads as RSS.
  const cdfBase = attr(channel, 'base') ? resolveAgainst(attr(channel, 'base')!, channel) : channel.base;
  return {
    format,
    title: looseText(firstOf(channel, [['title', RSS_NS], ['title', 'dc']])),
    link: (channelLink && plainText(channelLink) ? resolveAgainst(plainText(channelLink), channelLink) : null) ?? atomLink(channel) ?? cdfHref(channel, cdfBase),
    language: plainText(firstOf(channel, [['language', RSS_NS], ['language', 'dc']])) || root.lang || null,
    items: items.map((item) => rssItem(item, cdfBase)),
  };
}

/** A CDF element's HREF attribute, resolved against the channel's BASE (or the document). */
function cdfHref(element: XmlElement, base: string): string | null {
  const href = attr(element, 'href')?.trim();
  if (!href) return null;
  try {
    return new URL(href, base || undefined).href;
  } catch {
    return null;
  }
}

function rssItem(item: XmlElement, cdfBase: string): RawItem {
  const linkElement = children(item, 'link', RSS_NS).find((link) => plainText(link));
  const guidElement = first(item, 'guid') ?? first(item, 'id', RSS_NS) ?? first(item, 'id', ATOM_NS);
  const guid = plainText(guidElement);
  const guidIsLink = guidElement !== undefined && (attr(guidElement, 'isPermaLink') ?? 'true').trim().toLowerCase() === 'true';
  const about = attr(item, 'about');
  const url = linkElement ? resolveAgainst(plainText(linkElement), linkElement) : atomLink(item) ?? (guidIsLink && guid ? resolveAgainst(guid, guidElement!) : null) ?? cdfHref(item, cdfBase);
  const contentElement = first(item, 'encoded', 'content') ?? first(item, 'body', 'xhtml') ?? first(item, 'body', '') ?? first(item, 'fullitem', '');
  const contentText = contentElement?.local === 'body' ? { value: innerXml(contentElement).trim(), type: 'html' as const } : contentElement ? { value: textOf(contentElement).trim(), type: 'html' as const } : EMPTY;
  const description = firstOf(item, [['description', RSS_NS], ['description', 'dc'], ['summary', ATOM_NS], ['summary', RSS_NS], ['abstract', RSS_NS]]) ?? first(item, 'summary', 'itunes');
  return {
    guid: guid || (about ? about.trim() : null),
    url,
    title: looseText(firstOf(item, [['title', RSS_NS], ['title', 'dc'], ['title', ATOM_NS]])),
    summary: description ? (description.ns === 'atom' ? atomText(description) : { ...looseText(description), type: 'html' }) : EMPTY,
    content: contentText,
    published: dateOf(lastOf(item, [['pubdate', RSS_NS], ['issued', 'dcterms'], ['published', ATOM_NS], ['issued', ATOM_NS]])),
    updated: dateOf(lastOf(item, [['date', 'dc'], ['modified', 'dcterms'], ['updated', ATOM_NS], ['modified', ATOM_NS], ['updated', RSS_NS], ['lastbuilddate', RSS_NS]])) ?? parseFeedDate(attr(item, 'lastmod') ?? ''),
    author: personOf(lastOf(item, [['author', RSS_NS], ['creator', 'dc'], ['author', 'dc'], ['author', ATOM_NS], ['author', 'itunes']])),
    categories: categoriesOf(item),
    enclosures: [
      ...children(item, 'enclosure').map((enclosure) => attr(enclosure, 'url') ?? attr(enclosure, 'href')),
      ...linkElements(item).filter((link) => attr(link, 'rel') === 'enclosure').map(hrefOf),
    ].filter((href): href is string => Boolean(href)).map((href) => resolveAgainst(href, item)),
  };
}

// ── Atom ───────────────────────────────────────────────────────────────────────────────────

function parseAtom(feed: XmlElement, documentUrl: string): Omit<ParsedFeed, 'error'> {
  // A feed rooted in a namespace we do not know (or a draft's) is read as Atom all the same.
  if (!ATOM_NS.has(feed.ns)) adoptNamespace(feed, feed.ns, 'atom');
  return {
    format: 'atom',
    title: atomText(firstOf(feed, [['title', ATOM_NS], ['title', 'dc']])),
    link: atomLink(feed) ?? idAddress(first(feed, 'id', ATOM_NS)),
    language: feed.lang ?? (plainText(first(feed, 'language', 'dc')) || null),
    items: children(feed, 'entry').map((entry) => atomEntry(entry, documentUrl)),
  };
}

function atomEntry(entry: XmlElement, documentUrl: string): RawItem {
  const idElement = firstOf(entry, [['id', ATOM_NS], ['guid', '']]);
  const id = plainText(idElement);
  const content = first(entry, 'content', ATOM_NS) ?? first(entry, 'encoded', 'content');
  return {
    // A path id is resolved against an xml:base in force, as feedparser 6 does (not against the document's address).
    guid: (id.startsWith('/') && idElement!.base !== documentUrl ? idAddress(idElement) : null) ?? (id || null),
    // As feedparser: an entry without a link is reached at its id when the id is a web address
    // (or a path, resolved against xml:base or the document's address).
    url: atomLink(entry) ?? idAddress(idElement),
    title: atomText(firstOf(entry, [['title', ATOM_NS], ['title', 'dc']])),
    summary: atomText(firstOf(entry, [['summary', ATOM_NS], ['description', 'dc']])),
    content: content?.ns === 'content' ? { value: textOf(content).trim(), type: 'html' } : atomText(content),
    published: dateOf(lastOf(entry, [['published', ATOM_NS], ['issued', ATOM_NS], ['issued', 'dcterms'], ['pubdate', '']])),
    updated: dateOf(lastOf(entry, [['updated', ATOM_NS], ['modified', ATOM_NS], ['modified', 'dcterms'], ['date', 'dc']])),
    author: personOf(lastOf(entry, [['author', ATOM_NS], ['creator', 'dc'], ['author', 'dc']])),
    categories: categoriesOf(entry),
    enclosures: children(entry, 'link', ATOM_NS)
      .filter((link) => (attr(link, 'rel') ?? '').trim().toLowerCase() === 'enclosure' && hrefOf(link))
      .map((link) => resolveAgainst(hrefOf(link)!, link)),
  };
}

function adoptNamespace(element: XmlElement, from: string, to: string): void {
  if (element.ns === from) element.ns = to;
  for (const child of childElements(element)) adoptNamespace(child, from, to);
}

function webAddress(text: string): string | null {
  return /^https?:\/\/\S+$/i.test(text) ? text : null;
}

/** An Atom id as an address: a web address, or a path ("/relative/link") resolved against its base. */
function idAddress(element: XmlElement | undefined): string | null {
  const id = plainText(element);
  if (webAddress(id)) return id;
  if (!/^\/(?!\/)\S*$/.test(id) || !/^https?:/i.test(element!.base)) return null;
  return resolveAgainst(id, element!);
}

// ── JSON Feed ──────────────────────────────────────────────────────────────────────────────

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
    title: { value: text(doc.title), type: 'text' },
    link: text(doc.home_page_url) || null,
    language: text(doc.language) || null,
    error: null,
    items: doc.items.filter(isRecord).map((item) => {
      const authors = Array.isArray(item.authors) ? item.authors.filter(isRecord) : isRecord(item.author) ? [item.author] : [];
      return {
        guid: text(item.id) || null,
        url: text(item.url) || text(item.external_url) || null,
        title: { value: text(item.title), type: 'text' as const },
        summary: { value: text(item.summary), type: 'text' as const },
        content: text(item.content_html) ? { value: text(item.content_html), type: 'html' as const } : { value: text(item.content_text), type: 'text' as const },
        published: parseFeedDate(text(item.date_published)),
        updated: parseFeedDate(text(item.date_modified)),
        author: authors.map((author) => text(author.name)).find(Boolean) ?? null,
        categories: Array.isArray(item.tags) ? item.tags.map(text).filter(Boolean) : [],
        enclosures: Array.isArray(item.attachments) ? item.attachments.filter(isRecord).map((attachment) => text(attachment.url)).filter(Boolean) : [],
      };
    }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return String(value);
  return '';
}
