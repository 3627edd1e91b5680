/**
 * The add-source preview: what a source's first read gives (the first 20 items as they would be
 * kept), how many items it gave in all, each dropped item and why, and the first error of an
 * ill-formed document read anyway.
 */
import { FeedFailure } from './feed-failure';
import { extractSignal, unkeptReason } from './signal-extraction';
import type { Collected, DroppedItem } from './source-reader';
import type { FeedSourceRecord } from './source-registry';

export interface PreviewItem {
  id: string;
  title: string;
  /** Null when the item has no link of its own (it is cited by its source and date). */
  url: string | null;
  published_at: string;
  published_at_source: 'item' | 'fetch';
  updated_at: string | null;
  summary: string;
  author: string | null;
  categories: string[];
  enclosures: string[];
}

export interface PreviewResult {
  definition: FeedSourceRecord;
  preview: PreviewItem[];
  /** How many items the source gave in all. */
  items_total: number;
  dropped: DroppedItem[];
  /** Set when the document was ill-formed and read anyway: the first error. */
  read_with_errors: string | null;
  /** The feed's own title (channel/feed <title>); null when it has none (a page, a folder, an untitled feed). */
  feed_title: string | null;
}

/** Throws a FeedFailure when nothing would be kept (the partial failure, or why items were dropped). */
export function previewOf(definition: FeedSourceRecord, collected: Collected, at: Date): PreviewResult {
  const dropped = [...(collected.dropped ?? [])];
  const kept: PreviewItem[] = [];
  for (const item of collected.items) {
    const signal = extractSignal({ ...item, fetchedAt: at });
    if (!signal) {
      dropped.push({ title: item.title.slice(0, 200), id: item.guid ?? item.url, reason: unkeptReason(item) ?? 'It has no title and no text.' });
      continue;
    }
    kept.push({ id: signal.id, title: signal.title, url: signal.url, published_at: signal.published_at, published_at_source: signal.published_at_source, updated_at: item.updated ?? null, summary: signal.summary, author: item.author ?? null, categories: item.categories ?? [], enclosures: item.enclosures ?? [] });
  }
  if (kept.length === 0) {
    if (collected.partial) throw collected.partial;
    const why = dropped.length > 0 ? ` (${dropped.length} dropped; the first: ${dropped[0]!.reason})` : '';
    throw new FeedFailure('no_items', `The URL was read but gave no items${why}.`);
  }
  const readWithErrors = collected.partial?.kind === 'malformed_xml' ? collected.partial.message : null;
  return { definition, preview: kept.slice(0, 20), items_total: collected.itemsTotal ?? collected.items.length, dropped, read_with_errors: readWithErrors, feed_title: collected.title?.trim().slice(0, 200) || null };
}
