/**
 * Tags fetched items with the world's entities: the built-in gazetteer's retailers and their
 * brands and parents, segments, cities and states, each with the other ways people write it
 * (D-Mart / Avenue Supermarts, Bengaluru / Bangalore), and the companies and brands the registry
 * has learned. Matched on word boundaries in one pass; a name that is also a common English word
 * ("Eternal", "Max", "Sugar") counts only when capitalised. The built-in names are one pattern,
 * built once; learned names are looked up a run of words at a time in the registry's lookup,
 * which grows as they are learned (world/entity-registry.ts): learning a name rebuilds nothing,
 * and a thousand learned names cost a text no more than ten (issue 43, measured in
 * `npm run bench:ingest`). Where a built-in and a learned name overlap, the longer one (the
 * first, if they start together) is the one written, as one pattern of both would read it.
 */
import { CASE_SENSITIVE_NAMES, CITIES, CITY_ALIASES, RETAILER_ALIASES, RETAILERS, SEGMENT_ALIASES, STATES } from '../world/gazetteer';
import { nameRunKey, nameTokens, worldEntities, type EntityRegistry } from '../world/entity-registry';

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
  /** Keys that count only when written capitalised (common words; learned names always are). */
  caseSensitive: Set<string>;
  retailerSegment: Map<string, string>;
}

function buildMatcher(): Matcher {
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
  const caseSensitive = new Set(CASE_SENSITIVE_NAMES);
  const retailerSegment = new Map<string, string>(RETAILERS.map((retailer) => [retailer.name, retailer.segment]));
  const escaped = [...byAlias.keys()].sort((a, b) => b.length - a.length).map((alias) => alias.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[\s-]+/g, '[\\s-]+'));
  return { pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'giu'), byAlias, caseSensitive, retailerSegment };
}

/** The built-in names never change: their pattern is built once, on first use. */
let builtIn: Matcher | null = null;

interface Found { start: number; end: number; entries: Entry[] }

/** Learned names (companies and brands) a text writes, capitalised, by the registry's run lookup. */
function learnedIn(text: string, registry: EntityRegistry): Found[] {
  const { byKey, longest } = registry.learnedRuns();
  if (byKey.size === 0) return [];
  const tokens = nameTokens(text);
  const found: Found[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    if (!tokens[i]!.capital) continue;
    for (let size = Math.min(longest, tokens.length - i); size >= 1; size -= 1) {
      const name = byKey.get(nameRunKey(tokens, i, i + size));
      if (name === undefined) continue;
      found.push({ start: tokens[i]!.start, end: tokens[i + size - 1]!.end, entries: [{ kind: 'retailers', name }] });
      i += size - 1;
      break;
    }
  }
  return found;
}
const cityState = new Map(CITIES.map((entry) => [entry.city, entry.state]));

export function findEntities(text: string, registry: EntityRegistry = worldEntities): FoundEntities {
  const matcher = (builtIn ??= buildMatcher());
  const found: Record<Kind, Set<string>> = { retailers: new Set(), segments: new Set(), cities: new Set(), states: new Set() };
  const matches: Found[] = [];
  for (const match of text.matchAll(matcher.pattern)) {
    const written = match[0];
    const key = written.toLowerCase().replace(/[\s-]+/g, (run) => (run.includes('-') && !/\s/.test(run) ? '-' : ' '));
    const entries = matcher.byAlias.get(key) ?? matcher.byAlias.get(written.toLowerCase()) ?? [];
    if (matcher.caseSensitive.has(key) && !/^[\p{Lu}\p{N}]/u.test(written)) continue;
    matches.push({ start: match.index, end: match.index + written.length, entries });
  }
  const learned = learnedIn(text, registry);
  if (learned.length > 0) {
    // Leftmost, then longest, wins where a built-in and a learned name overlap.
    matches.push(...learned);
    matches.sort((a, b) => a.start - b.start || b.end - a.end);
  }
  let taken = 0;
  for (const match of matches) {
    if (match.start < taken) continue;
    taken = match.end;
    for (const entry of match.entries) found[entry.kind].add(entry.name);
  }
  for (const city of found.cities) {
    const state = cityState.get(city);
    if (state) found.states.add(state);
  }
  for (const retailer of found.retailers) {
    const segment = matcher.retailerSegment.get(retailer) ?? registry.find(retailer)?.segment;
    if (segment) found.segments.add(segment);
  }
  return { retailers: [...found.retailers], segments: [...found.segments], cities: [...found.cities], states: [...found.states] };
}
