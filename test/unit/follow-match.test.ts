/**
 * A `query` follow matches a signal when every word of the query is among the signal's words
 * (title, summary, entity names, tokenized). The matcher skips tokenizing ASCII text that cannot
 * hold the words; this checks it never answers otherwise than tokenizing everything would.
 */
import { describe, expect, it } from 'vitest';
import type { CorpusSignal } from '../../src/service/corpus/generator';
import { entityNames, lazyWords, matchesTarget, targetMatcher } from '../../src/service/follows/signal-query';
import { tokenize } from '../../src/service/retrieval/search-index';

const signal = (title: string, summary: string, retailers: string[] = []): CorpusSignal =>
  ({ id: 'sig_1', slug: 's', title, summary, entities: { retailers, segments: [], cities: [], states: [] } }) as unknown as CorpusSignal;

const byTokenizing = (s: CorpusSignal, query: string): boolean => {
  const words = new Set(tokenize(`${s.title} ${s.summary} ${entityNames(s).join(' ')}`));
  return tokenize(query).every((word) => words.has(word));
};

const texts: Array<[string, string, string[]]> = [
  ['Zudio opens 12 stores in Pune', 'Growth of value fashion', ['Zudio']],
  ['Stories of growth', 'Retailers growing fast; studies show', []],
  ['Café chain expands', 'résumé of ﬁnancial results, ＺＵＤＩＯ in fullwidth', []],
  ['İstanbul-style stores', 'Quick commerce', ['Blinkit']],
  ['DMart quarterly update', 'Same-store sales grew 9%', ['DMart', 'Avenue Supermarts']],
  ['', '', []],
];
const queries = ['zudio store', 'zudio stores 12', 'story', 'stories', 'growth', 'grow', 'growing', 'study', 'cafe', 'financial', 'zudio', 'istanbul', 'quick commerce', 'dmart avenue', 'sales grew', 'sam', 'resume', 'sume', 'blinkit stores'];

describe('query follows', () => {
  it('match exactly when every query word is among the signal words, ASCII or not', () => {
    for (const [title, summary, retailers] of texts) {
      const s = signal(title, summary, retailers);
      for (const query of queries) {
        const expected = byTokenizing(s, query);
        expect({ title, query, matched: matchesTarget(s, { type: 'query', value: query }) }).toEqual({ title, query, matched: expected });
        expect(targetMatcher({ type: 'query', value: query })(s, lazyWords(s))).toBe(expected);
      }
    }
  });
});
