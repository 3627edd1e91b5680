/**
 * Candidate names in a fetched item (issue 43, item 1): organisations, brands and people the
 * gazetteer does not know. wink-nlp's English model tags each token's part of speech (decision
 * 0035 says why this library); a name is a run of capitalised proper nouns, cut where the
 * gazetteer already knows a part (cities, states, segments, built-in retailers). What marks a
 * candidate as a name by itself (so one item is enough to learn it): an alias the item gives
 * ("Nilgiri Threads Ltd (NTL)", "Vishal Mega Mart / VMM"), a company suffix, a person's role
 * beside it ("chief executive Ananya Raghavan"), a capital inside the word ("DealShare"), or being
 * the subject that opens a sentence-case title ("Lenskart opens …"). Anything else is kept only
 * when it recurs (entity-learning.ts counts that).
 */
import { createRequire } from 'node:module';
import type winkNLP from 'wink-nlp';
import type { PartOfSpeech, WinkMethods } from 'wink-nlp';
import { EntityRegistry } from '../world/entity-registry';
import { ORGANISATION_NAMES } from '../world/gazetteer';
import { findEntities as findInRegistry } from './gazetteer';

export type LearnedKind = 'retailer' | 'brand' | 'organisation' | 'person';

export interface Candidate {
  /** The name as the item writes it, without a company suffix ("Nilgiri Threads"). */
  name: string;
  kind: LearnedKind;
  /** Other names the item itself gives: acronyms in brackets, after a slash, the suffixed form. */
  aliases: string[];
  /** True when the item marks it as a name (see the header); otherwise it must recur. */
  marked: boolean;
}

// wink's model takes 0.3–0.5 s to load and only reading fetched items for new names needs it, so
// it is loaded at the first item, not with the service: a start answers its first ask sooner.
const requireLazily = createRequire(import.meta.url);
let tagger: WinkMethods | null = null;
function nlp(): WinkMethods {
  if (!tagger) {
    const create = requireLazily('wink-nlp') as typeof winkNLP;
    tagger = create(requireLazily('wink-eng-lite-web-model') as Parameters<typeof winkNLP>[0], ['sbd', 'pos']);
  }
  return tagger;
}

/** Only this much of an item's text is read for new names (a long article's names recur early). */
const TEXT_READ = 1_500;

const NAME_POS = new Set<PartOfSpeech>(['PROPN', 'NOUN', 'ADJ']);
const SUFFIXES = new Set(['ltd', 'limited', 'pvt', 'private', 'inc', 'llp', 'corp', 'corporation', 'plc']);
const ORG_WORDS = new Set(['group', 'industries', 'enterprises', 'retail', 'ventures', 'foods', 'stores', 'mart', 'bazaar', 'fashions', 'solutions', 'technologies', 'labs', 'brands', 'consumer', 'farms', 'supermarket', 'supermarkets']);
const ROLES = new Set(['ceo', 'cfo', 'coo', 'cmo', 'cto', 'md', 'founder', 'co-founder', 'cofounder', 'chairman', 'chairperson', 'chairwoman', 'president', 'executive', 'director', 'head', 'officer', 'analyst', 'partner', 'promoter', 'mr', 'ms', 'mrs', 'dr', 'shri', 'smt']);
const RETAIL_WORDS = /\b(stores?|outlets?|showrooms?|retail(er|ers)?|shoppers|supermarkets?|hypermarkets?|franchise|footfall|same-store|e-?commerce|delivery|orders)\b/i;
const BRAND_WORDS = /\b(brand|label|d2c|direct-to-consumer)\b/i;

/** Capitalised words that are not names in retail news (months, days, titles, figures' words, markup words). */
const NOT_NAMES = new Set(
  `the a an and or of in on at to for by with from as is it its this that these those our we he she they his her their new more most all any each every some
  january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec
  monday tuesday wednesday thursday friday saturday sunday today yesterday tomorrow
  india indian indians diwali dhanteras navratri onam pongal eid holi christmas festive tier metro metros rupee rupees crore lakh
  ceo cfo coo cmo cto md ipo gst upi ebitda yoy qoq fy q1 q2 q3 q4 h1 h2 d2c b2b b2c fmcg gmv aov sku skus nse bse rbi sebi cci mca roc drhp
  read more update updated note source sources via photo image video report reports news exclusive breaking live analysis opinion summary key highlights
  ltd limited pvt private inc group company companies retail retailer retailers brand brands store stores chain chains market markets sales
  chief executive officer founder director head managing president chairman analyst analysts minister ministry government state city`.split(/\s+/),
);

/** Words that open a run without being part of the name ("The", "CEO", "In"). */
const LEADING = new Set(`the a an and or of in on at to for by with from as this that our new chief executive officer founder director head managing president chairman analyst ceo cfo coo md mr ms mrs dr shri smt`.split(/\s+/));
/** Words before a place, not a company: "in Gorakhpur", "across Lucknow and Kanpur". */
const PLACE_CUES = new Set(['in', 'across', 'near', 'from', 'into', 'around', 'outside']);

/** Organisations the service already knows that are not retailers (regulators, press, partners…). */
const KNOWN_ORGANISATIONS = new Set(ORGANISATION_NAMES.map((name) => name.toLowerCase()));
/** The gazetteer alone (a registry that learns nothing): what it knows is never learned. */
const SEED = new EntityRegistry();
const findEntities = (text: string): ReturnType<typeof findInRegistry> => findInRegistry(text, SEED);

interface Token { value: string; pos: PartOfSpeech; lower: string }

/** Finds the candidate names of one item (its title and the start of its text). */
export function findCandidates(title: string, text: string, knownWord: (lowerCaseWord: string) => boolean = () => false): Candidate[] {
  const body = text.slice(0, TEXT_READ);
  // Most items name only what is known already: their capitalised words are all the
  // gazetteer's, a learned name's, or ordinary ("The", "Monday"), and the tagger is not needed.
  if (!hasNewCapitalisedWord(`${title}\n${body}`, knownWord)) return [];
  const found = new Map<string, Candidate>();
  const add = (candidate: Candidate): void => {
    const key = candidate.name.toLowerCase();
    const known = found.get(key);
    if (!known) found.set(key, candidate);
    else {
      known.marked ||= candidate.marked;
      for (const alias of candidate.aliases) if (!known.aliases.includes(alias)) known.aliases.push(alias);
      if (known.kind === 'organisation' && candidate.kind !== 'organisation') known.kind = candidate.kind;
    }
  };
  // A Title Case headline capitalises every word: its capitals say nothing about names.
  if (!isTitleCase(title)) {
    scan(title, true, (candidate) => {
      // One word opening a title ("Mall footfall rises", "Lenskart opens …") is marked as a name
      // only when the text too writes it, capitalised.
      if (candidate.marked && !candidate.name.includes(' ') && candidate.aliases.length === 0 && candidate.kind !== 'person' && !/\p{Ll}\p{Lu}/u.test(candidate.name)) {
        candidate.marked = new RegExp(`(?<![\\p{L}\\p{N}])${candidate.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'u').test(body);
        if (!candidate.marked) return;
      }
      add(candidate);
    });
  }
  scan(body, false, add);
  const retailContext = RETAIL_WORDS.test(`${title} ${body}`);
  const brandContext = BRAND_WORDS.test(`${title} ${body}`);
  for (const candidate of found.values()) {
    if (candidate.kind === 'organisation' && retailContext) candidate.kind = 'retailer';
    else if (candidate.kind === 'organisation' && brandContext) candidate.kind = 'brand';
  }
  return [...found.values()];
}

function scan(text: string, isTitle: boolean, add: (candidate: Candidate) => void): void {
  if (!text.trim()) return;
  const doc = nlp().readDoc(text);
  const values = doc.tokens().out(nlp().its.value) as string[];
  const tags = doc.tokens().out(nlp().its.pos) as PartOfSpeech[];
  const tokens: Token[] = values.map((value, i) => ({ value, pos: tags[i]!, lower: value.toLowerCase() }));
  let i = 0;
  // "in Lucknow, Kanpur and Gorakhpur": names listed after a place cue are places too.
  let inPlaceList = false;
  while (i < tokens.length) {
    if (!startsName(tokens, i)) {
      const word = tokens[i]!.lower;
      if (PLACE_CUES.has(word)) inPlaceList = true;
      else if (word !== ',' && word !== 'and' && word !== '&') inPlaceList = false;
      i += 1;
      continue;
    }
    let end = i + 1;
    // "Marks & Spencer", "Bureau of Indian Standards": a joining word between capitalised words.
    while (end < tokens.length && (continuesName(tokens[end]!) || ((tokens[end]!.value === '&' || tokens[end]!.lower === 'of') && end + 1 < tokens.length && continuesName(tokens[end + 1]!)))) end += 1;
    const opening = tokens.slice(0, i).every((token) => token.pos === 'PUNCT' || token.pos === 'SYM');
    const sentenceStart = opening || /^[.!?:;"“‘#*>|-]+$/.test(tokens[i - 1]!.value);
    if (!inPlaceList) take(tokens, i, end, { isTitle, sentenceStart, opening }, add);
    i = end;
  }
}

const isCapitalised = (value: string): boolean => /^\p{Lu}/u.test(value) && /\p{L}/u.test(value.slice(1)) || /^\p{Lu}{2,}$/u.test(value);
const startsName = (tokens: Token[], i: number): boolean => isCapitalised(tokens[i]!.value) && NAME_POS.has(tokens[i]!.pos) && !LEADING.has(tokens[i]!.lower);
const continuesName = (token: Token): boolean => isCapitalised(token.value) && NAME_POS.has(token.pos);

function take(tokens: Token[], from: number, to: number, where: { isTitle: boolean; sentenceStart: boolean; opening: boolean }, add: (candidate: Candidate) => void): void {
  let words = tokens.slice(from, to).map((token) => token.value.replace(/['’]s$/u, ''));
  const whole = words.join(' ').toLowerCase();
  if (KNOWN_ORGANISATIONS.has(whole)) return;
  const isNoise = (word: string): boolean => NOT_NAMES.has(word.toLowerCase()) && !SUFFIXES.has(word.toLowerCase()) && !ORG_WORDS.has(word.toLowerCase());
  // Trailing words that are not part of a name ("Lenskart Q2"; "Vishal Mega Mart" keeps "Mart").
  while (words.length > 0 && (isNoise(words.at(-1)!) || words.at(-1) === '&')) words = words.slice(0, -1);
  while (words.length > 0 && LEADING.has(words[0]!.toLowerCase())) words = words.slice(1);
  if (words.length === 0 || words.every((word) => NOT_NAMES.has(word.toLowerCase()))) return;
  const written = words.join(' ');
  // The gazetteer wins: a run that is (or holds) a name it knows is left to it. A whole name it
  // knows is a set lookup ("Zudio", "Pune": most runs); only the rest is matched against it.
  if (SEED.isBuiltIn(written)) return;
  const known = findEntities(written);
  // The start of a phrase the gazetteer knows ("Quick commerce") is not a name.
  if (tokens[to] && /^\p{Ll}/u.test(tokens[to]!.value) && findEntities(`${words.at(-1)!} ${tokens[to]!.value}`).segments.length > findEntities(words.at(-1)!).segments.length) return;
  // A segment word inside a longer name is part of it ("Ratnadeep Supermarket").
  const segmentOnly = known.segments.length > 0 && words.length > 1 && known.segments.every((segment) => !entityWords(segment).includes(words[0]!.toLowerCase()));
  if (known.retailers.length + known.cities.length + known.states.length > 0 || (known.segments.length > 0 && !segmentOnly) || KNOWN_ORGANISATIONS.has(written.toLowerCase())) return;
  let suffixed = false;
  while (words.length > 1 && SUFFIXES.has(words.at(-1)!.toLowerCase().replace(/\.$/, ''))) {
    words = words.slice(0, -1);
    suffixed = true;
  }
  const name = words.join(' ');
  // A lone acronym ("NTL", "FY27") is an alias when an item gives it, not a name by itself.
  if (name.length < 3 || /^\d/.test(name) || (words.length === 1 && /^\p{Lu}{2,6}\d*$/u.test(name))) return;
  const aliases: string[] = suffixed ? [written] : [];
  const given = aliasAfter(tokens, to, words);
  if (given) aliases.push(given);
  const before = tokens.slice(Math.max(0, from - 3), from).map((token) => token.lower);
  const after = tokens.slice(to, to + 4).map((token) => token.lower);
  const personCue = words.length >= 2 && words.length <= 3 && words.every((word) => /^\p{Lu}\p{Ll}+$/u.test(word)) && [...before, ...after].some((word) => ROLES.has(word));
  const innerCapital = words.some((word) => /^\p{Lu}\p{Ll}+\p{Lu}/u.test(word));
  // A sentence-case title that opens with a name and a verb names its subject: "Lenskart opens …".
  const next = tokens[to];
  const titleSubject = where.isTitle && where.opening && next !== undefined && /^\p{Ll}/u.test(next.value) && (words.length > 1 || tokens[from]!.pos === 'PROPN');
  const marked = Boolean(given) || suffixed || personCue || innerCapital || titleSubject;
  // A capitalised word opening a sentence may just be a word ("Shares rose …", "Footfall in …"):
  // unmarked, it does not count towards recurring.
  if (where.sentenceStart && !marked) return;
  add({ name, kind: personCue ? 'person' : 'organisation', aliases, marked });
}

/** "Nilgiri Threads Ltd (NTL)", "Vishal Mega Mart / VMM": the alias right after a name. */
function aliasAfter(tokens: Token[], at: number, words: string[]): string | null {
  const next = tokens[at];
  const alias = next?.value === '(' && tokens[at + 2]?.value === ')' ? tokens[at + 1]?.value : next?.value === '/' ? tokens[at + 1]?.value : undefined;
  if (!alias || !/^\p{Lu}[\p{L}\d&]{1,14}$/u.test(alias) || NOT_NAMES.has(alias.toLowerCase())) return null;
  // An acronym must fit the name's initials ("VMM" for Vishal Mega Mart); a word alias must be a name.
  if (/^\p{Lu}{2,6}$/u.test(alias)) {
    const initials = words.map((word) => word[0]!.toUpperCase()).join('');
    if (!initials.startsWith(alias.slice(0, 2)) && !alias.startsWith(initials.slice(0, 2))) return null;
  }
  return alias;
}

function hasNewCapitalisedWord(text: string, knownWord: (lowerCaseWord: string) => boolean): boolean {
  for (const match of text.matchAll(CAPITALISED_WORD)) {
    const word = match[0].replace(/['’]s$/u, '');
    const lower = word.toLowerCase();
    if (LEADING.has(lower) || NOT_NAMES.has(lower) || knownWord(lower) || SEED.isBuiltIn(word)) continue;
    return true;
  }
  return false;
}

const CAPITALISED_WORD = /(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}&'’]*/gu;

const entityWords = (text: string): string[] => text.toLowerCase().split(/\s+/);

function isTitleCase(title: string): boolean {
  const words = title.split(/\s+/).filter((word) => /^\p{L}{4,}/u.test(word));
  if (words.length < 3) return false;
  return words.filter((word) => /^\p{Lu}/u.test(word)).length / words.length >= 0.8;
}
