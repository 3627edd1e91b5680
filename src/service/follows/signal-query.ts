/**
 * Read-only queries over the signal store for Discover, follows and forecasts: the listed
 * shape of a signal, filters, and which follows a signal matches.
 */
import type { DiscoverItem, FollowTarget } from '../../shared/surface-schemas';
import type { CorpusSignal } from '../corpus/generator';
import { CITIES, RETAILERS, SEGMENTS } from '../corpus/vocabulary';
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
      const name = KNOWN_ENTITIES.get(wanted);
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

/**
 * A signal's words, tokenized once per signal object (signals are not changed in place: an
 * update is a new object). A new follow's backfill matches every recent signal, and a feed read
 * matches each arrival against every follow: tokenizing anew each time made a follow cost
 * ~150 ms of CPU on a 20,000-signal corpus, and the 1,000-follow test run past its timeout on
 * a loaded machine.
 */
const WORDS = new WeakMap<CorpusSignal, Set<string>>();
function wordsOf(signal: CorpusSignal): Set<string> {
  let words = WORDS.get(signal);
  if (!words) {
    words = new Set(tokenize(`${signal.title} ${signal.summary} ${entityNames(signal).join(' ')}`));
    WORDS.set(signal, words);
  }
  return words;
}

/** A query target's words, tokenized once per target object (one follow is matched against many signals). */
const QUERY_WORDS = new WeakMap<FollowTarget, string[]>();
function queryWordsOf(target: FollowTarget): string[] {
  let words = QUERY_WORDS.get(target);
  if (!words) {
    words = tokenize(target.value);
    QUERY_WORDS.set(target, words);
  }
  return words;
}

/** Whether a signal matches a (canonical) follow target. */
export function matchesTarget(signal: CorpusSignal, target: FollowTarget): boolean {
  const value = lower(target.value);
  switch (target.type) {
    case 'entity':
      return entityNames(signal).includes(value) || RETAILERS.some((r) => r.parent !== undefined && lower(r.parent) === value && signal.entities.retailers.includes(r.name));
    case 'segment':
      return signal.entities.segments.some((s) => lower(s) === value);
    case 'city':
      return [...signal.entities.cities, ...signal.entities.states].some((c) => lower(c) === value);
    case 'source':
      return signal.source_id === target.value;
    case 'query': {
      const words = wordsOf(signal);
      return queryWordsOf(target).every((word) => words.has(word));
    }
  }
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
