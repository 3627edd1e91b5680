// Claim extraction: the figures, dates, names and links a piece of text states, each with its position.
import {
  APP_RANK_TRACKERS,
  CITIES,
  CITY_ALIASES,
  EXCHANGES,
  INDUSTRY_BODIES,
  INVESTORS,
  JOB_BOARDS,
  PARTNERS,
  PRESS,
  PRICE_TRACKERS,
  REGULATORS,
  RETAILER_ALIASES,
  RETAILERS,
  SEGMENTS,
} from '../world/gazetteer';
import { worldEntities, type EntityRegistry } from '../world/entity-registry';
import { ANY_MARKER } from './citation-markers';

interface Gazetteer {
  pattern: RegExp;
  canonical: Map<string, string>;
  /** A player's key → its parent's key ("retailer:Zudio" → "parent:Trent"). */
  parents: Map<string, string>;
}

let gazetteer: Gazetteer | null = null;

/**
 * Every name the world knows, each mapped to one canonical key (aliases to their retailer):
 * the gazetteer's and the entities learned since (world/entity-registry.ts), rebuilt when the
 * registry changes, so a learned retailer binds its figures like a built-in one.
 */
function names(): Gazetteer {
  const built = worldEntities.derived('claim-verifier-names', buildNames);
  if (built !== gazetteer) {
    gazetteer = built;
    extractCache.clear();
  }
  return gazetteer;
}

function buildNames(registry: EntityRegistry): Gazetteer {
  const canonical = new Map<string, string>();
  const parents = new Map<string, string>();
  const add = (name: string, key: string): void => {
    if (name.length >= 2 && !canonical.has(name.toLowerCase())) canonical.set(name.toLowerCase(), key);
  };
  for (const retailer of RETAILERS) {
    add(retailer.name, `retailer:${retailer.name}`);
    if (retailer.parent) {
      add(retailer.parent, `parent:${retailer.parent}`);
      parents.set(`retailer:${retailer.name}`, `parent:${retailer.parent}`);
    }
  }
  for (const [name, aliases] of Object.entries(RETAILER_ALIASES)) for (const alias of aliases) if (/[a-z]/.test(alias) && alias.length > 3) add(alias, `retailer:${name}`);
  for (const { city, state } of CITIES) {
    add(city, `city:${city}`);
    add(state, `state:${state}`);
  }
  for (const [city, aliases] of Object.entries(CITY_ALIASES)) for (const alias of aliases) if (alias.length > 3) add(alias, `city:${city}`);
  for (const segment of SEGMENTS) add(segment, `segment:${segment}`);
  const orgs = [...PRESS, ...REGULATORS.map((r) => r.name), ...INDUSTRY_BODIES, ...JOB_BOARDS, ...APP_RANK_TRACKERS, ...PRICE_TRACKERS, ...EXCHANGES, ...PARTNERS, ...INVESTORS.filter((i) => /^[A-Z]/.test(i))];
  for (const org of orgs) add(org, `org:${org}`);
  for (const entity of registry.learned()) {
    const key = entity.kind === 'organisation' ? `org:${entity.name}` : entity.kind === 'person' ? `name:${entity.name.toLowerCase()}` : `retailer:${entity.name}`;
    for (const written of [entity.name, ...entity.aliases]) if (written.length > 2) add(written, key);
    if (entity.parent && key.startsWith('retailer:')) {
      add(entity.parent, `parent:${entity.parent}`);
      parents.set(key, `parent:${entity.parent}`);
    }
  }
  const escaped = [...canonical.keys()].sort((a, b) => b.length - a.length).map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return { pattern: new RegExp(`(?<![\\p{L}\\d])(?:${escaped.join('|')})(?![\\p{L}\\d])`, 'giu'), canonical, parents };
}

/** Changes whenever the names change (a learned entity): what was read with the old ones is read again. */
export function namesVersion(): object {
  return names();
}

/** The parent's key of a player's key, when it has one. */
export function parentKeyOf(key: string): string | undefined {
  return names().parents.get(key);
}

/** Adds a source name (a feed's, say) the vocabulary does not list. */
export function knownNameKey(name: string): string | undefined {
  return names().canonical.get(name.toLowerCase());
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
const DATE_PATTERNS: Array<{ pattern: RegExp; key: (m: RegExpExecArray) => string }> = [
  { pattern: /\b(\d{4})-(\d{2})-(\d{2})\b/g, key: (m) => `day:${m[1]}-${m[2]}-${m[3]}` },
  { pattern: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? ${MONTH},? (\\d{4})\\b`, 'g'), key: (m) => `day:${m[3]}-${month(m[2]!)}-${m[1]!.padStart(2, '0')}` },
  { pattern: new RegExp(`\\b${MONTH} (\\d{1,2}),? (\\d{4})\\b`, 'g'), key: (m) => `day:${m[3]}-${month(m[1]!)}-${m[2]!.padStart(2, '0')}` },
  { pattern: new RegExp(`\\b${MONTH} (\\d{4})\\b`, 'g'), key: (m) => `month:${m[2]}-${month(m[1]!)}` },
  { pattern: new RegExp(`\\b(\\d{1,2}) ${MONTH}\\b`, 'g'), key: (m) => `dayofyear:${month(m[2]!)}-${m[1]!.padStart(2, '0')}` },
  { pattern: /\b(Q[1-4]) ?FY ?(?:20)?(\d{2})(?:-(\d{2}))?\b/g, key: (m) => `quarter:${m[1]} FY${m[3] ?? m[2]}` },
  { pattern: /\bFY ?(?:20)?(\d{2})(?:-(\d{2}))?\b/g, key: (m) => `fy:FY${m[2] ?? m[1]}` },
  { pattern: /\b(Diwali|Navratri|Onam|Pongal|Holi|Eid) (\d{4})\b/gi, key: (m) => `festival:${m[1]!.toLowerCase()} ${m[2]}` },
  { pattern: /\b(20\d{2})\b/g, key: (m) => `year:${m[1]}` },
];
const month = (name: string): string => String(MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1).padStart(2, '0');

const FIGURE =
  /(?<![\p{L}\d_.])([+\-−]?)(₹|Rs\.? ?|INR ?)?#?(\d{1,3}(?:,\d{2,3})+|\d+)(\.\d+)?(?:\s*(%|per ?cent\b|pts?\b|percentage points?\b|crore\b|cr\b|lakh\b|million\b|mn\b|billion\b|bn\b))?(?![\p{L}\d])/giu;

export interface Figure {
  value: number;
  decimals: number;
  unit: string;
  inr: boolean;
  sign: '' | '+' | '-';
  text: string;
  at: number;
}

export const UNIT = (raw: string | undefined): string => {
  const unit = (raw ?? '').toLowerCase().replace(/\s/g, '');
  if (unit === '%' || unit.startsWith('percent') && !unit.startsWith('percentage')) return '%';
  if (unit.startsWith('pt') || unit.startsWith('percentagepoint')) return 'pts';
  if (unit === 'cr' || unit === 'crore') return 'crore';
  if (unit === 'mn') return 'million';
  if (unit === 'bn') return 'billion';
  return unit;
};

export interface Extracted {
  figures: Figure[];
  dates: Array<{ key: string; text: string; at: number }>;
  entities: Array<{ key: string; text: string; at: number }>;
}

/** Words that start with a capital without naming anyone (or that every signal implies). */
const COMMON_CAPITALISED = new Set(
  (
    'A An The This That These Those It Its In On At Of For From By To And Or But With As Per Over Under About After Before Between ' +
    'India Indian Indians YoY QoQ MoM EBITDA GMV AOV GST CEO CFO IPO UPI Tier Q1 Q2 Q3 Q4 FY Sources Source Figures Some No Yes ' +
    'Latest Largest Strongest Weakest Average Shares Management Supporting Key Removed Note Both Each Most Many Several Also ' +
    'January February March April May June July August September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday Diwali Navratri Onam Holi Eid Pongal Festive I We You They He She ' +
    'Signals Signal Answer Sorry However Overall Meanwhile Revenue Store Stores Growth Quick Online Offline Here There What Which Who Why How When Where'
  ).split(' '),
);

// A link is a claim about where something is: any http(s) URL, whatever its host's ending, and a
// bare host name with a common ending. Group 1 is the host.
const LINK = /\bhttps?:\/\/([^\s/?#)\]]+)[^\s)\]]*|\b((?:[a-z0-9-]+\.)+(?:com|in|org|net|io|co|ai|app|xyz|info|biz|example|ly|me|site|online))\b(?:\/[^\s)\]]*)?/gi;

const extractCache = new Map<string, Extracted>();

/** The claims a piece of text makes: figures, dates and names, each with its position. */
export function extractClaims(raw: string): Extracted {
  const { pattern, canonical } = names();
  const cached = extractCache.get(raw);
  if (cached) return cached;
  // Offsets stay those of `raw`: what is removed is blanked, not cut.
  const blank = (s: string, from: number, to: number): string => s.slice(0, from) + ' '.repeat(to - from) + s.slice(to);
  let text = raw.replace(ANY_MARKER, (m) => ' '.repeat(m.length));
  const entities: Extracted['entities'] = [];
  // Links and domains are claims too: a sentence may only point where its signals do.
  for (const match of text.matchAll(LINK)) {
    const at = match.index ?? 0;
    entities.push({ key: `link:${(match[1] ?? match[2])!.toLowerCase()}`, text: match[0], at });
    text = text.slice(0, at) + ' '.repeat(match[0].length) + text.slice(at + match[0].length);
  }
  text = text.replace(/[*_`]/g, ' ');
  for (const match of text.matchAll(pattern)) {
    const at = match.index ?? 0;
    const key = canonical.get(match[0].toLowerCase());
    // A segment written in lower case is a name; "Gold" as a word in a title is not a segment.
    if (key) entities.push({ key, text: match[0], at });
  }
  for (const entity of entities) text = blank(text, entity.at, entity.at + entity.text.length);
  const dates: Extracted['dates'] = [];
  for (const { pattern: datePattern, key } of DATE_PATTERNS) {
    for (const match of text.matchAll(datePattern)) {
      const at = match.index ?? 0;
      dates.push({ key: key(match as RegExpExecArray), text: match[0], at });
      text = blank(text, at, at + match[0].length);
    }
  }
  const figures: Figure[] = [];
  for (const match of text.matchAll(FIGURE)) {
    const [whole, sign, inr, integer, fraction, unit] = match;
    const value = Number(`${integer!.replace(/,/g, '')}${fraction ?? ''}`);
    if (!Number.isFinite(value)) continue;
    figures.push({
      value,
      decimals: fraction ? fraction.length - 1 : 0,
      unit: UNIT(unit),
      inr: Boolean(inr),
      sign: sign === '+' ? '+' : sign ? '-' : '',
      text: whole.trim(),
      at: match.index ?? 0,
    });
  }
  // Names the vocabulary does not know: capitalised words that do not open the sentence.
  const bare = text.replace(/[^\p{L}\d&'’\- ]/gu, (c) => (c === '.' || c === ',' || c === ':' || c === ';' || c === '(' || c === ')' || c === '—' ? '|' : ' '));
  const words = [...bare.matchAll(/[\p{Lu}][\p{L}\d&'’-]*(?: [\p{Lu}][\p{L}\d&'’-]*)*/gu)];
  for (const word of words) {
    const at = word.index ?? 0;
    const leading = bare.slice(0, at).trimEnd();
    const opensSentence = leading === '' || leading.endsWith('|') && /[.:;|]\s*$/.test(raw.slice(0, at).replace(/[*_\s]+$/, '')) || /^[-+*#>\s\d.]*$/.test(leading);
    const parts = word[0].split(' ').filter((part) => !COMMON_CAPITALISED.has(part.replace(/['’]s$/, '')));
    if (parts.length === 0) continue;
    if (opensSentence && parts.length === word[0].split(' ').length && parts.length === 1) continue;
    const name = parts.join(' ').replace(/['’]s$/, '');
    if (name.length < 3 || /^[A-Z]{1,2}\d*$/.test(name)) continue;
    entities.push({ key: `name:${name.toLowerCase()}`, text: name, at });
  }
  const extracted = { figures, dates, entities };
  if (extractCache.size > 20_000) extractCache.clear();
  extractCache.set(raw, extracted);
  return extracted;
}
