/**
 * The library's item format (documented in docs/library-format.md). Version 2 is current;
 * version 1 items (no tags, citations without snapshots) are migrated on read.
 */
import { z } from 'zod';
import { CitationSnapshot } from './conversation';
import { ReportSeriesSchema } from './research';

export const LIBRARY_FORMAT_VERSION = 2;

export const LibraryItemKind = z.enum(['answer', 'conversation', 'report']);
export type LibraryItemKind = z.infer<typeof LibraryItemKind>;

/**
 * Who wrote an item last, and what: a counter, the writer's device id and a hash of the
 * content. A write never replaces a revision its writer has not seen (docs/library-format.md).
 */
export const LibraryRevision = z.object({
  n: z.number().int().min(0),
  device: z.string().max(80),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type LibraryRevision = z.infer<typeof LibraryRevision>;

export const LibraryItemSchema = z.object({
  formatVersion: z.literal(LIBRARY_FORMAT_VERSION),
  id: z.string().regex(/^lib_[0-9a-f]{16}$/),
  kind: LibraryItemKind,
  title: z.string().min(1).max(300),
  tags: z.array(z.string().min(1).max(60)).max(30),
  /** When the answer or report was made, and when it was saved. */
  createdAt: z.string(),
  savedAt: z.string(),
  updatedAt: z.string(),
  /** The content, markdown with `[sig_…]` markers (a conversation: its turns in order). */
  markdown: z.string(),
  /** Every cited signal, as it was when saved: title, source, date, snippet, url, entities, metrics, health. */
  citations: z.array(CitationSnapshot),
  meta: z.object({
    question: z.string().optional(),
    topic: z.string().optional(),
    preset: z.string().optional(),
    confidence: z.number().nullable().optional(),
    costUsd: z.number().nullable().optional(),
    serviceUrl: z.string().nullable().optional(),
    conversationId: z.string().optional(),
    runId: z.string().optional(),
    /** A report's key-figures series, drawn as charts by the exports (issue 46). */
    series: z.array(ReportSeriesSchema).optional(),
  }),
  deletedAt: z.string().nullable(),
  /** Absent in items written before revisions existed (read as revision 0). */
  revision: LibraryRevision.optional(),
});
export type LibraryItem = z.infer<typeof LibraryItemSchema>;

/** Version 1, as written by earlier builds: citations were a flat list without snapshots. */
export const LibraryItemV1Schema = z.object({
  formatVersion: z.literal(1),
  id: z.string(),
  kind: z.enum(['answer', 'report']),
  title: z.string(),
  savedAt: z.string(),
  markdown: z.string(),
  citations: z.array(z.object({ id: z.string(), title: z.string().optional(), source: z.string().optional(), date: z.string().optional(), url: z.string().optional() })),
});

export function migrateLibraryItem(raw: unknown): LibraryItem {
  const version = (raw as { formatVersion?: unknown } | null)?.formatVersion;
  if (version === LIBRARY_FORMAT_VERSION) return LibraryItemSchema.parse(raw);
  if (version === 1) {
    const old = LibraryItemV1Schema.parse(raw);
    return LibraryItemSchema.parse({
      formatVersion: LIBRARY_FORMAT_VERSION,
      id: old.id,
      kind: old.kind,
      title: old.title,
      tags: [],
      createdAt: old.savedAt,
      savedAt: old.savedAt,
      updatedAt: old.savedAt,
      markdown: old.markdown,
      citations: old.citations.map((c) => ({ id: c.id, title: c.title, source_name: c.source, published_at: c.date, url: c.url, detail: null })),
      meta: {},
      deletedAt: null,
    });
  }
  throw new Error(`Unknown library format version ${String(version)}`);
}

export interface LibrarySummary {
  id: string;
  kind: LibraryItemKind;
  title: string;
  tags: string[];
  createdAt: string;
  savedAt: string;
  citationCount: number;
  sources: string[];
  /** The library it lives in (`personal` or a team library's id). */
  location: string;
  /** Conflict copies waiting for the user to choose. */
  conflicts: number;
}

/** The personal library, or a team library: a folder, typically in a synced drive or a share. */
export interface LibraryLocation {
  id: string;
  name: string;
  kind: 'personal' | 'team';
  path: string;
  readOnly: boolean;
  state: 'opening' | 'ready' | 'unavailable';
  items: number;
  /** Why it is unavailable or read-only, in words. */
  message: string | null;
}

/** An item as the reader shows it: where it lives, and its conflict copies, if any. */
export type LibraryItemView = LibraryItem & {
  location: string;
  readOnly: boolean;
  conflicts: Array<{ file: string; item: LibraryItem }>;
};

/** What importing a bundle would do, item by item; nothing is written before the user agrees. */
export interface BundlePlan {
  items: Array<{
    id: string;
    title: string;
    kind: LibraryItemKind;
    /** new: not here; same: identical; newer: the bundle's is a later revision; older: ours is; diverged: both changed. */
    status: 'new' | 'same' | 'newer' | 'older' | 'diverged';
  }>;
  citations: number;
}

export interface LibraryQuery {
  text?: string;
  kind?: LibraryItemKind;
  from?: string;
  to?: string;
  source?: string;
  entity?: string;
  tag?: string;
  location?: string;
  sort?: 'date' | 'title' | 'citations';
}

export interface LibrarySearchResult {
  items: Array<LibrarySummary & { snippet: string | null }>;
  total: number;
  tookMs: number;
  /** Files that could not be read, reported and skipped. */
  corrupt: string[];
  /** A library is still opening: results so far, more to come. */
  indexing?: boolean;
}

/** `text` is plain text with a numbered sources list (the plain half of copying as rich text). */
export const EXPORT_FORMATS = ['markdown', 'html', 'pdf', 'docx', 'json', 'csv', 'text'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
