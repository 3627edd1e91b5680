/**
 * A service's changelog as an Atom feed (RFC 4287), for services that publish only that (issue
 * 30: "What's new" reads the changelog of the service in use). Read as data: a DOCTYPE or entity
 * declaration is refused, markup in an entry's content is dropped to text, sizes are bounded.
 */
import { parseUntrustedXml } from '../../../shared/safe-xml';
import type { ChangelogEntryView } from '../../../shared/service-notices';

export interface AtomChangelog {
  /** The feed's `alternate` link (the changelog page), as written (resolve against the base URL). */
  pageHref: string | null;
  entries: ChangelogEntryView[];
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An element's text: a plain string, or `#text` of an element with attributes. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isNode(value) && typeof value['#text'] === 'string') return value['#text'];
  return '';
}

/** html/xhtml content becomes text: tags dropped, a list item or break a line of its own. */
function plain(value: unknown): string {
  const type = isNode(value) ? value['@_type'] : undefined;
  const text = textOf(value);
  if (type !== 'html' && type !== 'xhtml') return text;
  return text
    .replace(/<\s*(br|\/p|\/li|\/div)\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function alternate(links: unknown): string | null {
  if (!Array.isArray(links)) return null;
  const found = links.filter(isNode).find((link) => (link['@_rel'] ?? 'alternate') === 'alternate' && typeof link['@_href'] === 'string');
  return found ? (found['@_href'] as string) : null;
}

/** Parses an Atom changelog; throws with a plain message when the text is not one. */
export function parseAtomChangelog(xml: string): AtomChangelog {
  // A changelog has no use for a DOCTYPE: any one is refused, not only those safe-xml refuses.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new Error('The changelog feed declares a DOCTYPE or entities; the app does not read it.');
  let document: unknown;
  try {
    document = parseUntrustedXml(xml, ['entry', 'link']);
  } catch {
    throw new Error('The changelog feed is not well-formed XML.');
  }
  const feed = isNode(document) ? document.feed : undefined;
  if (!isNode(feed)) throw new Error('The changelog feed is not an Atom feed (no <feed> element).');
  const entries = (Array.isArray(feed.entry) ? feed.entry : []).filter(isNode).slice(0, 200);
  return {
    pageHref: alternate(feed.link),
    entries: entries.map((entry) => {
      const title = plain(entry.title).trim() || textOf(entry.id).trim() || 'Untitled entry';
      const date = (textOf(entry.updated) || textOf(entry.published)).slice(0, 10);
      const body = plain(entry.content) || plain(entry.summary);
      return {
        // "1.1.0 (2026-11-01)" or "v1.1.0 — …": the version a title starts with.
        version: /^v?(\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?)\b/.exec(title)?.[1] ?? null,
        date: /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null,
        title: title.slice(0, 300),
        notes: body
          .split('\n')
          .map((line) => line.replace(/^\s*[-*•]\s*/, '').trim())
          .filter(Boolean)
          .slice(0, 100)
          .map((line) => line.slice(0, 2_000)),
      };
    }),
  };
}
