/**
 * What a question asks: its entities (resolved, see entity-resolver), what it wants to know
 * (intent and measure), where and over which period, and, for a follow-up ("there", "they",
 * "the same period"), what it borrows from the conversation's previous turn.
 */
import { festiveWindow, fiscalQuarter, fiscalQuarterOf, formatDate, previousQuarter } from '../world/periods';
import { RETAILERS, type Segment } from '../world/gazetteer';
import { resolveEntities } from '../retrieval/entity-resolver';
import { cityTier, cityTierIn, describeCityTier, type CityTier } from '../world/city-tiers';

export type Measure = 'store_count' | 'openings' | 'revenue' | 'gov_growth' | 'share' | 'festive' | 'funding' | 'app_rank' | 'general';
export type Intent = 'how_many' | 'where' | 'how_fast' | 'gaining' | 'compare' | 'trend' | 'why' | 'general';

export interface Period {
  kind: 'range' | 'quarter' | 'festive';
  label: string;
  startMs: number;
  endMs: number;
  /** "Q2 FY27" for a fiscal quarter. */
  quarter?: string;
  festiveYear?: number;
}

export interface QuestionFrame {
  question: string;
  retailers: string[];
  segments: Segment[];
  cities: string[];
  states: string[];
  unknown: string[];
  fuzzy: Array<{ written: string; retailer: string }>;
  intents: Intent[];
  measure: Measure;
  period: Period | null;
  /** Slots borrowed from the previous turn, for the answer to say so. */
  borrowed: string[];
  /** "Tier-2 cities": only signals about cities of this HRA tier (world/city-tiers.ts) answer. */
  cityTier?: CityTier;
}

/** Whether a city is in the place the question asks about: its named cities, its city tier. */
export function inFramePlace(frame: QuestionFrame, city: string | undefined): boolean {
  if (frame.cities.length > 0 && !frame.cities.includes(city ?? '')) return false;
  return !frame.cityTier || (city !== undefined && cityTier(city) === frame.cityTier);
}

/** How an answer names the place asked about ("Jaipur, Lucknow", "tier-2 cities (HRA class Y)"). */
export function framePlaces(frame: QuestionFrame): string[] {
  return [...frame.cities, ...frame.states, ...(frame.cityTier && frame.cities.length === 0 ? [describeCityTier(frame.cityTier)] : [])];
}

const has = (text: string, pattern: RegExp): boolean => pattern.test(text);

const OPENINGS = /\bopen(ed|s|ing|ings)?\b|\bnew (dark )?stores\b|\blaunch(ed|es)?\b|\bkhol(e|a|i|ay|enge)\b|\badd(ed|s)? .*stores\b|\bnaye stores\b/;
const STORES = /\bstores?\b|\boutlets?\b|\bdukaa?n|\bnetwork\b|\bfootprint\b|\bshowrooms?\b/;
const HOW_MANY = /\bhow many\b|\bkitne\b|\bkitni\b|\bkitna\b|\bnumber of\b|\bcount\b|\boperate[sd]?\b|\btotal\b|\bkul\b/;
const WHERE = /\bwhere\b|\bwhich cities\b|\bkahan\b|\bkaha\b|\bin which (city|cities|state|states)\b|\bkis shehar\b/;
const REVENUE = /\brevenue\b|\bturnover\b|\btop ?line\b|\bresults?\b|\bearnings\b|\bkamai\b|\bquarterly numbers\b|\bsales\b/;
const GROWTH = /\bhow fast\b|\bgrow(th|ing|n|s)?\b|\bbadh|\bgov\b|\bgmv\b|\border value\b|\bdemand\b|\btezi\b/;
const GAINING = /\bgaining\b|\bgain(s|ed)?\b|\bmarket share\b|\bshare\b|\bwinning\b|\bwho leads\b|\bleader\b|\bkaun aage\b|\bahead\b/;
const COMPARE = /\bcompare\b|\bcompared\b|\bvs\.?\b|\bversus\b|\bbetter than\b|\bmuqabla\b|\bagainst\b/;
const TREND = /\btrend\b|\bover time\b|\bquarter by quarter\b|\btrajectory\b|\bevolv/;
const WHY = /\bwhy\b|\bkyun\b|\bkyon\b|\breasons?\b|\bdriv(e|er|ers|ing|en)\b/;
const FESTIVE = /\bdiwali\b|\bdeepavali\b|\bfestive\b|\bfestival\b|\bdhanteras\b|\btyoha+r\b/;
/** The app's place in the shopping charts (rank trackers). */
const APP_RANK = /\bapp (rank|ranking|chart)s?\b|\bapp'?s? (rank|ranking|position)\b|\brank(ed|ing|s)? (in|on|among) (the )?(shopping|app|play|charts?)|\b(top|shopping) charts?\b|\b(play|app) store rank/;
const FUNDING = /\bfund(ing|ed|raise|raising)?\b|\braised?\b|\bvaluation\b|\binvest(or|ors|ment)\b/;

/** Reads one question on its own (no conversation). `now` is the service clock. */
export function parseQuestion(question: string, now: number, isKnownWord?: (word: string) => boolean): QuestionFrame {
  const entities = resolveEntities(question, isKnownWord);
  // Intent and measure read the question without its names ("Vijay Sales", "Smart Bazaar").
  const text = entities.rest.toLowerCase().replace(/[’]/g, "'");
  const intents: Intent[] = [];
  if (has(text, HOW_MANY)) intents.push('how_many');
  if (has(text, WHERE)) intents.push('where');
  if (has(text, GROWTH)) intents.push('how_fast');
  if (has(text, GAINING)) intents.push('gaining');
  if (has(text, COMPARE) || entities.retailers.length >= 2) intents.push('compare');
  if (has(text, TREND)) intents.push('trend');
  if (has(text, WHY)) intents.push('why');
  if (intents.length === 0) intents.push('general');

  let measure: Measure = 'general';
  if (has(text, APP_RANK)) measure = 'app_rank';
  else if (has(text, FESTIVE)) measure = 'festive';
  else if (has(text, FUNDING)) measure = 'funding';
  else if (has(text, GAINING)) measure = 'share';
  else if (has(text, REVENUE)) measure = 'revenue';
  else if (has(text, STORES) || /\bdark stores?\b/.test(text)) measure = has(text, OPENINGS) || (intents.includes('where') && !has(text, /\bnow\b|\boperate/)) ? 'openings' : 'store_count';
  else if (has(text, OPENINGS) && (entities.retailers.length > 0 || intents.includes('how_many'))) measure = 'openings';
  else if (has(text, GROWTH) && (entities.segments.length > 0 || entities.cities.length > 0)) measure = 'gov_growth';
  // "How many does it operate now?": a count of the network.
  else if (intents.includes('how_many') && /\boperate|\bnow\b|\bcurrently\b|\babhi\b|\bhave\b|\bhain\b/.test(text)) measure = 'store_count';

  const { rest: _rest, ...named } = entities;
  const tier = cityTierIn(question);
  return { question, ...named, intents, measure, period: parsePeriod(question.toLowerCase(), now, measure), borrowed: [], ...(tier ? { cityTier: tier } : {}) };
}

/** "this year", "last quarter", "Q2 FY27", "FY2026-27", "Diwali 2026", "in 2025". */
export function parsePeriod(text: string, now: number, measure: Measure): Period | null {
  const year = new Date(now).getUTCFullYear();
  const quarterMatch =
    /\bq([1-4])\s*(?:of\s*)?fy\s*'?(?:20)?(\d{2})(?:\s*[-–/]\s*(?:20)?(\d{2}))?\b/.exec(text) ??
    /\bfy\s*'?(?:20)?(\d{2})(?:\s*[-–/]\s*(?:20)?(\d{2}))?\s*q([1-4])\b/.exec(text);
  if (quarterMatch) {
    const [q, a, b] = quarterMatch[0].startsWith('q') ? [quarterMatch[1], quarterMatch[2], quarterMatch[3]] : [quarterMatch[3], quarterMatch[1], quarterMatch[2]];
    // "FY2026-27" names the year it ends in second.
    const fy = Number(b ?? a);
    return quarterPeriod(fiscalQuarter(fy, Number(q)));
  }
  if (/\blast quarter\b|\bprevious quarter\b|\bpichl[ie] (timahi|quarter)\b|\blatest quarter\b/.test(text)) return quarterPeriod(previousQuarter(fiscalQuarterOf(now)));
  if (/\bthis quarter\b|\bcurrent quarter\b|\bis quarter\b/.test(text)) return quarterPeriod(fiscalQuarterOf(now));
  const festiveYear = /\b(?:diwali|deepavali|festive season|festival season|dhanteras)\s*(?:of\s*)?(20\d{2})\b/.exec(text) ?? /\b(20\d{2})\s*(?:diwali|festive)/.exec(text);
  if (festiveYear || measure === 'festive') {
    let festive = festiveYear ? Number(festiveYear[1]) : /\blast (diwali|year)\b|\bpichl[ie] diwali\b/.test(text) ? year - 1 : year;
    const window = festiveWindow(festive);
    if (!window) festive = year;
    const range = festiveWindow(festive);
    if (range) return { kind: 'festive', label: `Diwali ${festive}`, startMs: range.startMs, endMs: range.endMs, festiveYear: festive };
  }
  const fyMatch = /\bfy\s*'?(?:20)?(\d{2})(?:\s*[-–/]\s*(?:20)?(\d{2}))?\b/.exec(text);
  if (fyMatch) {
    const fy = Number(fyMatch[2] ?? fyMatch[1]);
    const start = fiscalQuarter(fy, 1).startMs;
    const end = fiscalQuarter(fy, 4).endMs;
    return { kind: 'range', label: `FY${fy} (${formatDate(start)} – ${formatDate(end - 1)})`, startMs: start, endMs: Math.min(end, now + 1) };
  }
  if (/\bthis year\b|\bso far this year\b|\byear to date\b|\bytd\b|\biss? saal\b|\bin (the )?current year\b/.test(text)) {
    const start = Date.UTC(year, 0, 1);
    return { kind: 'range', label: `${year} so far (1 Jan – ${formatDate(now)})`, startMs: start, endMs: now + 1 };
  }
  if (/\blast year\b|\bpichl[ie] saal\b|\bprevious year\b/.test(text)) {
    return { kind: 'range', label: String(year - 1), startMs: Date.UTC(year - 1, 0, 1), endMs: Date.UTC(year, 0, 1) };
  }
  const months = /\b(?:last|past|pichle)\s+(\d{1,2})\s+(?:months|mahine)\b/.exec(text);
  if (months) {
    const start = now - Number(months[1]) * 30.44 * 86_400_000;
    return { kind: 'range', label: `the last ${months[1]} months (since ${formatDate(start)})`, startMs: start, endMs: now + 1 };
  }
  const calendarYear = /\bin (20\d{2})\b/.exec(text);
  if (calendarYear) {
    const y = Number(calendarYear[1]);
    return { kind: 'range', label: String(y), startMs: Date.UTC(y, 0, 1), endMs: Math.min(Date.UTC(y + 1, 0, 1), now + 1) };
  }
  return null;
}

function quarterPeriod(quarter: ReturnType<typeof fiscalQuarter>): Period {
  return { kind: 'quarter', label: quarter.label, startMs: quarter.startMs, endMs: quarter.endMs, quarter: quarter.label };
}

const PLACE_REF = /\bthere\b|\bwahan\b|\bvahan\b|\bwaha\b|\bthat (city|market|state)\b|\bsame (city|market|place)\b/;
const ACTOR_REF = /\bthey\b|\bthem\b|\btheir\b|\bunka\b|\bunke\b|\bunki\b|\bits\b|\bit\b|\bthe company\b|\bwoh\b|\bthis (retailer|company|player)\b/;
const PERIOD_REF = /\b(the )?same (period|quarter|time|year|season)\b|\bthat (period|quarter|year|season)\b|\busi (period|quarter)\b/;
const CONTINUATION = /^\s*(and|what about|how about|also|aur|same for|what of|then)\b|\bthat\b/;

/**
 * Completes a follow-up from the previous turn's frame. A question that names its own
 * subject and refers back to nothing starts a new topic.
 */
export function resolveFollowUp(frame: QuestionFrame, previous: QuestionFrame | undefined): QuestionFrame {
  if (!previous) return frame;
  const text = frame.question.toLowerCase();
  const placeRef = PLACE_REF.test(text);
  const actorRef = ACTOR_REF.test(text);
  const periodRef = PERIOD_REF.test(text);
  const continuation = CONTINUATION.test(text);
  const namesSubject = frame.retailers.length + frame.segments.length + frame.cities.length + frame.states.length > 0 || frame.unknown.length > 0 || frame.cityTier !== undefined;
  const refersBack = placeRef || actorRef || periodRef || continuation;
  // A question that names its own subject and refers back to nothing starts a new topic.
  if (!refersBack && (namesSubject || frame.measure === 'festive')) return frame;
  const next: QuestionFrame = { ...frame, borrowed: [] };
  const measure = frame.measure === 'general' ? previous.measure : frame.measure;
  if (frame.measure === 'general' && previous.measure !== 'general') {
    next.measure = previous.measure;
    next.borrowed.push('measure');
  }
  // "Which players…", "who is gaining" ask about the whole market, not the previous retailer.
  const asksAboutPlayers = measure === 'share' || /\b(which|what|kaun) (players|companies|retailers|brands)\b|\bwho\b/.test(text);
  // A name the service does not know ("What about Lenskart?") is the new subject: never
  // answer it with the previous retailer or its market.
  const namesUnknown = frame.unknown.length > 0;
  if (frame.retailers.length === 0 && previous.retailers.length > 0 && !namesUnknown && !asksAboutPlayers && (actorRef || continuation || !namesSubject)) {
    next.retailers = previous.retailers;
    next.borrowed.push('retailer');
  }
  if (frame.segments.length === 0 && next.retailers.length === 0 && !namesUnknown) {
    const segments = previous.segments.length > 0 ? previous.segments : segmentsOf(previous);
    if (segments.length > 0) {
      next.segments = segments;
      next.borrowed.push('market');
    }
  }
  if (frame.cities.length + frame.states.length === 0 && !frame.cityTier && (previous.cities.length + previous.states.length > 0 || previous.cityTier)) {
    next.cities = previous.cities;
    next.states = previous.states;
    if (previous.cityTier) next.cityTier = previous.cityTier;
    next.borrowed.push('place');
  }
  if (!next.period && previous.period && (periodRef || continuation || actorRef || placeRef || !namesSubject)) {
    next.period = previous.period;
    next.borrowed.push('period');
  }
  return next;
}

function segmentsOf(frame: QuestionFrame): Segment[] {
  return [...new Set(frame.retailers.map((name) => RETAILERS.find((retailer) => retailer.name === name)?.segment).filter((segment): segment is Segment => segment !== undefined))];
}
