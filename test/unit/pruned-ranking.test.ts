/**
 * The search index's pruned top-k (src/service/retrieval/top-k.ts) over compressed postings
 * (postings.ts), decision 0040: on random corpora and questions it gives exactly the hits, scores
 * and order that scoring every document gives, and a posting list gives back what went in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../../src/service/corpus/generator';
import { END, PostingList } from '../../src/service/retrieval/postings';
import { extractEntities, SignalSearchIndex, tokenize, type SearchHit } from '../../src/service/retrieval/search-index';
import type { CorpusSignal } from '../../src/service/world/signal-types';

const NOW = Date.parse('2026-11-01T00:00:00Z');
const K1 = 1.2;
const B = 0.75;

/** Every document scored (the ranking as design.md §2 defines it), from the index's own snapshot; ties of score and date by document order. */
function exhaustive(index: SignalSearchIndex, signals: readonly CorpusSignal[], question: string, limit: number, until?: number): SearchHit[] {
  const { lengths, postings } = index.snapshot();
  const count = lengths.length;
  const avgLength = lengths.reduce((sum, length) => sum + length, 0) / count;
  const scores = new Map<number, number>();
  for (const term of new Set(tokenize(question))) {
    const list = postings[term];
    if (!list) continue;
    const documents = list.length / 2;
    const idf = Math.log(1 + (count - documents + 0.5) / (documents + 0.5));
    for (let at = 0; at < list.length; at += 2) {
      const doc = list[at]!;
      const tf = list[at + 1]!;
      const norm = tf * (K1 + 1) / (tf + K1 * (1 - B + (B * lengths[doc]!) / avgLength));
      scores.set(doc, (scores.get(doc) ?? 0) + idf * norm);
    }
  }
  const entities = extractEntities(question);
  const named = (['retailers', 'segments', 'cities', 'states'] as const).flatMap((kind) => entities[kind].map((name) => [kind, name] as const));
  const hits: (SearchHit & { doc: number })[] = [];
  for (const [doc, textScore] of scores) {
    const signal = signals[doc]!;
    const published = Date.parse(signal.published_at);
    if (until !== undefined && published > until) continue;
    const recency = 1 + 0.6 * 0.5 ** (Math.max(0, (NOW - published) / 86_400_000) / 45);
    const entityMatches = named.filter(([kind, name]) => signal.entities[kind].includes(name)).length;
    const entityBoost = named.length === 0 ? 1 : ((1 + entityMatches) / (1 + named.length)) * (1 + 0.5 * entityMatches);
    hits.push({ signal, textScore, score: textScore * recency * entityBoost, entityMatches, doc });
  }
  hits.sort((a, b) => b.score - a.score || (a.signal.published_at < b.signal.published_at ? 1 : a.signal.published_at > b.signal.published_at ? -1 : 0) || a.doc - b.doc);
  return hits.slice(0, limit).map(({ doc: _doc, ...hit }) => hit);
}

const words = ['DMart', 'Zudio', 'Pune', 'Bengaluru', 'grocery', 'store', 'stores', 'opening', 'funding', 'quick commerce', 'fashion', 'retail', 'Reliance Retail', 'results', 'Blinkit', 'Delhi', 'hiring', 'electronics', 'pricing', 'closures', 'expansion', 'Tata', 'growing', 'Mumbai', 'crore', 'quarter'];
const question = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((picked) => picked.join(' '));

describe('pruned top-k', () => {
  const corpora = [1, 2, 3].map((seed) => generateCorpus({ signalCount: 800, seed }).signals);

  it('ranks exactly as scoring every document, on random corpora, questions and sizes', () => {
    fc.assert(
      fc.property(fc.constantFrom(...corpora), fc.integer({ min: 20, max: 800 }), question, fc.integer({ min: 1, max: 200 }), fc.option(fc.integer({ min: 0, max: 300 })), (corpus, size, asked, limit, untilDays) => {
        // A random prefix of a random corpus (generating one per run would take most of the test).
        const signals = corpus.slice(0, size);
        const index = new SignalSearchIndex(signals);
        const until = untilDays === null ? undefined : NOW - untilDays * 86_400_000;
        const got = index.search(asked, { now: NOW, limit, ...(until === undefined ? {} : { until }) });
        const want = exhaustive(index, signals, asked, limit, until);
        expect(got.map((hit) => [hit.signal.id, hit.score, hit.textScore, hit.entityMatches])).toEqual(want.map((hit) => [hit.signal.id, hit.score, hit.textScore, hit.entityMatches]));
      }),
      { numRuns: 60, seed: 48 },
    );
  }, 120_000);

  it('ranks exactly as scoring every document after signals are added, replaced and appended from a snapshot', () => {
    const base = generateCorpus({ signalCount: 400, seed: 3 }).signals;
    const more = generateCorpus({ signalCount: 300, seed: 11 }).signals.map((signal, i) => ({ ...signal, id: `sig_more${i}` }));
    const index = new SignalSearchIndex(base);
    const source = new SignalSearchIndex(more);
    const { signals: kept, packed } = source.packedSnapshotOf(more.map((signal) => signal.id));
    index.appendPacked(kept, packed);
    const all: CorpusSignal[] = [...base, ...kept];
    // A replaced signal of each part: its postings move within lists read from the snapshot too.
    for (const at of [5, 450]) {
      const replaced = { ...all[at]!, title: `DMart grocery store opening in Pune ${at}`, body: 'Zudio fashion retail expansion' };
      index.replace(replaced);
      all[at] = replaced;
    }
    const added = { ...base[0]!, id: 'sig_added', title: 'Blinkit quick commerce funding in Delhi' };
    index.add(added);
    all.push(added);
    fc.assert(
      fc.property(question, fc.integer({ min: 1, max: 120 }), (asked, limit) => {
        const got = index.search(asked, { now: NOW, limit });
        const want = exhaustive(index, all, asked, limit);
        expect(got.map((hit) => [hit.signal.id, hit.score])).toEqual(want.map((hit) => [hit.signal.id, hit.score]));
      }),
      { numRuns: 80, seed: 7 },
    );
  }, 120_000);
});

describe('compressed postings', () => {
  const ascending = fc
    .array(fc.tuple(fc.integer({ min: 1, max: 70_000 }), fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 5_000 })), { maxLength: 600 })
    .map((steps) => {
      let doc = -1;
      return steps.map(([gap, tf, length]) => ({ doc: (doc += gap), tf, length }));
    });

  it('gives back every posting it was given, in order, and finds any document by seeking', () => {
    fc.assert(
      fc.property(ascending, fc.array(fc.integer({ min: 0, max: 4_000_000 }), { maxLength: 20 }), (postings, targets) => {
        const list = new PostingList();
        for (const { doc, tf, length } of postings) list.push(doc, tf, length);
        expect(list.toPairs()).toEqual(postings.flatMap(({ doc, tf }) => [doc, tf]));
        expect(list.count).toBe(postings.length);
        list.trim();
        expect(list.toPairs()).toEqual(postings.flatMap(({ doc, tf }) => [doc, tf]));
        // Seeking forward lands on the first posting at or after each target (END past the last).
        const cursor = list.cursor();
        for (const target of [...targets].sort((a, b) => a - b)) {
          cursor.seek(target);
          const want = postings.find(({ doc }) => doc >= target);
          expect([cursor.doc, cursor.doc === END ? null : cursor.tf]).toEqual(want ? [want.doc, want.tf] : [END, null]);
          if (want) {
            // The block's bounds hold for the posting it is at.
            expect(cursor.blockMaxTf()).toBeGreaterThanOrEqual(want.tf);
            expect(cursor.blockMinLength()).toBeLessThanOrEqual(want.length);
            expect(cursor.blockLast()).toBeGreaterThanOrEqual(want.doc);
          }
        }
      }),
      { numRuns: 200, seed: 48 },
    );
  });

  it('refuses a posting out of order or not whole, and keeps what it had', () => {
    const list = new PostingList();
    list.push(4, 3, 10);
    expect(() => list.push(4, 1, 10)).toThrow(/out of order/);
    expect(() => list.push(9, 1.5, 10)).toThrow(/not whole/);
    expect(list.toPairs()).toEqual([4, 3]);
  });
});
