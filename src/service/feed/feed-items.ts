/**
 * A fetched feed's bytes to the entries the service keeps, field by field in plain text: the one
 * path the preview, the scheduler and the conformance eval share.
 */
import { decodeBody } from './charset';
import { htmlToText } from './document-readers';
import { parseFeedDocument } from './feed-parsers';

export interface FeedEntry {
  guid: string | null;
  url: string | null;
  title: string;
  summary: string;
  content: string;
  published: string | null;
  updated: string | null;
  author: string | null;
  categories: string[];
  enclosures: string[];
}

export interface FeedRead {
  format: string;
  title: string;
  link: string | null;
  language: string | null;
  entries: FeedEntry[];
}

function iso(value: string | null): string | null {
  if (!value) return null;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? new Date(parsed).toISOString().replace('.000Z', 'Z') : null;
}

export function readFeedBody(body: Buffer, contentType: string, url: string): FeedRead {
  const { text } = decodeBody(body, contentType);
  const feed = parseFeedDocument(text, contentType);
  const entries: FeedEntry[] = [];
  for (const item of feed.items) {
    const link = item.url ? safe(item.url, url) : item.guid && /^https?:/i.test(item.guid) ? item.guid : null;
    if (!link) continue;
    entries.push({ guid: item.guid, url: link, title: htmlToText(item.title), summary: htmlToText(item.summaryHtml), content: htmlToText(item.contentHtml), published: iso(item.published), updated: iso(item.updated), author: null, categories: [], enclosures: [] });
  }
  return { format: feed.format, title: htmlToText(feed.title), link: null, language: null, entries };
}

function safe(raw: string, base: string): string | null {
  try {
    return new URL(raw, base).href;
  } catch {
    return null;
  }
}
