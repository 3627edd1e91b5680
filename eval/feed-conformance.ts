/**
 * Feed conformance: every feed of a corpus read through the service's own feed path
 * (`readFeedBody`, as the preview and the scheduler call it) and compared, field by field, with
 * what Python's feedparser read from the same bytes (`expected.json`, made once by
 * make-expected.py). Text is compared as plain text, since signals carry plain text.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { htmlToText } from '../src/service/feed/document-readers';
import { readFeedBody, type FeedRead } from '../src/service/feed/feed-items';

interface ExpectedEntry {
  title: string | null;
  title_type: string | null;
  link: string | null;
  id: string | null;
  published: string | null;
  updated: string | null;
  summary: string | null;
  summary_type: string | null;
  content: Array<{ value: string; type: string | null }>;
  author: string | null;
  categories: string[];
  enclosures: string[];
}

interface ExpectedFeed {
  error?: string;
  content_type: string;
  bozo: boolean;
  encoding: string | null;
  feed: { title: string | null; title_type: string | null; link: string | null; language: string | null };
  entries: ExpectedEntry[];
}

export const FIELDS = ['items', 'kept', 'title', 'link', 'id', 'published', 'updated', 'summary', 'content', 'author', 'categories', 'enclosures', 'feed_title', 'feed_link', 'feed_language'] as const;
export type Field = (typeof FIELDS)[number];

export interface Tally {
  checked: number;
  agree: number;
}

export interface ConformanceReport {
  files: number;
  crashes: Array<{ file: string; error: string }>;
  slowest_ms: number;
  /** category → field → tally */
  table: Record<string, Partial<Record<Field, Tally>>>;
  totals: Partial<Record<Field, Tally>>;
  /** Files feedparser read as ill-formed (bozo, not an encoding case) with entries, and how many we recovered. */
  illformed: Tally;
  /** Files of the encoding categories whose entries' titles/summaries we read as feedparser does. */
  encodings: Tally;
  disagreements: Array<{ file: string; field: Field; expected: unknown; got: unknown }>;
}

/** The URL each corpus file is served at in feedparser's own suite (relative links resolve against it). */
const BASE = 'http://127.0.0.1:8097/';
const HEADER = /^Header:\s+([^:]+):(.*)$/gm;

export function corpusFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...corpusFiles(path));
    else if (/\.(xml|rdf|rss|atom)$/.test(name)) out.push(path);
  }
  return out;
}

function categoryOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Feedparser's text in the form a signal keeps: HTML types as plain text, whitespace collapsed. */
function plain(value: string | null | undefined, type: string | null | undefined): string {
  if (!value) return '';
  const text = type === 'text/plain' ? value : htmlToText(value);
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Links compared as a browser would follow them: feedparser's resolved against the same base.
 * Feedparser also gives an entry's non-web id as its link ("tag:…", "urn:…"); a signal's link is
 * followable or absent, so there no link is the agreeing answer.
 */
function sameLink(got: string | null | undefined, expected: string, base: string): boolean {
  let want: URL;
  try {
    want = new URL(expected, base);
  } catch {
    return !got;
  }
  if (want.protocol !== 'http:' && want.protocol !== 'https:') return !got;
  try {
    return new URL(got ?? '', base).href === want.href;
  } catch {
    return false;
  }
}

function same(a: string, b: string): boolean {
  return a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();
}

export function runConformance(corpusDir: string, expectedPath: string): ConformanceReport {
  const expected = JSON.parse(readFileSync(expectedPath, 'utf8')) as Record<string, ExpectedFeed>;
  const report: ConformanceReport = { files: 0, crashes: [], slowest_ms: 0, table: {}, totals: {}, illformed: { checked: 0, agree: 0 }, encodings: { checked: 0, agree: 0 }, disagreements: [] };
  for (const path of corpusFiles(corpusDir)) {
    const file = relative(corpusDir, path).split('\\').join('/');
    const want = expected[file];
    if (!want || want.error) continue;
    report.files += 1;
    const bytes = readFileSync(path);
    const headers = Object.fromEntries([...bytes.toString('latin1').matchAll(HEADER)].map((m) => [m[1]!.trim().toLowerCase(), m[2]!.trim()]));
    const contentType = headers['content-type'] ?? 'text/xml';
    const category = categoryOf(file);
    const tally = (report.table[category] ??= {});
    const count = (field: Field, ok: boolean, expectedValue?: unknown, got?: unknown): void => {
      const cell = (tally[field] ??= { checked: 0, agree: 0 });
      const total = (report.totals[field] ??= { checked: 0, agree: 0 });
      cell.checked += 1;
      total.checked += 1;
      if (ok) {
        cell.agree += 1;
        total.agree += 1;
      } else if (report.disagreements.length < 5000) report.disagreements.push({ file, field, expected: expectedValue, got });
    };
    const started = performance.now();
    let read: FeedRead | null = null;
    try {
      read = readFeedBody(bytes, contentType, BASE + file);
    } catch (error) {
      const name = error instanceof Error ? error.constructor.name : typeof error;
      // A named refusal (FeedFailure) is an answer; anything else is a crash.
      if (name !== 'FeedFailure') report.crashes.push({ file, error: `${name}: ${error instanceof Error ? error.message : String(error)}` });
    }
    report.slowest_ms = Math.max(report.slowest_ms, performance.now() - started);
    const entries = read?.entries ?? [];
    const kept = entries.filter((entry) => entry.dropReason === null).length;
    const isEncoding = category.startsWith('encoding') || category.includes('chardet');
    if (want.entries.length > 0) {
      count('items', entries.length >= want.entries.length, want.entries.length, entries.length);
      // Entries a reader would list (a title, text or a link) kept as signals.
      const listable = want.entries.filter((entry) => plain(entry.title, entry.title_type) || plain(entry.summary, entry.summary_type) || plain(entry.content[0]?.value, entry.content[0]?.type) || entry.link).length;
      if (listable > 0) count('kept', kept >= listable, listable, kept);
      if (want.bozo && !isEncoding) {
        report.illformed.checked += 1;
        if (entries.length >= want.entries.length) report.illformed.agree += 1;
      }
    }
    if (want.feed.title) count('feed_title', same(read?.title ?? '', plain(want.feed.title, want.feed.title_type)), want.feed.title, read?.title);
    if (want.feed.link) count('feed_link', sameLink(read?.link, want.feed.link, BASE + file), want.feed.link, read?.link);
    if (want.feed.language) count('feed_language', (read?.language ?? '').toLowerCase() === want.feed.language.toLowerCase(), want.feed.language, read?.language);
    let encodingOk = true;
    want.entries.forEach((w, index) => {
      const got = entries[index];
      if (w.title) {
        const ok = same(got?.title ?? '', plain(w.title, w.title_type));
        count('title', ok, w.title, got?.title);
        encodingOk &&= ok;
      }
      // Feedparser copies an entry's id into its link when it has none; an id that is neither a web
      // address nor a path ("Correct Value", "1") makes no followable link, so none agrees.
      const idAsLink = w.link !== null && w.link === w.id && !/^(https?:|\/)/i.test(w.id.trim());
      if (w.link) count('link', idAsLink ? !got?.url : sameLink(got?.url, w.link, BASE + file), w.link, got?.url);
      if (w.id) count('id', got?.guid === w.id, w.id, got?.guid);
      if (w.published) count('published', got?.published === w.published, w.published, got?.published);
      if (w.updated) count('updated', got?.updated === w.updated, w.updated, got?.updated);
      if (w.summary) {
        const ok = same(got?.summary ?? '', plain(w.summary, w.summary_type));
        count('summary', ok, w.summary, got?.summary);
        encodingOk &&= ok;
      }
      if (w.content.length > 0) count('content', same(got?.content ?? '', plain(w.content[0]!.value, w.content[0]!.type)), w.content[0]!.value, got?.content);
      if (w.author) count('author', got?.author === w.author, w.author, got?.author);
      if (w.categories.length > 0) count('categories', JSON.stringify(got?.categories ?? []) === JSON.stringify(w.categories), w.categories, got?.categories);
      if (w.enclosures.length > 0) count('enclosures', (got?.enclosures.length ?? 0) === w.enclosures.length && w.enclosures.every((href, i) => sameLink(got?.enclosures[i], href, BASE + file)), w.enclosures, got?.enclosures);
    });
    if (isEncoding && want.entries.length > 0) {
      report.encodings.checked += 1;
      if (encodingOk && entries.length >= want.entries.length) report.encodings.agree += 1;
    }
  }
  return report;
}

/** The goals (issue 44, "Measured"); the failures in words, empty when every goal is met. */
export function conformanceMisses(report: ConformanceReport, goals = { items: 0.98, field: 0.95, encodings: 0.95, illformed: 15 / 19, slowestMs: 10_000 }): string[] {
  const misses: string[] = [];
  const share = (tally: Tally | undefined): number => (tally && tally.checked > 0 ? tally.agree / tally.checked : 1);
  if (report.crashes.length > 0) misses.push(`${report.crashes.length} crashes (the first: ${report.crashes[0]!.file}: ${report.crashes[0]!.error})`);
  if (report.slowest_ms > goals.slowestMs) misses.push(`the slowest feed took ${report.slowest_ms.toFixed(0)} ms`);
  for (const field of ['items', 'kept'] as const) if (share(report.totals[field]) < goals.items) misses.push(`${field} ${(100 * share(report.totals[field])).toFixed(1)} % < ${goals.items * 100} %`);
  for (const field of FIELDS) {
    if (field === 'items' || field === 'kept') continue;
    if (share(report.totals[field]) < goals.field) misses.push(`${field} ${(100 * share(report.totals[field])).toFixed(1)} % < ${goals.field * 100} %`);
  }
  if (share(report.encodings) < goals.encodings) misses.push(`encodings ${report.encodings.agree}/${report.encodings.checked}`);
  if (share(report.illformed) < goals.illformed) misses.push(`ill-formed recovered ${report.illformed.agree}/${report.illformed.checked}`);
  return misses;
}

export function conformanceMarkdown(report: ConformanceReport): string {
  const used = FIELDS.filter((field) => report.totals[field]);
  const cell = (tally: Tally | undefined): string => (tally ? `${tally.agree}/${tally.checked}` : '');
  const rows = Object.entries(report.table).map(([category, fields]) => `| ${category} | ${used.map((field) => cell(fields[field])).join(' | ')} |`);
  const pct = (tally: Tally | undefined): string => (tally && tally.checked > 0 ? `${((100 * tally.agree) / tally.checked).toFixed(1)} %` : '');
  return [
    `Feed conformance: ${report.files} feeds, ${report.crashes.length} crashes, slowest ${report.slowest_ms.toFixed(0)} ms; ill-formed recovered ${report.illformed.agree}/${report.illformed.checked}; encodings ${report.encodings.agree}/${report.encodings.checked}.`,
    '',
    `| category | ${used.join(' | ')} |`,
    `| --- | ${used.map(() => '---').join(' | ')} |`,
    ...rows,
    `| **all** | ${used.map((field) => cell(report.totals[field])).join(' | ')} |`,
    `| **agree** | ${used.map((field) => pct(report.totals[field])).join(' | ')} |`,
  ].join('\n');
}
