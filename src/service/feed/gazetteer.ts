/**
 * Tags fetched items with the world's entities: the built-in gazetteer's retailers and their
 * brands and parents, segments, cities and states, each with the other ways people write it
 * (D-Mart / Avenue Supermarts, Bengaluru / Bangalore), and the companies and brands the registry
 * has learned. Matched on word boundaries in one pass; a name that is also a common English word
 * ("Eternal", "Max", "Sugar") counts only when capitalised. The matcher is rebuilt when the
 * registry changes (world/entity-registry.ts).
 */
import { CASE_SENSITIVE_NAMES, CITIES, CITY_ALIASES, RETAILER_ALIASES, RETAILERS, SEGMENT_ALIASES, STATES } from '../world/gazetteer';
import { worldEntities, type EntityRegistry } from '../world/entity-registry';

export { STATES };

export interface FoundEntities {
  retailers: string[];
  segments: string[];
  cities: string[];
  states: string[];
}

type Kind = keyof FoundEntities;
interface Entry { kind: Kind; name: string }

interface Matcher {
  pattern: RegExp;
  byAlias: Map<string, Entry[]>;
  /** Keys that count only when written capitalised (common words; every learned name). */
  caseSensitive: Set<string>;
  retailerSegment: Map<string, string>;
}

function buildMatcher(registry: EntityRegistry): Matcher {
  const byAlias = new Map<string, Entry[]>();
  const add = (alias: string, entry: Entry): void => {
    const key = alias.toLowerCase();
    const list = byAlias.get(key) ?? [];
    if (!list.some((known) => known.kind === entry.kind && known.name === entry.name)) list.push(entry);
    byAlias.set(key, list);
  };
  for (const retailer of RETAILERS) {
    add(retailer.name, { kind: 'retailers', name: retailer.name });
    if (retailer.parent) add(retailer.parent, { kind: 'retailers', name: retailer.name });
  }
  for (const [name, aliases] of Object.entries(RETAILER_ALIASES)) for (const alias of aliases) add(alias, { kind: 'retailers', name });
  for (const [segment, aliases] of Object.entries(SEGMENT_ALIASES)) for (const alias of [segment, ...aliases]) add(alias, { kind: 'segments', name: segment });
  for (const { city } of CITIES) add(city, { kind: 'cities', name: city });
  for (const [city, aliases] of Object.entries(CITY_ALIASES)) for (const alias of aliases) add(alias, { kind: 'cities', name: city });
  for (const [state, aliases] of Object.entries(STATES)) for (const alias of [state, ...aliases]) add(alias, { kind: 'states', name: state });
  // Learned companies and brands tag items like retailers; a learned name is a name only when capitalised.
  const caseSensitive = new Set(CASE_SENSITIVE_NAMES);
  const retailerSegment = new Map<string, string>(RETAILERS.map((retailer) => [retailer.name, retailer.segment]));
  for (const entity of registry.learned()) {
    if (entity.kind === 'person') continue;
    for (const written of [entity.name, ...entity.aliases]) {
      const key = written.toLowerCase().replace(/\s+/g, ' ').trim();
      if (key.length < 2 || byAlias.has(key)) continue;
      add(key, { kind: 'retailers', name: entity.name });
      caseSensitive.add(key);
    }
    if (entity.segment) retailerSegment.set(entity.name, entity.segment);
  }
  const escaped = [...byAlias.keys()].sort((a, b) => b.length - a.length).map((alias) => alias.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[\s-]+/g, '[\\s-]+'));
  return { pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'giu'), byAlias, caseSensitive, retailerSegment };
}

const cityState = new Map(CITIES.map((entry) => [entry.city, entry.state]));

export function findEntities(text: string, registry: EntityRegistry = worldEntities): FoundEntities {
  const matcher = registry.derived('feed-gazetteer', buildMatcher);
  const found: Record<Kind, Set<string>> = { retailers: new Set(), segments: new Set(), cities: new Set(), states: new Set() };
  for (const match of text.matchAll(matcher.pattern)) {
    const written = match[0];
    const key = written.toLowerCase().replace(/[\s-]+/g, (run) => (run.includes('-') && !/\s/.test(run) ? '-' : ' '));
    const entries = matcher.byAlias.get(key) ?? matcher.byAlias.get(written.toLowerCase()) ?? [];
    if (matcher.caseSensitive.has(key) && !/^[\p{Lu}\p{N}]/u.test(written)) continue;
    for (const entry of entries) found[entry.kind].add(entry.name);
  }
  for (const city of found.cities) {
    const state = cityState.get(city);
    if (state) found.states.add(state);
  }
  for (const retailer of found.retailers) {
    const segment = matcher.retailerSegment.get(retailer);
    if (segment) found.segments.add(segment);
  }
  return { retailers: [...found.retailers], segments: [...found.segments], cities: [...found.cities], states: [...found.states] };
}
