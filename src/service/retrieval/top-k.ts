/**
 * The ranking's top-k, pruned (decision 0040): documents are taken in document order across the
 * question's terms (document-at-a-time) and a document is scored only when the most it could
 * score can reach the k-th best so far (MaxScore). Each term's bound is its largest BM25 share:
 * idf × the share of its largest weighted count in its shortest document, per block of its
 * postings (block-max) and for the whole list; a document's bound is the sum of its terms' bounds
 * times its own recency and entity boost. Terms whose bounds together cannot reach the k-th best
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
  let run = -1;
  let maxRecency = MAX_RECENCY;
  let maxFactor = MAX_RECENCY * maxBoost * SLACK;
  // The entity boost of a document naming m of the question's entities, by m (a signal missing
  // one ranks well below one that has it).
  const boosts = Array.from({ length: wanted + 1 }, (_, m) => (wanted === 0 ? 1 : ((1 + m) / (1 + wanted)) * (1 + 0.5 * m)));
  const n = terms.length;
  const bounds = terms.map((term) => term.idf * shareBound(term.maxTf, term.minLength) * SLACK);
  // Terms by bound, smallest first; `prefix[i]` the sum of the first i bounds.
  const order = [...terms.keys()].sort((a, b) => bounds[a]! - bounds[b]!);
  const prefix = [0];
  for (const t of order) prefix.push(prefix.at(-1)! + bounds[t]!);
  const shares = new Float64Array(n);
  const top: SearchHit[] = [];
  let threshold = Number.NEGATIVE_INFINITY;
  // order[0..firstEssential) are the terms that cannot bring a document into the top-k alone.
  let firstEssential = 0;
  for (;;) {
    let doc = END;
    for (let i = firstEssential; i < n; i += 1) {
      const at = terms[order[i]!]!.cursor.doc;
      if (at < doc) doc = at;
    }
    if (doc === END) break;
    if (Math.floor(doc / NEWEST_RUN) !== run) {
      run = Math.floor(doc / NEWEST_RUN);
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
    // Cheapest first: the terms' bounds (whole lists) times the most recency can give and this
    // document's own entity boost (a table lookup); then the block bounds; then its own recency.
    let bound = prefix[firstEssential]!;
    for (let i = firstEssential; i < n; i += 1) if (terms[order[i]!]!.cursor.doc === doc) bound += bounds[order[i]!]!;
    const signal = doc < count ? docs[doc] : undefined;
    const m = matches[doc]!;
    const entityBoost = m < boosts.length ? boosts[m]! : ((1 + m) / (1 + wanted)) * (1 + 0.5 * m);
    let pass = bound * maxRecency * entityBoost * SLACK < threshold;
    let factor = 0;
    let recency = 0;
    if (!pass && signal) {
      if (threshold > Number.NEGATIVE_INFINITY) {
        bound = prefix[firstEssential]!;
        for (let i = firstEssential; i < n; i += 1) {
          const cursor = terms[order[i]!]!.cursor;
          if (cursor.doc === doc) bound += terms[order[i]!]!.idf * shareBound(cursor.blockMaxTf(), cursor.blockMinLength()) * SLACK;
        }
        pass = bound * maxRecency * entityBoost * SLACK < threshold;
      }
      const when = published[doc]!;
      if (!pass && until !== undefined && when > until) pass = true;
      if (!pass) {
        recency = recencyAt(when);
        factor = recency * entityBoost * SLACK;
        pass = bound * factor < threshold;
      }
    }
    if (!pass && signal) {
      // The essential terms' exact shares, then the others' (largest bound first) while the bound can still reach the top-k.
      let partial = 0;
      shares.fill(0);
      for (let i = firstEssential; i < n; i += 1) {
        const t = order[i]!;
        const cursor = terms[t]!.cursor;
        if (cursor.doc === doc && cursor.tf > 0) {
          shares[t] = terms[t]!.idf * share(cursor.tf, doc);
          partial += shares[t]!;
        }
      }
      for (let i = firstEssential - 1; i >= 0; i -= 1) {
        if ((partial + prefix[i + 1]!) * SLACK * factor < threshold) {
          pass = true;
          break;
        }
        const t = order[i]!;
        const cursor = terms[t]!.cursor;
        cursor.seek(doc);
        if (cursor.doc === doc && cursor.tf > 0) {
          shares[t] = terms[t]!.idf * share(cursor.tf, doc);
          partial += shares[t]!;
        }
      }
      if (!pass) {
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
        const last = top.length === limit ? top[limit - 1]! : null;
        if (any && !(last && !(score > last.score || (score === last.score && signal.published_at > last.signal.published_at)))) {
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
    }
    // On to the next document: every essential cursor at this one moves past it.
    for (let i = firstEssential; i < n; i += 1) {
      const cursor = terms[order[i]!]!.cursor;
      if (cursor.doc === doc) cursor.next();
    }
  }
  return top;
}
