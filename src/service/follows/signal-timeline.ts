/**
 * Every signal newest first, kept in order as live signals arrive, so Discover can page
 * through the corpus by walking from a position instead of sorting it per request. Beside it,
 * the same order per filter value (type or source kind, entity, city or state, segment, source):
 * a filtered page walks the shortest list that can hold its matches, so a rare type or entity
 * costs a page, not a walk over most of the corpus (profiled: bench/notes.md).
 */
import type { CorpusSignal } from '../world/signal-types';
import { RETAILERS } from '../world/gazetteer';
import type { SignalStore } from '../signal-store';
import { newestFirst, type SignalFilter } from './signal-query';

const lower = (text: string): string => text.trim().toLowerCase();
/** Signals put into the filter lists between two pauses of a warm (a few ms each). */
const WARM_STEP_SIGNALS = 1_000;
/** A retailer's group, by the retailer's name (an entity filter on the group matches its brands). */
const PARENT_OF = new Map(RETAILERS.flatMap((retailer) => (retailer.parent ? [[retailer.name, lower(retailer.parent)] as const] : [])));

export class SignalTimeline {
  /** Built at the first use, not at start (sorting 120,000 signals is a noticeable part of a restart). */
  private sorted: CorpusSignal[] | null = null;
  private readonly lists = new Map<string, CorpusSignal[]>();
  /** A build in steps under way (warm): the order taken, and how many of it are in the lists. */
  private building: { sorted: CorpusSignal[]; listed: number } | null = null;
  private readonly unsubscribe: () => void;

  constructor(private readonly store: SignalStore) {
    // Every signal the store comes to hold, a team process's read by the feed's sync included.
    this.unsubscribe = store.onSignalHeld((signal) => {
      // Not built yet: the build reads every signal the store then holds, this one included (a
      // build in steps that took its order before this signal begins again).
      if (!this.sorted) {
        this.building = null;
        this.lists.clear();
        return;
      }
      this.sorted.splice(firstAfter(this.sorted, signal), 0, signal);
      for (const key of this.keysOf(signal)) {
        const list = this.listOf(key);
        list.splice(firstAfter(list, signal), 0, signal);
      }
    });
  }

  /**
   * Builds it now if no request has (the service calls this once its index is warm and nobody has
   * asked anything for a while: extensions.ts), in steps of
   * WARM_STEP_SIGNALS awaiting `pause` between them: built in one step (1 s under load at
   * 120,000 signals, decision 0040 round 6) it held up the answers of the asks that had waited
   * for the warm index. A request that needs it meanwhile finishes the build at once.
   */
  async warm(pause: () => Promise<void>): Promise<void> {
    // A closed service's timeline is not built on for nobody.
    while (!this.closed && this.buildStep(WARM_STEP_SIGNALS)) await pause();
  }

  /** Whether the order and the filter lists are built (by a request or by warm). */
  get built(): boolean {
    return this.sorted !== null;
  }

  private get ordered(): CorpusSignal[] {
    while (this.buildStep(Number.POSITIVE_INFINITY));
    return this.sorted!;
  }

  /** One step of the build (the order first, then up to `limit` signals into the lists); false once built. */
  private buildStep(limit: number): boolean {
    if (this.sorted) return false;
    if (!this.building) {
      this.lists.clear();
      this.building = { sorted: [...this.store.allSignals()].sort(newestFirst), listed: 0 };
      if (limit !== Number.POSITIVE_INFINITY) return true;
    }
    const building = this.building;
    const end = Math.min(building.sorted.length, building.listed + limit);
    for (let at = building.listed; at < end; at += 1) {
      const signal = building.sorted[at]!;
      for (const key of this.keysOf(signal)) this.listOf(key).push(signal);
    }
    building.listed = end;
    if (end < building.sorted.length) return true;
    this.sorted = building.sorted;
    this.building = null;
    return false;
  }

  private closed = false;

  close(): void {
    this.closed = true;
    this.unsubscribe();
  }

  /** Index of the first signal that sorts after `reference` (binary search). */
  firstAfter(reference: Pick<CorpusSignal, 'published_at' | 'id'>): number {
    return firstAfter(this.ordered, reference);
  }

  /**
   * Up to `count` signals after `from` (or from the newest) that `keep` accepts and are published
   * by `untilIso`; `filter` (the one `keep` checks) picks the shortest list to walk.
   */
  take(count: number, keep: (signal: CorpusSignal) => boolean, untilIso: string, from: Pick<CorpusSignal, 'published_at' | 'id'> | null, filter: SignalFilter = {}): CorpusSignal[] {
    const list = this.candidates(filter);
    const found: CorpusSignal[] = [];
    // From the newest published by `untilIso`, that instant included (an empty id sorts before every id).
    let index = from ? firstAfter(list, from) : firstAfter(list, { published_at: untilIso, id: '' });
    for (; index < list.length && found.length < count; index += 1) {
      const signal = list[index]!;
      if (keep(signal)) found.push(signal);
    }
    return found;
  }

  /** The shortest newest-first list holding every signal the filter can accept. */
  private candidates(filter: SignalFilter): CorpusSignal[] {
    if (filter.ids && filter.ids.length > 0) {
      return [...new Set(filter.ids)].flatMap((id) => this.store.getSignal(id) ?? []).sort(newestFirst);
    }
    const keys: string[] = [];
    if (filter.kind) keys.push(`kind:${lower(filter.kind)}`);
    if (filter.entity) keys.push(`entity:${lower(filter.entity)}`);
    if (filter.segment) keys.push(`segment:${lower(filter.segment)}`);
    if (filter.city) keys.push(`city:${lower(filter.city)}`);
    if (filter.source) {
      const wanted = lower(filter.source);
      const source = this.store.sourcesById.get(filter.source) ?? this.store.sources.find((s) => lower(s.name) === wanted);
      keys.push(`source:${source?.id ?? filter.source}`);
    }
    let shortest = this.ordered;
    for (const key of keys) {
      const list = this.lists.get(key) ?? [];
      if (list.length < shortest.length) shortest = list;
    }
    return shortest;
  }

  /**
   * The lists a signal belongs to, each once: each a superset of what the matching filter accepts
   * (signalPredicate still decides). Every key is made once per distinct name (KeyCache), not per
   * signal: building the lists walks all 120,000 signals at the first Discover after a restart,
   * where a Set and lowered strings per signal took about half a second (bench/notes.md, issue 27 round 7).
   */
  private keysOf(signal: CorpusSignal): string[] {
    const keys: string[] = [];
    const add = (key: string | null): void => {
      if (key !== null && !keys.includes(key)) keys.push(key);
    };
    const { kinds, sources, entities, parents, segments, cities } = this.keyCache;
    add(kinds.of(signal.type));
    add(sources.of(signal.source_id));
    const sourceKind = this.store.sourcesById.get(signal.source_id)?.kind;
    if (sourceKind) add(kinds.of(sourceKind));
    const { retailers, segments: segmentNames, cities: cityNames, states } = signal.entities;
    for (const names of [retailers, segmentNames, cityNames, states]) for (const name of names) add(entities.of(name));
    for (const name of retailers) add(parents.of(name));
    for (const name of segmentNames) add(segments.of(name));
    for (const names of [cityNames, states]) for (const name of names) add(cities.of(name));
    return keys;
  }

  private readonly keyCache = {
    kinds: new KeyCache((raw) => `kind:${lower(raw)}`),
    sources: new KeyCache((raw) => `source:${raw}`),
    entities: new KeyCache((raw) => `entity:${lower(raw)}`),
    /** A retailer's group, by the retailer's name (none: null). */
    parents: new KeyCache((raw) => {
      const parent = PARENT_OF.get(raw);
      return parent ? `entity:${parent}` : null;
    }),
    segments: new KeyCache((raw) => `segment:${lower(raw)}`),
    cities: new KeyCache((raw) => `city:${lower(raw)}`),
  };

  private listOf(key: string): CorpusSignal[] {
    let list = this.lists.get(key);
    if (!list) {
      list = [];
      this.lists.set(key, list);
    }
    return list;
  }
}

/** A list key by the raw value it is made from, each made once. */
class KeyCache {
  private readonly keys = new Map<string, string | null>();
  constructor(private readonly make: (raw: string) => string | null) {}
  of(raw: string): string | null {
    let key = this.keys.get(raw);
    if (key === undefined) {
      key = this.make(raw);
      this.keys.set(raw, key);
    }
    return key;
  }
}

/** Index of the first signal in a newest-first list that sorts after `reference` (binary search). */
function firstAfter(list: readonly CorpusSignal[], reference: Pick<CorpusSignal, 'published_at' | 'id'>): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (newestFirst(list[mid]!, reference as CorpusSignal) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}
