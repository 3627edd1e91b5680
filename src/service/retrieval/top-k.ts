/**
 * The ranking's top-k, pruned (decision 0040): documents are taken in document order across the
 * question's terms (document-at-a-time) and a document is scored only when the most it could
 * score can reach the k-th best so far (MaxScore). Each term's bound is its largest BM25 share:
 * idf × the share of its largest weighted count in its shortest document (the whole list: a block's
 * bound was hardly tighter, decision 0040 round 5); a document's bound is the sum of its terms'
 * bounds, then its essential terms' exact shares, times its recency and entity boost. Terms whose bounds together cannot reach the k-th best
 * are only looked up for documents another term brought, never walked.
 *
 * It returns exactly the exhaustive ranking: scores are summed in the question's term order as the
 * exhaustive sum is, a document is passed over only when its bound is strictly below the k-th
 * best (a tie may still win on its date), and ties of score and date keep the earlier document.
 */
import type { CorpusSignal } from '../world/signal-types';
import { END, type PostingCursor } from './postings';
import { B, K1, MAX_RECENCY, RECENCY_HALF_LIFE_DAYS, type SearchHit } from './search-types';

/** One of the question's terms: its idf, a cursor over its postings and their bounds. */
export interface RankedTerm {
  idf: number;
  cursor: PostingCursor;
  maxTf: number;
  minLength: number;
}

/** What the ranking reads of the index, by document number. */
export interface RankingView {
  count: number;
  avgLength: number;
  lengths: ArrayLike<number>;
  published: ArrayLike<number>;
  docs: readonly (CorpusSignal | undefined)[];
  /** How many of the question's entities each document names. */
  matches: Uint8Array;
  /** How many entities the question names. */
  wanted: number;
  /** Per run of NEWEST_RUN documents, the latest publication time from that run to the last document. */
  newestFrom: Float64Array;
}

/** Documents per run of the recency bound (search-index.ts keeps each run's latest time). */
export const NEWEST_RUN = 256;

/** Bounds are widened by this much, so that summing in another order can never round one below a score it bounds. */
const SLACK = 1 + 1e-9;

/** The top `limit` hits: score, then date, descending; ties of both keep document order. */
export function rankTopK(terms: RankedTerm[], view: RankingView, options: { limit: number; now: number; until?: number }): SearchHit[] {
  const { count, avgLength, lengths, published, docs, matches, wanted, newestFrom } = view;
  const { limit, now, until } = options;
  if (limit <= 0) return [];
  const share = (tf: number, doc: number): number => tf * (K1 + 1) / (tf + K1 * (1 - B + (B * (lengths[doc] ?? avgLength)) / avgLength));
  const shareBound = (tf: number, length: number): number => tf * (K1 + 1) / (tf + K1 * (1 - B + (B * length) / avgLength));
  // The most any boost can multiply a text score by: the newest signal naming every entity.
  const maxBoost = wanted === 0 ? 1 : 1 + 0.5 * wanted;
  const recencyAt = (when: number): number => 1 + 0.6 * 0.5 ** (Math.max(0, (now - when) / 86_400_000) / RECENCY_HALF_LIFE_DAYS);
  // The most recency can give any document from here on (the signals are mostly newest first, so it falls as the walk goes).
  let runEnd = 0;
  let maxRecency = MAX_RECENCY;
  let maxFactor = MAX_RECENCY * maxBoost * SLACK;
  // The entity boost of a document naming m of the question's entities, for every count a Uint8Array holds
  // (a signal missing one ranks well below one that has it).
  const boosts = new Float64Array(256);
  for (let m = 0; m < 256; m += 1) boosts[m] = wanted === 0 ? 1 : ((1 + m) / (1 + wanted)) * (1 + 0.5 * m);
  const n = terms.length;
  // The terms by their bound, smallest first: cursors, idfs and bounds in that order; `slot` their place in the question.
  const order = [...terms.keys()].map((t) => ({ t, bound: terms[t]!.idf * shareBound(terms[t]!.maxTf, terms[t]!.minLength) * SLACK })).sort((a, b) => a.bound - b.bound);
  const cursors = order.map(({ t }) => terms[t]!.cursor);
  const idfs = Float64Array.from(order, ({ t }) => terms[t]!.idf);
  const bounds = Float64Array.from(order, ({ bound }) => bound);
  const slot = Int32Array.from(order, ({ t }) => t);
  // `prefix[i]` the sum of the first i bounds.
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i += 1) prefix[i + 1] = prefix[i]! + bounds[i]!;
  const shares = new Float64Array(n);
  const top: SearchHit[] = [];
  let threshold = Number.NEGATIVE_INFINITY;
  // Terms [0, firstEssential) cannot bring a document into the top-k alone.
  let firstEssential = 0;
  for (;;) {
    let doc = END;
    for (let i = firstEssential; i < n; i += 1) {
      const at = cursors[i]!.doc;
      if (at < doc) doc = at;
    }
    if (doc === END) break;
    if (doc >= runEnd) {
      const run = Math.floor(doc / NEWEST_RUN);
      runEnd = (run + 1) * NEWEST_RUN;
      const latest = newestFrom[run];
      maxRecency = latest === undefined ? MAX_RECENCY : Math.min(MAX_RECENCY, recencyAt(latest) * SLACK);
      maxFactor = maxRecency * maxBoost * SLACK;
      // Terms whose bounds together cannot reach the k-th best at this recency are looked up only.
      let moved = false;
      while (firstEssential < n && prefix[firstEssential + 1]! * maxFactor < threshold) {
        firstEssential += 1;
        moved = true;
      }
      if (moved) continue;
    }
    // A document number the index does not hold (only a faulty snapshot could give one) is passed over.
    if (doc < count) scoreIfItCanReach(doc);
    // On to the next document: every essential cursor at this one moves past it.
    for (let i = firstEssential; i < n; i += 1) {
      const cursor = cursors[i]!;
      if (cursor.doc === doc) cursor.next();
    }
  }
  return top;

  /**
   * Scores `doc` into the top-k unless a bound shows it cannot reach the k-th best, cheapest bound
   * first: the terms' bounds (whole lists), then the essential terms' exact shares, then its own
   * recency (its date is a second read of memory and a power), then each other term looked up while
   * the bound can still reach the top-k. The signal object itself is read only for a tie.
   */
  function scoreIfItCanReach(doc: number): void {
    let bound = prefix[firstEssential]!;
    for (let i = firstEssential; i < n; i += 1) if (cursors[i]!.doc === doc) bound += bounds[i]!;
    const entityBoost = boosts[matches[doc]!]!;
    const most = maxRecency * entityBoost * SLACK;
    if (bound * most < threshold) return;
    let partial = 0;
    for (let t = 0; t < n; t += 1) shares[t] = 0;
    for (let i = firstEssential; i < n; i += 1) {
      const cursor = cursors[i]!;
      if (cursor.doc === doc && cursor.tf > 0) {
        const part = idfs[i]! * share(cursor.tf, doc);
        shares[slot[i]!] = part;
        partial += part;
      }
    }
    if ((partial + prefix[firstEssential]!) * SLACK * most < threshold) return;
    const when = published[doc]!;
    if (until !== undefined && when > until) return;
    const recency = recencyAt(when);
    const factor = recency * entityBoost * SLACK;
    // The others' exact shares, largest bound first, while the bound can still reach the top-k.
    for (let i = firstEssential - 1; i >= 0; i -= 1) {
      if ((partial + prefix[i + 1]!) * SLACK * factor < threshold) return;
      const cursor = cursors[i]!;
      cursor.seek(doc);
      if (cursor.doc === doc && cursor.tf > 0) {
        const part = idfs[i]! * share(cursor.tf, doc);
        shares[slot[i]!] = part;
        partial += part;
      }
    }
    // Summed in the question's term order, as the exhaustive ranking sums (the same float).
    let textScore = 0;
    let any = false;
    for (let t = 0; t < n; t += 1) {
      if (shares[t]! > 0) {
        textScore += shares[t]!;
        any = true;
      }
    }
    const score = textScore * recency * entityBoost;
    const signal = docs[doc];
    const last = top.length === limit ? top[limit - 1]! : null;
    if (!any || signal === undefined || (last && !(score > last.score || (score === last.score && signal.published_at > last.signal.published_at)))) return;
    const hit: SearchHit = { signal, textScore, score, entityMatches: matches[doc]! };
    // Where it goes: after every hit it does not beat (binary search; Discover keeps 1,000).
    let low = 0;
    let high = top.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = top[mid]!;
      if (score > other.score || (score === other.score && signal.published_at > other.signal.published_at)) high = mid;
      else low = mid + 1;
    }
    top.splice(low, 0, hit);
    if (top.length > limit) top.pop();
    if (top.length === limit) {
      threshold = top[limit - 1]!.score;
      while (firstEssential < n && prefix[firstEssential + 1]! * maxFactor < threshold) firstEssential += 1;
    }
  }
}
