/**
 * Readable text from what a source gives: HTML (Readability over a linkedom DOM, so scripts,
 * styles and navigation are dropped and nothing is ever executed), listing pages (their article
 * links), PDF (unpdf) and DOCX (mammoth). Event-handler attributes and script bodies never reach
 * a signal: only text nodes are read.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { FeedFailure } from './feed-failure';
import { collapse, toPlainLine, toPlainText } from './plain-text';

export { collapse };

/** What a listing's link-bearing nodes offer (linkedom's elements, without the DOM lib). */
interface Anchor {
  getAttribute(name: string): string | null;
  matches(selector: string): boolean;
  querySelectorAll(selector: string): Iterable<unknown>;
}

const NON_TEXT = 'script, style, noscript, template, iframe, object, embed, svg, canvas, form';

/**
 * Plain text of an HTML fragment (feed summaries and content), on one line: only text nodes
 * outside scripts, styles and embeds are read, so attributes (event handlers) and code never
 * reach a signal. See plain-text.ts (Markdown in the text is read too).
 */
export function htmlToText(html: string): string {
  return toPlainLine(html);
}

export interface ReadArticle {
  title: string;
  text: string;
  excerpt: string;
  /** Who wrote it, when the page says so (Readability's byline, meta author, JSON-LD, rel=author). */
  byline: string | null;
  published: string | null;
}

interface PageNode {
  getAttribute(name: string): string | null;
  textContent: string | null;
}

interface PageDocument {
  querySelector(selector: string): PageNode | null;
  querySelectorAll(selector: string): Iterable<PageNode>;
  title?: string;
}

/** The page's own metadata, read before Readability changes the DOM: JSON-LD, <meta>, OpenGraph, <time>. */
function pageMetadata(document: PageDocument): { title: string; byline: string | null; published: string | null } {
  const meta = (selector: string): string | null => collapse(document.querySelector(selector)?.getAttribute('content') ?? '') || null;
  let ldAuthor: string | null = null;
  let ldPublished: string | null = null;
  let ldTitle: string | null = null;
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      const parsed = JSON.parse(script.textContent ?? '') as unknown;
      const nodes = (Array.isArray(parsed) ? parsed : [parsed]).flatMap((node) => (node && typeof node === 'object' && Array.isArray((node as { '@graph'?: unknown[] })['@graph']) ? (node as { '@graph': unknown[] })['@graph'] : [node]));
      for (const node of nodes) {
        if (!node || typeof node !== 'object') continue;
        const record = node as Record<string, unknown>;
        if (!/Article|Posting|Report|NewsArticle|BlogPosting|WebPage/i.test(String(record['@type'] ?? ''))) continue;
        ldPublished ??= typeof record.datePublished === 'string' ? record.datePublished : null;
        ldTitle ??= typeof record.headline === 'string' ? collapse(record.headline) : null;
        const authors = Array.isArray(record.author) ? record.author : record.author ? [record.author] : [];
        const names = authors.map((author) => (typeof author === 'string' ? author : author && typeof author === 'object' && typeof (author as { name?: unknown }).name === 'string' ? (author as { name: string }).name : '')).map(collapse).filter(Boolean);
        if (names.length > 0) ldAuthor ??= names.join(', ');
      }
    } catch {
      // A page's broken JSON-LD is ignored; the other sources of metadata remain.
    }
  }
  const byline = ldAuthor ?? meta('meta[name="author"]') ?? meta('meta[property="article:author"]') ?? meta('meta[name="byl"]') ?? meta('meta[name="dc.creator" i]') ?? (collapse(document.querySelector('[rel="author"], [itemprop="author"] [itemprop="name"], [itemprop="author"]')?.textContent ?? '') || null);
  const published =
    meta('meta[property="article:published_time"]') ??
    ldPublished ??
    meta('meta[itemprop="datePublished"]') ??
    (document.querySelector('time[itemprop="datePublished"]')?.getAttribute('datetime') || null) ??
    meta('meta[name="date"]') ??
    meta('meta[name="dc.date" i]') ??
    meta('meta[property="og:published_time"]') ??
    (document.querySelector('article time[datetime], time[datetime]')?.getAttribute('datetime') || null);
  const title = meta('meta[property="og:title"]') ?? ldTitle ?? (collapse(document.querySelector('h1')?.textContent ?? '') || collapse(document.title ?? ''));
  return { title, byline: byline && !/^https?:\/\//.test(byline) ? byline : null, published };
}

/** A DOM for any text: linkedom leaves a page with no element at all (empty, or text alone) without a root, which its getters do not survive. */
function pageDocument(html: string): ReturnType<typeof parseHTML>['document'] {
  const { document } = parseHTML(html);
  if (document.documentElement) return document;
  return parseHTML(`<!DOCTYPE html><html><head></head><body>${html.replace(/</g, '&lt;')}</body></html>`).document;
}

/** Readability's byline, narrowed to the author's name when the page names it ("By Neha Singh · 5 Nov" → "Neha Singh"). */
function bylineOf(found: string, named: string | null): string | null {
  if (!found) return named;
  return named && found !== named && found.includes(named) ? named : found;
}

/** The readable article in a page, as Firefox's reader view would find it, with its title, byline and published time. */
export function readArticle(html: string, url: string): ReadArticle {
  const document = pageDocument(html);
  const metadata = pageMetadata(document as unknown as PageDocument);
  let parsed: { title?: string | null; content?: string | null; textContent?: string | null; excerpt?: string | null; byline?: string | null; publishedTime?: string | null } | null = null;
  try {
    // linkedom has no documentURI; Readability reads it to resolve links. Readability drops
    // scripts, styles and embeds itself; linkedom never runs a script.
    Object.defineProperty(document, 'documentURI', { value: url, configurable: true });
    parsed = new Readability(document as never, { charThreshold: 100 }).parse();
  } catch {
    parsed = null;
  }
  // The article's HTML as plain text: headings become sentences, paragraphs and list items lines.
  let text = parsed?.content ? toPlainText(parsed.content) : collapse(parsed?.textContent ?? '');
  if (!text) {
    const fallback = pageDocument(html);
    for (const node of fallback.querySelectorAll(NON_TEXT)) node.remove();
    text = collapse(fallback.querySelector('main, article, body')?.textContent ?? '');
  }
  return {
    title: collapse(parsed?.title ?? '') || metadata.title,
    text,
    excerpt: collapse(parsed?.excerpt ?? '') || text.slice(0, 280),
    byline: bylineOf(collapse(parsed?.byline ?? ''), metadata.byline),
    published: parsed?.publishedTime || metadata.published,
  };
}

/**
 * The article links of a listing page: those the selector picks, else same-site links inside the
 * page's main content with navigation, header, footer and asides excluded.
 */
export function listingLinks(html: string, pageUrl: string, itemSelector?: string | null): string[] {
  const { document } = parseHTML(html);
  const base = new URL(document.querySelector('base[href]')?.getAttribute('href') ?? pageUrl, pageUrl);
  let anchors: Anchor[];
  if (itemSelector) {
    let picked: Anchor[];
    try {
      picked = [...document.querySelectorAll(itemSelector)] as unknown as Anchor[];
    } catch {
      throw new FeedFailure('not_a_feed', `The item selector "${itemSelector}" is not valid CSS.`);
    }
    anchors = picked.flatMap((node) => (node.matches('a[href]') ? [node] : ([...node.querySelectorAll('a[href]')] as unknown as Anchor[])));
  } else {
    for (const node of document.querySelectorAll('nav, header, footer, aside, [role="navigation"], [role="banner"], [role="contentinfo"]')) node.remove();
    const main = document.querySelector('main, [role="main"], article') ?? document.body;
    anchors = main ? ([...main.querySelectorAll('a[href]')] as unknown as Anchor[]) : [];
  }
  const page = new URL(pageUrl);
  const links: string[] = [];
  for (const anchor of anchors) {
    let target: URL;
    try {
      target = new URL(anchor.getAttribute('href') ?? '', base);
    } catch {
      continue;
    }
    target.hash = '';
    if (target.protocol !== 'http:' && target.protocol !== 'https:') continue;
    if (!itemSelector && target.host !== page.host) continue;
    if (target.href === page.href || links.includes(target.href)) continue;
    links.push(target.href);
  }
  return links;
}

export async function readPdf(bytes: Uint8Array): Promise<{ title: string; text: string }> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const { text } = await extractText(pdf, { mergePages: true });
    const meta = await pdf.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as { Title?: unknown };
    const body = collapse(text);
    const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : body.split(/(?<=[.!?])\s/)[0]!.slice(0, 160);
    return { title, text: body };
  } catch (error) {
    throw new FeedFailure('unreadable_file', `The PDF could not be read: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

export async function readDocx(bytes: Buffer): Promise<{ title: string; text: string }> {
  const mammoth = await import('mammoth');
  try {
    const { value } = await mammoth.extractRawText({ buffer: bytes });
    const lines = value.split(/\n+/).map((line) => line.trim()).filter(Boolean);
    return { title: lines[0]?.slice(0, 160) ?? '', text: collapse(lines.join(' ')) };
  } catch (error) {
    throw new FeedFailure('unreadable_file', `The DOCX could not be read: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

