/**
 * The shipped gazetteer: Indian retailers and their brands and parents, segments, cities and
 * states, each with the other ways people write it (D-Mart / Avenue Supermarts, Bengaluru /
 * Bangalore). Matched on word boundaries in one pass; a name that is also a common English word
 * ("Eternal", "Max", "Sugar") counts only when capitalised.
 */
import { CITIES, CITY_ALIASES, RETAILER_ALIASES, RETAILERS, SEGMENT_ALIASES } from '../corpus/vocabulary';

export interface FoundEntities {
  retailers: string[];
  segments: string[];
  cities: string[];
  states: string[];
}

/** States and union territories, with older and short names. */
export const STATES: Record<string, string[]> = {
  'Andhra Pradesh': [], 'Arunachal Pradesh': [], Assam: [], Bihar: [], Chhattisgarh: ['chattisgarh'], Goa: [], Gujarat: [], Haryana: [],
  'Himachal Pradesh': [], Jharkhand: [], Karnataka: [], Kerala: [], 'Madhya Pradesh': [], Maharashtra: [], Manipur: [], Meghalaya: [],
  Mizoram: [], Nagaland: [], Odisha: ['orissa'], Punjab: [], Rajasthan: [], Sikkim: [], 'Tamil Nadu': ['tamilnadu'], Telangana: [],
  Tripura: [], 'Uttar Pradesh': [], Uttarakhand: ['uttaranchal'], 'West Bengal': [], Delhi: ['nct of delhi'], 'Jammu and Kashmir': ['jammu & kashmir', 'j&k'],
  Ladakh: [], Puducherry: ['pondicherry'], Chandigarh: [], 'Andaman and Nicobar Islands': [], Lakshadweep: [], 'Dadra and Nagar Haveli and Daman and Diu': [],
};

const CASE_SENSITIVE = new Set(['eternal', 'max', 'more', 'sugar', 'tira', 'trends', 'apollo', 'amazon', 'smart', 'minutes', 'gold', 'fsn']);

type Kind = keyof FoundEntities;
interface Entry { kind: Kind; name: string }

function buildMatcher(): { pattern: RegExp; byAlias: Map<string, Entry[]> } {
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
  const escaped = [...byAlias.keys()].sort((a, b) => b.length - a.length).map((alias) => alias.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[\s-]+/g, '[\\s-]+'));
  return { pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'giu'), byAlias };
}

let matcher: ReturnType<typeof buildMatcher> | null = null;
const cityState = new Map(CITIES.map((entry) => [entry.city, entry.state]));
const retailerSegment = new Map(RETAILERS.map((retailer) => [retailer.name, retailer.segment]));

export function findEntities(text: string): FoundEntities {
  matcher ??= buildMatcher();
  const found: Record<Kind, Set<string>> = { retailers: new Set(), segments: new Set(), cities: new Set(), states: new Set() };
  for (const match of text.matchAll(matcher.pattern)) {
    const written = match[0];
    const key = written.toLowerCase().replace(/[\s-]+/g, (run) => (run.includes('-') && !/\s/.test(run) ? '-' : ' '));
    const entries = matcher.byAlias.get(key) ?? matcher.byAlias.get(written.toLowerCase()) ?? [];
    if (CASE_SENSITIVE.has(key) && !/^\p{Lu}/u.test(written)) continue;
    for (const entry of entries) found[entry.kind].add(entry.name);
  }
  for (const city of found.cities) {
    const state = cityState.get(city);
    if (state) found.states.add(state);
  }
  for (const retailer of found.retailers) {
    const segment = retailerSegment.get(retailer);
    if (segment) found.segments.add(segment);
  }
  return { retailers: [...found.retailers], segments: [...found.segments], cities: [...found.cities], states: [...found.states] };
}
