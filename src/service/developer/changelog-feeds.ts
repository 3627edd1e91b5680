/**
 * The changelog, machine-readable, beside its page: a JSON Feed 1.1 (`/developer/changelog.json`)
 * and an Atom feed (RFC 4287, `/developer/changelog.atom`). Both carry the same entries as the
 * page; the JSON one also lists what is deprecated (`_retail_signal.deprecations`), with the
 * dates the `Deprecation` and `Sunset` headers send. Links are relative to the feed's own URL.
 */
import { CHANGELOG_PATH, DEPRECATIONS, deprecatedAt, sunsetAt } from './deprecations';

export interface ChangelogEntry {
  version: string;
  /** YYYY-MM-DD */
  date: string;
  notes: string[];
}

export const CHANGELOG_JSON_PATH = `${CHANGELOG_PATH}.json`;
export const CHANGELOG_ATOM_PATH = `${CHANGELOG_PATH}.atom`;
const TITLE = 'Retail Signal changelog';
const entryId = (entry: ChangelogEntry): string => `tag:retail-signal.local,2026:changelog:${entry.version}`;
const published = (entry: ChangelogEntry): string => `${entry.date}T00:00:00.000Z`;
/** Newest first, whatever order the list was written in. */
const newestFirst = (entries: readonly ChangelogEntry[]): ChangelogEntry[] => [...entries].sort((a, b) => b.date.localeCompare(a.date) || b.version.localeCompare(a.version));

export function changelogJsonFeed(entries: readonly ChangelogEntry[]): Record<string, unknown> {
  return {
    version: 'https://jsonfeed.org/version/1.1',
    title: TITLE,
    home_page_url: CHANGELOG_PATH,
    feed_url: CHANGELOG_JSON_PATH,
    description: 'Changes to the Retail Signal interface and to its OpenAPI document.',
    language: 'en',
    _retail_signal: {
      about: 'Deprecated operations, with the dates their Deprecation (RFC 9745) and Sunset (RFC 8594) headers carry.',
      deprecations: DEPRECATIONS.map((deprecation) => ({
        method: deprecation.method,
        path: deprecation.path,
        deprecated_at: deprecatedAt(deprecation).toISOString(),
        sunset_at: sunsetAt(deprecation).toISOString(),
        replacement: deprecation.replacement,
        change: deprecation.change,
        link: CHANGELOG_PATH,
      })),
    },
    items: newestFirst(entries).map((entry) => ({
      id: entryId(entry),
      url: `${CHANGELOG_PATH}#v${entry.version}`,
      title: `${entry.version} (${entry.date})`,
      content_text: entry.notes.map((note) => `- ${note}`).join('\n'),
      date_published: published(entry),
      _retail_signal: { version: entry.version, date: entry.date, notes: entry.notes },
    })),
  };
}

export function changelogAtomFeed(entries: readonly ChangelogEntry[]): string {
  const sorted = newestFirst(entries);
  const updated = sorted[0] ? published(sorted[0]) : new Date(0).toISOString();
  const items = sorted
    .map(
      (entry) => `  <entry>
    <id>${escapeXml(entryId(entry))}</id>
    <title>${escapeXml(`${entry.version} (${entry.date})`)}</title>
    <updated>${published(entry)}</updated>
    <link rel="alternate" type="text/html" href="${escapeXml(`${CHANGELOG_PATH}#v${entry.version}`)}"/>
    <content type="text">${escapeXml(entry.notes.map((note) => `- ${note}`).join('\n'))}</content>
  </entry>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
  <id>tag:retail-signal.local,2026:changelog</id>
  <title>${TITLE}</title>
  <updated>${updated}</updated>
  <author><name>Retail Signal</name></author>
  <link rel="self" type="application/atom+xml" href="${CHANGELOG_ATOM_PATH}"/>
  <link rel="alternate" type="text/html" href="${CHANGELOG_PATH}"/>
${items}
</feed>
`;
}

/** XML text and attribute values; characters XML 1.0 cannot carry at all are dropped. */
export function escapeXml(value: string): string {
  return value
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
