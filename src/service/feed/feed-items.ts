/**
 * A fetched feed's bytes to the entries the service keeps, field by field in plain text: the one
 * path the preview, the scheduler and the conformance eval (eval/feed-conformance.ts) share.
 * An entry with a title or text is kept even without a link (its id then comes from its guid or
 * its content); one with neither is dropped with the reason in words.
 */
import { decodeBody, repairDoubleEncoding } from './charset';
import { parseFeedDocument, type FeedText } from './feed-parsers';
import { toPlainLine, toPlainText } from './plain-text';

export interface FeedEntry {
  /** Why the service does not keep this entry as a signal; null when it does. */
  dropReason: string | null;
  guid: string | null;
  url: string | null;
  title: string;
  summary: string;
  /** The summary's lines that were headings in its markup (a signal's lead leaves opening ones out). */
  summaryHeadings: string[];
  content: string;
  published: string | null;
  updated: string | null;
  author: string | null;
  categories: string[];
  enclosures: string[];
}

export interface DroppedEntry {
  title: string;
  id: string | null;
  reason: string;
}

export interface FeedRead {
  format: string;
  title: string;
  link: string | null;
  language: string | null;
  /** Every entry the feed gave, in its order (those with a `dropReason` are not kept). */
  entries: FeedEntry[];
  dropped: DroppedEntry[];
  /** The first error of an ill-formed feed that was read anyway ("read with errors"). */
  error: string | null;
  charset: string;
}

/** Text of any type as a signal keeps it: plain text, whatever markup (HTML, XHTML, Markdown) it used. */
export function feedTextToPlain(text: FeedText, headings?: string[]): string {
  if (!text.value) return '';
  // A text construct is literal: its "&nbsp;" or "<b>" is what the reader sees, as feedparser gives it.
  const found: string[] = [];
  const plain = toPlainText(text.type === 'html' ? text.value : text.value.replace(/&/g, '&amp;').replace(/</g, '&lt;'), found);
  headings?.push(...found.map((line) => repairDoubleEncoding(windowsC1(line))));
  return repairDoubleEncoding(windowsC1(plain));
}

const WINDOWS_1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

/** C1 control characters (`&#146;` in a feed) stand for the Windows-1252 characters their author meant. */
function windowsC1(text: string): string {
  return /[\u0080-\u009f]/.test(text) ? text.replace(/[\u0080-\u009f]/g, (char) => WINDOWS_1252_C1[char.charCodeAt(0) - 0x80]!) : text;
}

export function readFeedBody(body: Buffer, contentType: string, url: string): FeedRead {
  const { text, charset } = decodeBody(body, contentType);
  const feed = parseFeedDocument(text, contentType, url);
  const entries: FeedEntry[] = [];
  const dropped: DroppedEntry[] = [];
  for (const item of feed.items) {
    const summaryHeadings: string[] = [];
    const entry: FeedEntry = {
      dropReason: null,
      guid: item.guid,
      url: item.url ? httpUrl(item.url, url) : null,
      title: collapseLine(feedTextToPlain(item.title)),
      // As feedparser: an entry with content and no summary is summarised by its content.
      summary: feedTextToPlain(item.summary.value ? item.summary : item.content, summaryHeadings),
      summaryHeadings,
      content: feedTextToPlain(item.content),
      published: item.published,
      // As feedparser: an entry with no update time was last updated when it was published.
      updated: item.updated ?? item.published,
      author: item.author ? toPlainLine(item.author.replace(/</g, '&lt;')) : null,
      categories: item.categories,
      enclosures: item.enclosures,
    };
    // A link alone is still an item a reader lists (by its address); nothing at all is not.
    if (!entry.title && !entry.summary && !entry.content && !entry.url) {
      entry.dropReason = item.url ? `The item has no title or text, and its link (${item.url.slice(0, 200)}) is not a web address.` : 'The item has no title, no text and no link.';
      dropped.push({ title: '', id: entry.guid, reason: entry.dropReason });
    }
    entries.push(entry);
  }
  return { format: feed.format, title: collapseLine(feedTextToPlain(feed.title)), link: feed.link, language: feed.language, entries, dropped, error: feed.error, charset };
}

function collapseLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A followable link: http(s) (or a relative one resolved against the feed), else none. */
function httpUrl(raw: string, base: string): string | null {
  try {
    const resolved = new URL(raw, base || undefined);
    return resolved.protocol === 'http:' || resolved.protocol === 'https:' ? resolved.href : null;
  } catch {
    return null;
  }
}
