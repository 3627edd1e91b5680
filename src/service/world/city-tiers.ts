/**
 * City tiers as India classifies them: the HRA (house rent allowance) classification of cities
 * into X, Y and Z (city-tiers.json names its source, the Department of Expenditure's 2017 O.M.).
 * X is tier 1, Y tier 2, every other city or town Z, tier 3. "Tier-2 cities" in a question or a
 * research topic means the Y cities: Pune and Ahmedabad are X, Gurugram and Noida are Y.
 */
import data from './city-tiers.json' with { type: 'json' };
import { CITIES, CITY_ALIASES } from './gazetteer';

export type CityTier = 1 | 2 | 3;

const key = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]+/g, '');

interface TieredCity {
  /** The name the service uses ("Mumbai" for the annexure's "Greater Mumbai"). */
  city: string;
  state: string;
  tier: CityTier;
}

const TIERED: TieredCity[] = [
  ...data.X.map((entry) => ({ city: 'as' in entry && entry.as ? entry.as : entry.city, state: entry.state, tier: 1 as const })),
  ...data.Y.map((entry) => ({ city: 'as' in entry && entry.as ? entry.as : entry.city, state: entry.state, tier: 2 as const })),
];

/** Every way of writing a classified city → its tier: the annexure's name, the service's, the gazetteer's aliases. */
const TIER_BY_KEY = new Map<string, CityTier>();
for (const [index, entry] of [...data.X, ...data.Y].entries()) {
  const tiered = TIERED[index]!;
  TIER_BY_KEY.set(key(entry.city), tiered.tier);
  TIER_BY_KEY.set(key(tiered.city), tiered.tier);
  for (const alias of CITY_ALIASES[tiered.city] ?? []) TIER_BY_KEY.set(key(alias), tiered.tier);
}

/** The HRA tier of a city (any spelling the gazetteer knows); a city in neither list is Z, tier 3. */
export function cityTier(city: string): CityTier {
  return TIER_BY_KEY.get(key(city)) ?? 3;
}

/** The classified cities of a tier (1 or 2), by the service's names; tier 3 is "every other", so it lists none. */
export function classifiedCities(tier: CityTier): TieredCity[] {
  return TIERED.filter((entry) => entry.tier === tier);
}

/** The gazetteer's cities in a tier: the ones signals are tagged with. */
export function knownCitiesOfTier(tier: CityTier): string[] {
  return CITIES.filter((entry) => cityTier(entry.city) === tier).map((entry) => entry.city);
}

const NUMBER: Record<string, CityTier> = { '1': 1, '2': 2, '3': 3, i: 1, ii: 2, iii: 3, one: 1, two: 2, three: 3, first: 1, second: 2, third: 3 };
const HRA_CLASS: Record<string, CityTier> = { x: 1, y: 2, z: 3 };

/**
 * The city tier a question or research topic restricts itself to: "tier-2", "tier 2", "Tier II",
 * "tier two", "tier2", "second-tier", "Y-class cities". Null when it names none, or names two
 * ("tier 1 and tier 2": no restriction to one tier).
 */
export function cityTierIn(text: string): CityTier | null {
  const found = new Set<CityTier>();
  for (const match of text.matchAll(/\btier[\s-]*(iii|ii|i|1|2|3|one|two|three)\b/gi)) found.add(NUMBER[match[1]!.toLowerCase()]!);
  for (const match of text.matchAll(/\b(first|second|third)[\s-]+tier\b/gi)) found.add(NUMBER[match[1]!.toLowerCase()]!);
  for (const match of text.matchAll(/\b([xyz])[\s-]*(?:class|category)\s+(?:cities|city|towns?)\b/gi)) found.add(HRA_CLASS[match[1]!.toLowerCase()]!);
  return found.size === 1 ? [...found][0]! : null;
}

/** "tier-2 cities (HRA class Y)": how an answer names the restriction. */
export function describeCityTier(tier: CityTier): string {
  return `tier-${tier} cities (HRA class ${tier === 1 ? 'X' : tier === 2 ? 'Y' : 'Z'})`;
}

/** The source the tiers follow, for an answer's or report's note. */
export const CITY_TIER_SOURCE: string = data.source;

/**
 * A search query for a question or research topic that names a city tier: the text plus the
 * tier's cities, which is how signals name them ("tier-2 quick commerce" → "… Jaipur Lucknow …").
 * The text unchanged when it names no tier. Pair it with the frame's `cityTier` filter
 * (answers/question.ts `inFramePlace`), which keeps other tiers' signals out.
 */
export function withTierCities(text: string): string {
  const tier = cityTierIn(text);
  const cities = tier ? knownCitiesOfTier(tier) : [];
  return cities.length > 0 ? `${text} ${cities.join(' ')}` : text;
}
