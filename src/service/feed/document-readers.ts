/**
 * Readable text from what a source gives: HTML (Readability over a linkedom DOM, so scripts,
 * styles and navigation are dropped and nothing is ever executed), listing pages (their article
 * links), PDF (unpdf) and DOCX (mammoth). Event-handler attributes and script bodies never reach
 * a signal: only text nodes are read.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { FeedFailure } from './feed-failure';
import { collapse, toPlainLine } from './plain-text';

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
  published: string | null;
}

/** The readable article in a page, as Firefox's reader view would find it. */
export function readArticle(html: string, url: string): ReadArticle {
  const { document } = parseHTML(html);
  const published =
    document.querySelector('meta[property="article:published_time"]')?.getAttribute('content') ??
    document.querySelector('time[datetime]')?.getAttribute('datetime') ??
    document.querySelector('meta[name="date"]')?.getAttribute('content') ??
    null;
  const pageTitle = collapse(document.querySelector('meta[property="og:title"]')?.getAttribute('content') ?? document.querySelector('h1')?.textContent ?? document.title ?? '');
  for (const node of document.querySelectorAll(NON_TEXT)) node.remove();
  let parsed: { title?: string | null; textContent?: string | null; excerpt?: string | null } | null = null;
  try {
    // linkedom has no documentURI; Readability reads it to resolve links.
    Object.defineProperty(document, 'documentURI', { value: url, configurable: true });
    parsed = new Readability(document as never, { charThreshold: 100 }).parse();
  } catch {
    parsed = null;
  }
  const text = collapse(parsed?.textContent ?? document.querySelector('main, article, body')?.textContent ?? '');
  return { title: pageTitle || collapse(parsed?.title ?? ''), text, excerpt: collapse(parsed?.excerpt ?? '') || text.slice(0, 280), published };
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

