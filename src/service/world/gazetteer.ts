/**
 * The built-in gazetteer (gazetteer.json beside this file), typed: India's retail segments and
 * how analysts write them, the retailers with their parents and aliases, cities, states, and
 * the organisations signals name. It is data, not code: the entity registry (entity-registry.ts)
 * seeds itself from it, and the sample generator (corpus/) draws its names from it. Read once,
 * checked on load: a segment the service does not know is an error here, not a silent miss later.
 */
import data from './gazetteer.json' with { type: 'json' };

export const SEGMENTS = ['grocery', 'quick commerce', 'fashion', 'electronics', 'beauty', 'jewellery', 'pharmacy'] as const;
export type Segment = (typeof SEGMENTS)[number];

const isSegment = (value: string): value is Segment => (SEGMENTS as readonly string[]).includes(value);
function segment(value: string, where: string): Segment {
  if (!isSegment(value)) throw new Error(`gazetteer.json: ${where} names the unknown segment "${value}"`);
  return value;
}

/** Extra ways analysts write a segment, used by retrieval to spot it in a question. */
export const SEGMENT_ALIASES = Object.fromEntries(SEGMENTS.map((name) => [name, data.segments[name] ?? [name]])) as Record<Segment, string[]>;

export interface Retailer {
  name: string;
  segment: Segment;
  parent?: string;
  listed: boolean;
  /** Sells online only: no store network to count. */
  online?: boolean;
}

export const RETAILERS: Retailer[] = data.retailers.map((retailer) => ({ ...retailer, segment: segment(retailer.segment, retailer.name) }));

/**
 * Other ways analysts write a retailer (normalised: lower case; spaces, hyphens and
 * apostrophes are ignored when matching). Parent names shared by several brands
 * (Trent, Reliance Retail, Titan, Tata Digital, Flipkart) resolve to all of them.
 */
export const RETAILER_ALIASES: Record<string, string[]> = data.retailerAliases;

export interface City {
  city: string;
  state: string;
}
export const CITIES: City[] = data.cities;
/** Other names of cities (old names, short forms). */
export const CITY_ALIASES: Record<string, string[]> = data.cityAliases;
/** States and union territories, with older and short names. */
export const STATES: Record<string, string[]> = data.states;
/** Names that are also common English words ("Eternal", "Max", "Sugar"): they count only when capitalised. */
export const CASE_SENSITIVE_NAMES: ReadonlySet<string> = new Set(data.caseSensitive);

export interface Regulator {
  name: string;
  segments: Segment[];
  /** The state a state body acts for ("Karnataka Labour Department" → Karnataka); national bodies have none. */
  jurisdiction?: string;
}
const organisations = data.organisations;
export const REGULATORS: Regulator[] = organisations.regulators.map((regulator) => ({ ...regulator, segments: regulator.segments.map((name) => segment(name, regulator.name)) }));
export const INDUSTRY_BODIES: string[] = organisations.industryBodies;
export const PRESS: string[] = organisations.press;
export const JOB_BOARDS: string[] = organisations.jobBoards;
export const APP_RANK_TRACKERS: string[] = organisations.appRankTrackers;
/** Price trackers and the segment each one follows. */
export const PRICE_TRACKER_SEGMENTS: Record<string, Segment> = Object.fromEntries(Object.entries(organisations.priceTrackers).map(([name, value]) => [name, segment(value, name)]));
export const PRICE_TRACKERS = Object.keys(PRICE_TRACKER_SEGMENTS);
export const EXCHANGES: string[] = organisations.exchanges;
export const INVESTORS: string[] = organisations.investors;
export const PARTNERS: string[] = organisations.partners;

/** Every organisation signals name that is not a retailer (regulators, press, trackers, investors…). */
export const ORGANISATION_NAMES: string[] = [...REGULATORS.map((regulator) => regulator.name), ...INDUSTRY_BODIES, ...PRESS, ...JOB_BOARDS, ...APP_RANK_TRACKERS, ...PRICE_TRACKERS, ...EXCHANGES, ...INVESTORS, ...PARTNERS];
