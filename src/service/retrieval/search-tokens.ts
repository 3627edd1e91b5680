/** The words a question or a signal is searched by (lower case, no stop words, lightly stemmed) and the entities a question names (search-index.ts). */
import type { CorpusSignal } from '../world/signal-types';
import { resolveEntities } from './entity-resolver';
import { TITLE_WEIGHT, type QueryEntities } from './search-types';

export const STOPWORDS = new Set(
  'a an and are as at be by did do does for from has have how in is it its of on or that the their this to was were what when where which who why will with about across over than into vs versus fast much many latest recent tell me show give'.split(
    ' ',
  ),
);

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.toLowerCase().normalize('NFKD').split(/[^a-z0-9]+/)) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    tokens.push(stem(raw));
  }
  return tokens;
}

/** A light suffix stemmer: enough to match growing/grows/growth and stores/store. */
function stem(token: string): string {
  if (token.length > 5 && token.endsWith('ing')) return token.slice(0, -3);
  if (token.length > 4 && token.endsWith('ies')) return `${token.slice(0, -3)}y`;
  if (token.length > 4 && token.endsWith('th') && token.startsWith('grow')) return 'grow';
  if (token.length > 3 && token.endsWith('s') && !token.endsWith('ss')) return token.slice(0, -1);
  return token;
}

/** A signal's weighted term counts (title words count TITLE_WEIGHT times) and its length in those weights. */
export function termCounts(signal: CorpusSignal): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  const addTokens = (text: string, weight: number): number => {
    const tokens = tokenize(text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + weight);
    return tokens.length * weight;
  };
  const entities = signal.entities;
  const length =
    addTokens(signal.title, TITLE_WEIGHT) +
    addTokens(signal.body, 1) +
    addTokens([...entities.retailers, ...entities.segments, ...entities.cities, ...entities.states].join(' '), 1);
  return { counts, length };
}

/** Finds the retailers, segments, cities and states a question names (aliases and parents included). */
export function extractEntities(question: string): QueryEntities {
  const { retailers, segments, cities, states } = resolveEntities(question);
  return { retailers, segments, cities, states };
}
