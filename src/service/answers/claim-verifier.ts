/**
 * Claim-level verification, the same for every composer: an answer is split into sentences,
 * and each sentence's figures (numbers with their units, ₹ amounts, percentages), dates and
 * named entities must appear in at least one signal the sentence cites. A citation id that is
 * not in the evidence is dropped; a sentence left with claims and no valid citation fails.
 *
 * Rules a reader of an answer can check by hand (docs/decisions/claim-verification.md):
 * - A sentence ends at `.`, `!` or `?` followed by a space, or at the end of a line; markers
 *   right after its full stop (`… items. [sig_…]`) belong to it.
 * - A sentence without markers is checked against the markers of the next sentence in the same
 *   paragraph, list item or table row (the "one citation at the end of a run" habit), else those
 *   of the previous one.
 * - Headings, table rows without figures and statements that the signals do not cover something
 *   ("No signal reports…") make no claim a signal could support, so they are kept as they are.
 * - A figure computed as the difference of two figures of the same unit in the cited signals
 *   ("a net addition of 45 stores") is supported.
 */
import type { CorpusSignal } from '../world/signal-types';
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
import { DEFAULT_TIME_ZONE, isoDayIn } from '../world/time-zone';

/** What the verifier needs of a signal: its text and where it came from. */
export interface EvidenceSignal {
  id: string;
  title: string;
  body: string;
  published_at: string;
  period?: string;
  source_name?: string;
  entities?: CorpusSignal['entities'];
  metrics?: Record<string, number>;
  url?: string;
}

export type ClaimKind = 'figure' | 'date' | 'entity';
export interface Claim {
  kind: ClaimKind;
  /** As written in the sentence ("₹9,892 crore", "5 Oct 2026", "Zepto"). */
  text: string;
}

export interface SentenceVerdict {
  /** The sentence as written, markers included (trailing whitespace excluded). */
  text: string;
  ok: boolean;
  /** Why it failed, in words a reader understands. */
  reason?: string;
  /** Cited ids that are in the evidence (own, or borrowed from its run). */
  citations: string[];
  /** Ids the sentence cites that are not in the evidence; dropped from the answer. */
  dropped: string[];
  claims: Claim[];
  /** Where each supporting signal states the claims: offsets into the signal's body. */
  support: Array<{ citation: string; start: number; end: number }>;
  /** Headings, coverage statements, sentences without claims: nothing to check. */
  exempt: boolean;
}

export interface Verification {
  sentences: number;
  supported: number;
  removed: Array<{ text: string; reason: string }>;
}

export type UnsupportedClaims = 'remove' | 'mark';

/** A marker the interface allows (`[sig_` + 16 hex) or that a model may invent (`[sig_12]`). */
const ANY_MARKER = /\[(sig_[A-Za-z0-9_-]{1,64})\]/g;
const MARKED_PREFIX = '⚠ _Not supported by the cited signals:_ ';

// ── Segmentation ───────────────────────────────────────────────────────────────────────

export interface Piece {
  /** Offsets into the text, `end` exclusive; pieces cover the text without gaps. */
  start: number;
  end: number;
  /** Paragraph, list item, table row or heading this sentence belongs to. */
  block: number;
  kind: 'sentence' | 'heading' | 'table_row' | 'blank';
}

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'vs', 'rs', 'no', 'approx', 'est', 'mr', 'ms', 'dr', 'sept', 'inc', 'ltd', 'co', 'st', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']);
const BLOCK_START = /^(?:#{1,6}\s|\s*[-*+]\s|\s*\d+[.)]\s|\s*\||\s*>)/;

/**
 * Splits markdown into sentences. With `final` false the last sentence may still be growing
 * (a stream); it is then returned with `complete: false`, never judged.
 */
export function segment(text: string, final = true): Array<Piece & { complete: boolean }> {
  const pieces: Array<Piece & { complete: boolean }> = [];
  let block = 0;
  let previousLineKind: 'blank' | 'paragraph' | 'structural' = 'blank';
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineComplete = newline !== -1 || final;
    const lineEnd = newline === -1 ? text.length : newline + 1;
    const line = text.slice(lineStart, newline === -1 ? text.length : newline);
    if (line.trim() === '') {
      pieces.push({ start: lineStart, end: lineEnd, block, kind: 'blank', complete: lineComplete });
      if (lineComplete) previousLineKind = 'blank';
      lineStart = lineEnd;
      continue;
    }
    const structural = BLOCK_START.test(line);
    if (structural || previousLineKind !== 'paragraph') block += 1;
    previousLineKind = structural ? 'structural' : 'paragraph';
    if (/^#{1,6}\s/.test(line) || /^\s*\|/.test(line)) {
      pieces.push({ start: lineStart, end: lineEnd, block, kind: /^#/.test(line) ? 'heading' : 'table_row', complete: lineComplete });
      lineStart = lineEnd;
      continue;
    }
    // Sentences within the line: a terminator, closing emphasis, markers, then a space and more.
    const boundary = /[.!?](?:[*_)"'’”]*)((?:\s*\[[^\]\s]{1,80}\])*)(?:[*_)"'’”]*)[ \t]+(?=[^\s[])/g;
    let sentenceStart = lineStart;
    for (const match of line.matchAll(boundary)) {
      const at = lineStart + (match.index ?? 0);
      const before = text.slice(sentenceStart, at);
      const word = /([A-Za-z.]+)$/.exec(before)?.[1]?.toLowerCase() ?? '';
      if (ABBREVIATIONS.has(word) || /\d$/.test(before) && /^\.\d/.test(text.slice(at, at + 2))) continue;
      const end = at + match[0].length;
      pieces.push({ start: sentenceStart, end, block, kind: 'sentence', complete: true });
      sentenceStart = end;
    }
    pieces.push({ start: sentenceStart, end: lineEnd, block, kind: 'sentence', complete: lineComplete });
    lineStart = lineEnd;
  }
  return pieces;
}

// ── Claims ─────────────────────────────────────────────────────────────────────────────

interface Gazetteer {
  pattern: RegExp;
  canonical: Map<string, string>;
}

let gazetteer: Gazetteer | null = null;

/** Every name the corpus knows, each mapped to one canonical key (aliases to their retailer). */
function names(): Gazetteer {
  if (gazetteer) return gazetteer;
  const canonical = new Map<string, string>();
  const add = (name: string, key: string): void => {
    if (name.length >= 2 && !canonical.has(name.toLowerCase())) canonical.set(name.toLowerCase(), key);
  };
  for (const retailer of RETAILERS) {
    add(retailer.name, `retailer:${retailer.name}`);
    if (retailer.parent) add(retailer.parent, `parent:${retailer.parent}`);
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
  const escaped = [...canonical.keys()].sort((a, b) => b.length - a.length).map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  gazetteer = { pattern: new RegExp(`(?<![\\p{L}\\d])(?:${escaped.join('|')})(?![\\p{L}\\d])`, 'giu'), canonical };
  return gazetteer;
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

interface Figure {
  value: number;
  decimals: number;
  unit: string;
  inr: boolean;
  sign: '' | '+' | '-';
  text: string;
  at: number;
}

const UNIT = (raw: string | undefined): string => {
  const unit = (raw ?? '').toLowerCase().replace(/\s/g, '');
  if (unit === '%' || unit.startsWith('percent') && !unit.startsWith('percentage')) return '%';
  if (unit.startsWith('pt') || unit.startsWith('percentagepoint')) return 'pts';
  if (unit === 'cr' || unit === 'crore') return 'crore';
  if (unit === 'mn') return 'million';
  if (unit === 'bn') return 'billion';
  return unit;
};

interface Extracted {
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
  const { pattern, canonical } = names();
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

// ── Evidence ───────────────────────────────────────────────────────────────────────────

interface EvidenceFacts {
  signal: EvidenceSignal;
  /** Claims of title + body, positions into `body` (title claims at -1). */
  figures: Figure[];
  dateKeys: Set<string>;
  entityKeys: Set<string>;
  lowerText: string;
  bodySentences: Array<{ start: number; end: number }>;
  bodyClaims: Extracted;
}

/** Facts per signal, per time zone (a signal's own day depends on it). */
const evidenceCache = new Map<string, WeakMap<EvidenceSignal, EvidenceFacts>>();

function factsOf(signal: EvidenceSignal, zone: string): EvidenceFacts {
  let byZone = evidenceCache.get(zone);
  if (!byZone) evidenceCache.set(zone, (byZone = new WeakMap()));
  const cached = byZone.get(signal);
  if (cached) return cached;
  // SECURITY: text in a signal that addresses the model is data, never support for a claim.
  const body = withoutInstructions(signal.body);
  const title = withoutInstructions(signal.title);
  const bodyClaims = extractClaims(body);
  const titleClaims = extractClaims(title);
  const dateKeys = new Set<string>([...bodyClaims.dates, ...titleClaims.dates].map((date) => date.key));
  const published = new Date(signal.published_at);
  if (!Number.isNaN(published.getTime())) {
    // The day it was published, as the source stamped it (UTC) and in the analyst's time zone
    // (the date the answer and the app show), and the month and year.
    for (const day of new Set([published.toISOString().slice(0, 10), isoDayIn(published.getTime(), zone)])) {
      dateKeys.add(`day:${day}`);
      dateKeys.add(`dayofyear:${day.slice(5)}`);
      dateKeys.add(`month:${day.slice(0, 7)}`);
      dateKeys.add(`year:${day.slice(0, 4)}`);
    }
  }
  for (const key of [...dateKeys]) {
    if (key.startsWith('day:')) {
      dateKeys.add(`month:${key.slice(4, 11)}`);
      dateKeys.add(`dayofyear:${key.slice(9)}`);
    }
    if (key.startsWith('day:') || key.startsWith('month:')) dateKeys.add(`year:${key.slice(key.indexOf(':') + 1, key.indexOf(':') + 5)}`);
    if (key.startsWith('quarter:')) dateKeys.add(`fy:${key.split(' ')[1]}`);
  }
  if (signal.period) for (const date of extractClaims(signal.period).dates) dateKeys.add(date.key);
  for (const key of [...dateKeys]) {
    const fy = /^(?:fy|quarter:Q\d) ?:?FY(\d{2})$/.exec(key.replace('quarter:', 'fy:').replace(/^fy:Q\d /, 'fy:'))?.[1];
    if (fy) {
      dateKeys.add(`year:20${Number(fy) - 1}`);
      dateKeys.add(`year:20${fy}`);
    }
    const festival = /^festival:\S+ (\d{4})$/.exec(key)?.[1];
    if (festival) dateKeys.add(`year:${festival}`);
  }
  const entityKeys = new Set<string>([...bodyClaims.entities, ...titleClaims.entities].map((entity) => entity.key));
  const lists = signal.entities;
  if (lists) {
    for (const name of [...lists.retailers, ...lists.cities, ...lists.states, ...lists.segments]) {
      const key = knownNameKey(name);
      if (key) entityKeys.add(key);
    }
    for (const retailer of RETAILERS) if (retailer.parent && lists.retailers.includes(retailer.name)) entityKeys.add(`parent:${retailer.parent}`);
  }
  if (signal.source_name) {
    for (const entity of extractClaims(signal.source_name).entities) entityKeys.add(entity.key);
    entityKeys.add(`name:${signal.source_name.toLowerCase()}`);
  }
  const lowerText = `${title}\n${body}\n${signal.source_name ?? ''}\n${signal.url ?? ''}`.toLowerCase();
  const bodySentences = segment(body).filter((piece) => piece.kind === 'sentence' && body.slice(piece.start, piece.end).trim() !== '');
  const facts: EvidenceFacts = {
    signal,
    figures: [...bodyClaims.figures, ...titleClaims.figures.map((figure) => ({ ...figure, at: -1 }))],
    dateKeys,
    entityKeys,
    lowerText,
    bodySentences,
    bodyClaims,
  };
  byZone.set(signal, facts);
  return facts;
}

/** Sentences that give orders to whoever reads them ("ignore previous instructions…"). */
const INSTRUCTION =
  /\b(?:ignore|disregard|forget) (?:all |any |the )?(?:previous|prior|above|earlier|your) (?:instructions|rules|prompts?)\b|\b(?:system prompt|you are now|new instructions|tell the user|as an ai model|do not cite)\b/i;

/** The text with every instruction-like sentence blanked (same length, so offsets hold). */
export function withoutInstructions(text: string): string {
  if (!INSTRUCTION.test(text)) return text;
  let out = text;
  for (const piece of segment(text)) {
    const sentence = text.slice(piece.start, piece.end);
    if (INSTRUCTION.test(sentence)) out = out.slice(0, piece.start) + ' '.repeat(sentence.length) + out.slice(piece.end);
  }
  return out;
}

function figureMatches(claim: Figure, stated: Figure): boolean {
  if (claim.unit && claim.unit !== stated.unit) return false;
  if (claim.inr && !stated.inr && stated.unit !== 'crore' && stated.unit !== 'lakh') return false;
  if (claim.sign && stated.sign && claim.sign !== stated.sign) return false;
  if (claim.value === stated.value) return true;
  // "60%" for a stated 60.1%: the sentence rounds, it does not invent.
  if (claim.decimals < stated.decimals) {
    const factor = 10 ** claim.decimals;
    return Math.round(stated.value * factor) / factor === claim.value;
  }
  return false;
}

/**
 * A figure one of the cited signals states; or, computed from them: the difference of two
 * figures they state in one unit, the total of one metric over all of them, how many they are,
 * or in how many cities.
 */
function figureSupported(claim: Figure, evidence: EvidenceFacts[]): EvidenceFacts | null {
  for (const facts of evidence) if (facts.figures.some((stated) => figureMatches(claim, stated))) return facts;
  if (claim.decimals === 0 && !claim.sign && !claim.inr && !claim.unit && evidence.length > 1) {
    const totals = new Map<string, number>();
    const counts = new Map<string, number>();
    for (const facts of evidence) {
      for (const [metric, value] of Object.entries(facts.signal.metrics ?? {})) {
        totals.set(metric, (totals.get(metric) ?? 0) + value);
        counts.set(metric, (counts.get(metric) ?? 0) + 1);
      }
    }
    const cities = new Set(evidence.flatMap((facts) => facts.signal.entities?.cities ?? []));
    // Several sources reporting one event count once.
    const events = new Set(evidence.map((facts) => (facts.signal as { event_id?: string }).event_id ?? facts.signal.id));
    if ([...totals.values(), ...counts.values()].includes(claim.value) || claim.value === evidence.length || claim.value === events.size || claim.value === cities.size) return evidence[0]!;
  }
  if (claim.decimals === 0 && !claim.sign && !claim.inr) {
    const stated = evidence.flatMap((facts) => facts.figures.filter((figure) => figure.unit === claim.unit && !figure.inr && figure.value > claim.value));
    for (const a of stated) for (const b of stated) if (a.value - b.value === claim.value) return evidence.find((facts) => facts.figures.includes(a)) ?? null;
  }
  return null;
}

function entitySupported(key: string, text: string, evidence: EvidenceFacts[]): EvidenceFacts | null {
  for (const facts of evidence) {
    if (facts.entityKeys.has(key)) return facts;
    if (key.startsWith('name:') && facts.lowerText.includes(text.toLowerCase())) return facts;
    if (key.startsWith('link:') && facts.lowerText.includes(key.slice(5))) return facts;
  }
  return null;
}

/** Statements that the signals do not cover something: no signal could support them. */
const COVERAGE_STATEMENT =
  /^\W*(?:no (?:signal|single figure|festive-season figures|figures|funding|results)\b|none of the signals|the signals (?:report|have|do not|don't|say nothing)|the service (?:has no signals|follows|cannot)|it follows \d+ indian retailers|reading ".*" as|following on from your previous question|[^:]{1,80}: no signal names|[^.:]{1,60} has no [^.:]{1,40} (?:results|figures|signals) yet\b)/i;

function plain(text: string): string {
  return text.replace(ANY_MARKER, '').replace(/[*_`>#|]/g, ' ').replace(/^\s*[-+]\s/, ' ').replace(/\s+/g, ' ').trim();
}

// ── Verifying an answer ────────────────────────────────────────────────────────────────

export class ClaimVerifier {
  private readonly evidence: Map<string, EvidenceSignal>;

  /** Dates the question itself set (the period asked, today): stating them claims nothing. */
  private readonly contextDates: Set<string>;

  /** The analyst's time zone (default Asia/Kolkata): the calendar the answer's dates are in. */
  private readonly zone: string;

  constructor(evidence: Iterable<EvidenceSignal>, options: { contextDates?: Iterable<string | number | Date>; question?: string; timeZone?: string } = {}) {
    this.zone = options.timeZone ?? DEFAULT_TIME_ZONE;
    this.evidence = new Map([...evidence].map((signal) => [signal.id, signal]));
    // The periods the question names ("Q4 FY27", "Diwali 2026") are the question's, not claims.
    this.contextDates = new Set(options.question ? extractClaims(options.question).dates.map((date) => date.key) : []);
    for (const value of options.contextDates ?? []) {
      const date = new Date(value);
      if (Number.isNaN(date.getTime())) continue;
      const day = isoDayIn(date.getTime(), this.zone);
      this.contextDates.add(`day:${day}`);
      this.contextDates.add(`dayofyear:${day.slice(5)}`);
    }
  }

  has(id: string): boolean {
    return this.evidence.has(id);
  }

  /** The ids a sentence cites, split into those in the evidence and those not. */
  citationsOf(text: string): { valid: string[]; dropped: string[] } {
    const valid: string[] = [];
    const dropped: string[] = [];
    for (const [, id] of text.matchAll(ANY_MARKER)) {
      const list = this.evidence.has(id!) ? valid : dropped;
      if (!list.includes(id!)) list.push(id!);
    }
    return { valid, dropped };
  }

  /** Judges one sentence; `borrowed` are the citations of its run when it has none. */
  judge(text: string, kind: Piece['kind'], borrowed: string[] = []): SentenceVerdict {
    const { valid: own, dropped } = this.citationsOf(text);
    const trimmed = text.trimEnd();
    const claimsOf = extractClaims(trimmed);
    const claims: Claim[] = [
      ...claimsOf.figures.map((figure) => ({ kind: 'figure' as const, text: figure.text })),
      ...claimsOf.dates.map((date) => ({ kind: 'date' as const, text: date.text })),
      ...claimsOf.entities.map((entity) => ({ kind: 'entity' as const, text: entity.text })),
    ];
    const citations = own.length > 0 || dropped.length > 0 ? own : borrowed;
    const verdict = (ok: boolean, exempt: boolean, reason?: string, support: SentenceVerdict['support'] = []): SentenceVerdict => ({
      text: trimmed,
      ok,
      ...(reason ? { reason } : {}),
      citations,
      dropped,
      claims,
      support,
      exempt,
    });
    // A heading may name a subject and a period, a table row may name things, and a statement that
    // the signals do not cover something may name both, without a citation; none may state a figure
    // or a link unchecked ("The signals report that DMart opened 90 stores…" is judged like any
    // sentence). The one figure allowed is in the coverage phrase itself ("It follows 40 Indian
    // retailers": the service's roster, not a signal's claim).
    const hasLink = claimsOf.entities.some((entity) => entity.key.startsWith('link:'));
    const exemptStructure =
      !hasLink && own.length === 0 && claimsOf.figures.length === 0 && (kind === 'heading' || (kind === 'table_row' && claimsOf.dates.length === 0));
    const coverage = COVERAGE_STATEMENT.exec(plain(trimmed));
    const exemptCoverage = coverage !== null && !hasLink && extractClaims(plain(trimmed).slice(coverage[0].length)).figures.length === 0;
    const exempt = kind === 'blank' || claims.length === 0 || exemptStructure || exemptCoverage;
    if (exempt && dropped.length === 0) return verdict(true, true, undefined, this.spans(citations, claimsOf, new Set()));
    if (claims.length === 0) return verdict(true, true);
    if (citations.length === 0) {
      return verdict(false, false, dropped.length > 0 ? `cites ${dropped.join(', ')}, which ${dropped.length === 1 ? 'is' : 'are'} not among the signals retrieved for this question` : 'makes a claim without citing a signal');
    }
    const evidence = citations.map((id) => factsOf(this.evidence.get(id)!, this.zone));
    const used = new Set<EvidenceFacts>();
    const missing: string[] = [];
    for (const figure of claimsOf.figures) {
      const facts = figureSupported(figure, evidence);
      if (facts) used.add(facts);
      else missing.push(figure.text);
    }
    for (const date of claimsOf.dates) {
      const facts = evidence.find((candidate) => candidate.dateKeys.has(date.key));
      if (facts) used.add(facts);
      else if (this.contextDates.has(date.key)) continue;
      else missing.push(date.text);
    }
    for (const entity of claimsOf.entities) {
      const facts = entitySupported(entity.key, entity.text, evidence);
      if (facts) used.add(facts);
      else missing.push(entity.text);
    }
    if (missing.length > 0) {
      const cited = citations.join(', ');
      const what = missing.map((item) => `"${item}"`).join(', ');
      const prefix = dropped.length > 0 ? `cites ${dropped.join(', ')}, not among the signals retrieved; ` : '';
      return verdict(false, false, `${prefix}${what} ${missing.length === 1 ? 'does' : 'do'} not appear in the cited signal${citations.length === 1 ? '' : 's'} (${cited})`);
    }
    return verdict(true, false, undefined, this.spans(citations, claimsOf, used));
  }

  /** For each cited signal, the sentence of its body that states the most of the claims. */
  private spans(citations: string[], claims: Extracted, used: Set<EvidenceFacts>): SentenceVerdict['support'] {
    const support: SentenceVerdict['support'] = [];
    for (const id of citations) {
      const facts = factsOf(this.evidence.get(id)!, this.zone);
      if (used.size > 0 && !used.has(facts)) continue;
      let best = facts.bodySentences[0];
      let bestScore = -1;
      for (const sentence of facts.bodySentences) {
        let score = 0;
        for (const figure of facts.bodyClaims.figures) if (figure.at >= sentence.start && figure.at < sentence.end && claims.figures.some((claim) => figureMatches(claim, figure))) score += 2;
        for (const entity of facts.bodyClaims.entities) if (entity.at >= sentence.start && entity.at < sentence.end && claims.entities.some((claim) => claim.key === entity.key)) score += 1;
        if (score > bestScore) {
          best = sentence;
          bestScore = score;
        }
      }
      if (best) {
        const textOf = facts.signal.body.slice(best.start, best.end);
        support.push({ citation: id, start: best.start, end: best.start + textOf.trimEnd().length });
      }
    }
    return support;
  }
}

/** What the route does with one judged sentence. */
export type VerifiedPiece =
  | { kind: 'kept'; text: string; verdict: SentenceVerdict }
  | { kind: 'removed'; text: string; verdict: SentenceVerdict }
  | { kind: 'marked'; text: string; verdict: SentenceVerdict };

/**
 * Verifies an answer as it is written: text goes in as it arrives, sentences come out once
 * judged. Only the sentence in progress is held back (and an uncited one until the sentence
 * whose citation covers it completes, or its paragraph ends).
 */
export class StreamingVerifier {
  private text = '';
  private emittedTo = 0;
  private readonly pieces: VerifiedPiece[] = [];
  private lastCitations: { block: number; ids: string[] } = { block: -1, ids: [] };
  /** Milliseconds spent judging each sentence (the benchmark's verify_ms). */
  readonly timings: number[] = [];

  constructor(
    private readonly verifier: ClaimVerifier,
    private readonly mode: UnsupportedClaims = 'remove',
  ) {}

  push(delta: string): VerifiedPiece[] {
    this.text += delta;
    return this.drain(false);
  }

  end(): VerifiedPiece[] {
    return this.drain(true);
  }

  get all(): readonly VerifiedPiece[] {
    return this.pieces;
  }

  summary(): Verification {
    const judged = this.pieces.filter((piece) => piece.verdict.text.trim() !== '' && !/^\s*(?:\|[\s:|-]*)$/.test(piece.verdict.text));
    return {
      sentences: judged.length,
      supported: judged.filter((piece) => piece.verdict.ok).length,
      removed: judged.filter((piece) => !piece.verdict.ok).map((piece) => ({ text: piece.verdict.text, reason: piece.verdict.reason ?? 'not supported' })),
    };
  }

  /** The answer as kept: removed sentences out, dropped ids' markers out. */
  content(): string {
    return this.pieces.map((piece) => (piece.kind === 'removed' ? '' : piece.text)).join('');
  }

  private drain(final: boolean): VerifiedPiece[] {
    if (this.emittedTo >= this.text.length) return [];
    // The whole text is segmented each time, so block numbers stay stable across deltas.
    const pieces = segment(this.text, final).filter((piece) => piece.start >= this.emittedTo);
    const out: VerifiedPiece[] = [];
    let index = 0;
    while (index < pieces.length) {
      const piece = pieces[index]!;
      if (!piece.complete) break;
      const text = this.text.slice(piece.start, piece.end);
      let borrowed: string[] = [];
      const own = this.verifier.citationsOf(text);
      if (piece.kind === 'sentence' && own.valid.length === 0 && own.dropped.length === 0) {
        // Look ahead in the same block for the citation that closes the run.
        let ahead = index + 1;
        let found: string[] | null = null;
        let blockEnded = false;
        while (ahead < pieces.length) {
          const next = pieces[ahead]!;
          if (next.block !== piece.block || next.kind !== 'sentence') {
            blockEnded = true;
            break;
          }
          if (!next.complete) break;
          const cites = this.verifier.citationsOf(this.text.slice(next.start, next.end)).valid;
          if (cites.length > 0) {
            found = cites;
            break;
          }
          ahead += 1;
        }
        if (!found && !blockEnded && !(final && ahead >= pieces.length)) break; // wait for more text
        if (!found && /:\W*$/.test(text.trimEnd())) {
          // "…, the sum of the openings below:" is checked against the list it introduces.
          const list = this.listCitations(pieces, ahead, final);
          if (list === null) break;
          found = list.length > 0 ? list : null;
        }
        borrowed = found ?? (this.lastCitations.block === piece.block ? this.lastCitations.ids : []);
      }
      const started = performance.now();
      const verdict = this.verifier.judge(text, piece.kind, borrowed);
      this.timings.push(performance.now() - started);
      if (verdict.citations.length > 0 && piece.kind === 'sentence') this.lastCitations = { block: piece.block, ids: verdict.citations };
      const cleaned = verdict.dropped.length > 0 ? removeMarkers(text, verdict.dropped) : text;
      const result: VerifiedPiece = verdict.ok
        ? { kind: 'kept', text: cleaned, verdict }
        : this.mode === 'mark'
          ? { kind: 'marked', text: markUnsupported(cleaned), verdict }
          : { kind: 'removed', text: /\n$/.test(text) && piece.start > 0 && this.text[piece.start - 1] !== '\n' ? '\n' : '', verdict };
      out.push(result);
      this.pieces.push(result);
      this.emittedTo = piece.end;
      index += 1;
    }
    return out;
  }

  /** Citations of the list starting at `from`; null while the list may still grow. */
  private listCitations(pieces: Array<Piece & { complete: boolean }>, from: number, final: boolean): string[] | null {
    const ids: string[] = [];
    let listBlock = -1;
    for (let index = from; index < pieces.length; index += 1) {
      const piece = pieces[index]!;
      if (!piece.complete) return null;
      const text = this.text.slice(piece.start, piece.end);
      const item = /^\s*(?:[-*+]|\d+[.)])\s/.test(text) && (index === 0 || this.text[piece.start - 1] === '\n');
      if (!item && piece.block !== listBlock) return ids;
      if (item) listBlock = piece.block;
      for (const id of this.verifier.citationsOf(text).valid) if (!ids.includes(id)) ids.push(id);
    }
    return final ? ids : null;
  }
}

function removeMarkers(text: string, ids: string[]): string {
  let out = text;
  for (const id of ids) out = out.split(` [${id}]`).join('').split(`[${id}]`).join('');
  return out;
}

function markUnsupported(text: string): string {
  const match = /^(\s*(?:[-*+]\s+|\d+[.)]\s+)?)([\s\S]*?)(\s*)$/.exec(text)!;
  return `${match[1]}${MARKED_PREFIX}${match[2]}${match[3]}`;
}

/** Verifies a whole answer at once (the JSON response). */
export function verifyAnswer(content: string, verifier: ClaimVerifier, mode: UnsupportedClaims = 'remove'): { content: string; verification: Verification; verdicts: SentenceVerdict[] } {
  const stream = new StreamingVerifier(verifier, mode);
  stream.push(content);
  stream.end();
  return { content: tidy(stream.content()), verification: stream.summary(), verdicts: stream.all.map((piece) => piece.verdict) };
}

/** After removals: no runs of blank lines, no empty list items. */
export function tidy(content: string): string {
  return content.replace(/\n{3,}/g, '\n\n').replace(/^\s*[-*+]\s*$/gm, '').replace(/\n{3,}/g, '\n\n');
}

/** Confidence after verification: every removed claim costs, in proportion to the answer. */
export function verifiedConfidence(confidence: number, verification: Verification): number {
  if (verification.sentences === 0) return confidence;
  const removedShare = verification.removed.length / verification.sentences;
  const factor = verification.removed.length === 0 ? 1 : Math.max(0.2, 0.85 - removedShare);
  return Math.round(confidence * factor * 100) / 100;
}

/** The verifier's view of corpus signals. */
export function evidenceFrom(signals: Iterable<CorpusSignal>, sourceName: (sourceId: string) => string | undefined): EvidenceSignal[] {
  return [...signals].map((signal) => ({ ...signal, source_name: sourceName(signal.source_id) }));
}
