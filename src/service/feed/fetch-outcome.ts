/**
 * A fetch's outcome in the source's state and history: on success the conditional-GET validators,
 * counts and any partial failure (an ill-formed feed read anyway, dropped items); on failure the
 * error in words and the capped exponential backoff (or what a 429/503's Retry-After asked for).
 */
import type { FeedFailure } from './feed-failure';
import type { Ingested } from './feed-signals';
import type { FetchRecord, SourceState } from './feed-repository';
import { headerText, type Collected } from './source-reader';

/** Updates `state` for a fetch that read the source; the history's record of it. */
export function recordSuccess(state: SourceState, collected: Collected, ingested: Ingested, fetchedAt: Date, nextFetchAt: number, durationMs: number): FetchRecord {
  const { items, newItems } = ingested;
  const response = collected.response;
  state.consecutive_failures = 0;
  state.last_success_at = fetchedAt.toISOString();
  state.last_partial = collected.partial ? { kind: collected.partial.kind, message: collected.partial.message, at: fetchedAt.toISOString() } : null;
  if (response?.notModified) state.not_modified += 1;
  if (response && !response.notModified) {
    state.etag = headerText(response.headers.etag);
    state.last_modified = headerText(response.headers['last-modified']);
  }
  state.items_total += newItems;
  state.next_fetch_at = new Date(nextFetchAt).toISOString();
  return {
    at: state.last_fetch_at!,
    ok: true,
    status: response?.status ?? null,
    not_modified: response?.notModified ?? false,
    items,
    new_items: newItems,
    duration_ms: durationMs,
    error: collected.partial ? { kind: collected.partial.kind, message: collected.partial.message } : null,
    ...(collected.itemsTotal !== undefined ? { items_total: collected.itemsTotal, dropped: (collected.dropped ?? []).slice(0, 50) } : {}),
  };
}

/** How long a failed source waits: doubling per failure from its cadence, capped; at least a Retry-After. */
export function backoffMs(failure: FeedFailure, cadenceS: number, consecutiveFailures: number, capS: number): number {
  const backoff = Math.min(cadenceS * 1000 * 2 ** consecutiveFailures, Math.max(cadenceS, capS) * 1000);
  return Math.max(backoff, (failure.retryAfterS ?? 0) * 1000);
}

/** Updates `state` for a failed fetch; the history's record of it. */
export function recordFailure(state: SourceState, before: SourceState, failure: FeedFailure, at: Date, nextFetchAt: number, durationMs: number): FetchRecord {
  state.consecutive_failures = before.consecutive_failures + 1;
  state.last_error = { kind: failure.kind, message: failure.message, at: at.toISOString() };
  state.next_fetch_at = new Date(nextFetchAt).toISOString();
  return { at: state.last_fetch_at!, ok: false, status: null, not_modified: false, items: 0, new_items: 0, duration_ms: durationMs, error: { kind: failure.kind, message: failure.message } };
}
