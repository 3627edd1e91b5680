/**
 * Read-only queries over the signal store for Discover, follows and forecasts: the listed
 * shape of a signal, filters, and which follows a signal matches.
 */
import type { DiscoverItem, FollowTarget } from '../../shared/surface-schemas';
import type { CorpusSignal } from '../world/signal-types';
import { worldEntities } from '../world/entity-registry';
import { CITIES, RETAILERS, SEGMENTS } from '../world/gazetteer';
import { tokenize } from '../retrieval/search-index';
import type { SignalStore } from '../signal-store';

export function discoverItem(store: SignalStore, signal: CorpusSignal): DiscoverItem {
  const source = store.sourcesById.get(signal.source_id);
  return {
    id: signal.id,
    slug: signal.slug,
    title: signal.title,
    summary: signal.summary,
    published_at: signal.published_at,
    source: { id: signal.source_id, name: source?.name ?? signal.source_id },
    entities: signal.entities,
    metrics: signal.metrics,
    url: signal.url,
    type: signal.type,
    // Where it came from: a fetched source, or the synthetic sample.
    origin: 'origin' in signal && signal.origin === 'feed' ? 'feed' : 'sample',
  };
}

const lower = (text: string): string => text.trim().toLowerCase();

/** Every entity a signal names (retailers, segments, cities, states), lower-cased. */
export function entityNames(signal: CorpusSignal): string[] {
  const { retailers, segments, cities, states } = signal.entities;
  return [...retailers, ...segments, ...cities, ...states].map(lower);
}

/** Retailer, segment, city and state names the corpus knows, by lower-case name. */
const KNOWN_ENTITIES = new Map<string, string>(
  [...RETAILERS.flatMap((r) => [r.name, ...(r.parent ? [r.parent] : [])]), ...SEGMENTS, ...CITIES.flatMap((c) => [c.city, c.state])].map((name) => [lower(name), name]),
);

/**
 * The canonical spelling of a follow's value, or null when nothing in the corpus could
 * ever match it (the caller gets a 400 naming the problem instead of a silent follow).
 */
export function canonicalTarget(store: SignalStore, target: FollowTarget): FollowTarget | null {
  const wanted = lower(target.value);
  switch (target.type) {
    case 'entity': {
      // A learned entity (issue 43) is followed by its name, also when given by an alias.
      const learned = worldEntities.find(target.value);
      const name = KNOWN_ENTITIES.get(wanted) ?? (learned?.origin === 'learned' ? learned.name : undefined);
      return name ? { type: 'entity', value: name } : null;
    }
    case 'segment': {
      const segment = SEGMENTS.find((s) => s === wanted);
      return segment ? { type: 'segment', value: segment } : null;
    }
    case 'city': {
      const city = CITIES.find((c) => lower(c.city) === wanted || lower(c.state) === wanted);
      return city ? { type: 'city', value: lower(city.city) === wanted ? city.city : city.state } : null;
    }
    case 'source': {
      const source = store.sourcesById.get(target.value.trim()) ?? store.sources.find((s) => lower(s.name) === wanted);
      return source ? { type: 'source', value: source.id } : null;
    }
    case 'query':
      return tokenize(target.value).length > 0 ? { type: 'query', value: target.value.trim() } : null;
  }
}

/** The text a `query` target is matched against: the signal's title, summary and entity names. */
const matchedText = (signal: CorpusSignal): string => `${signal.title} ${signal.summary} ${entityNames(signal).join(' ')}`;

const NON_ASCII = /[^\u0000-\u007f]/u; // eslint-disable-line no-control-regex -- the whole ASCII range, on purpose

/** What matching needs of a signal's text, made once per signal (a backfill or a team caller's 1,000 follows test it again and again). */
interface MatchedText {
  /** What it was made from: a signal changed in place since is made again. */
  title: string;
  summary: string;
  entityCount: number;
  /** The lower-cased text; null when it is not all ASCII (then always tokenized). */
  asciiLowered: string | null;
  words: Set<string> | null;
}

const matchedTexts = new WeakMap<CorpusSignal, MatchedText>();

function matchedTextOf(signal: CorpusSignal): MatchedText {
  const { retailers, segments, cities, states } = signal.entities;
  const entityCount = retailers.length + segments.length + cities.length + states.length;
  let known = matchedTexts.get(signal);
  if (!known || known.title !== signal.title || known.summary !== signal.summary || known.entityCount !== entityCount) {
    const text = matchedText(signal);
    known = { title: signal.title, summary: signal.summary, entityCount, asciiLowered: NON_ASCII.test(text) ? null : text.toLowerCase(), words: null };
    matchedTexts.set(signal, known);
  }
  return known;
}

function signalWords(signal: CorpusSignal): Set<string> {
  const known = matchedTextOf(signal);
  known.words ??= new Set(tokenize(matchedText(signal)));
  return known.words;
}

/**
 * Whether a signal's text may hold every one of the tokens, without tokenizing it: `tokenize`'s
 * stemmer only cuts a suffix or turns "ies" into "y", so a token's letters but its last always
 * begin a word of the lower-cased text. False means certainly not; true means "tokenize to know".
 * (Other text is always tokenized: lower-casing and NFKD can turn non-ASCII into ASCII letters.)
 */
function mayHoldTokens(signal: CorpusSignal, stems: string[]): boolean {
  const lowered = matchedTextOf(signal).asciiLowered;
  return lowered === null || stems.every((stem) => lowered.includes(stem));
}

/**
 * A (canonical) follow target made ready to test many signals: its value lower-cased and, for a
 * query, tokenized once. `words` (from `lazyWords`) gives the signal's words, so a caller testing one signal
 * against many targets tokenizes it once (a team caller may hold 1,000 follows).
 */
export function targetMatcher(target: FollowTarget): (signal: CorpusSignal, words?: () => Set<string>) => boolean {
  const value = lower(target.value);
  switch (target.type) {
    case 'entity': {
      // A parent company matches its brands' signals.
      const brands = RETAILERS.filter((r) => r.parent !== undefined && lower(r.parent) === value).map((r) => r.name);
      return (signal) => entityNames(signal).includes(value) || brands.some((brand) => signal.entities.retailers.includes(brand));
    }
    case 'segment':
      return (signal) => signal.entities.segments.some((s) => lower(s) === value);
    case 'city':
      return (signal) => [...signal.entities.cities, ...signal.entities.states].some((c) => lower(c) === value);
    case 'source':
      return (signal) => signal.source_id === target.value;
    case 'query': {
      const wanted = tokenize(target.value);
      const stems = wanted.map((word) => word.slice(0, -1));
      return (signal, words) => {
        // The cheap test first: a backfill tests every recent signal against one new follow.
        if (!mayHoldTokens(signal, stems)) return false;
        const have = words ? words() : signalWords(signal);
        return wanted.every((word) => have.has(word));
      };
    }
  }
}

/** A signal's words, computed on first use and then kept (for one signal tested against many targets). */
export function lazyWords(signal: CorpusSignal): () => Set<string> {
  let words: Set<string> | null = null;
  return () => (words ??= signalWords(signal));
}

/** Whether a signal matches a (canonical) follow target. */
export function matchesTarget(signal: CorpusSignal, target: FollowTarget): boolean {
  return targetMatcher(target)(signal);
}

export interface SignalFilter {
  ids?: string[];
  entity?: string;
  segment?: string;
  city?: string;
  source?: string;
  kind?: string;
  sinceMs?: number;
  untilMs?: number;
}

/** A predicate for Discover's filters; every given filter must hold. */
export function signalPredicate(store: SignalStore, filter: SignalFilter): (signal: CorpusSignal) => boolean {
  const ids = filter.ids && filter.ids.length > 0 ? new Set(filter.ids) : null;
  const entity = filter.entity ? ({ type: 'entity', value: filter.entity } as const) : null;
  const segment = filter.segment ? lower(filter.segment) : null;
  const city = filter.city ? ({ type: 'city', value: filter.city } as const) : null;
  const source = filter.source ? (store.sourcesById.get(filter.source)?.id ?? store.sources.find((s) => lower(s.name) === lower(filter.source!))?.id ?? filter.source) : null;
  const kind = filter.kind ? lower(filter.kind) : null;
  return (signal) => {
    if (ids && !ids.has(signal.id)) return false;
    if (entity && !matchesTarget(signal, entity)) return false;
    if (segment && !signal.entities.segments.some((s) => lower(s) === segment)) return false;
    if (city && !matchesTarget(signal, city)) return false;
    if (source && signal.source_id !== source) return false;
    if (kind && signal.type !== kind && store.sourcesById.get(signal.source_id)?.kind !== kind) return false;
    if (filter.sinceMs !== undefined || filter.untilMs !== undefined) {
      const at = Date.parse(signal.published_at);
      if (filter.sinceMs !== undefined && at < filter.sinceMs) return false;
      if (filter.untilMs !== undefined && at > filter.untilMs) return false;
    }
    return true;
  };
}

/** Newest first; ties broken by id so paging is stable. */
export function newestFirst(a: CorpusSignal, b: CorpusSignal): number {
  if (a.published_at !== b.published_at) return a.published_at > b.published_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
