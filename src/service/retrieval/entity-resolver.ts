/**
 * Finds the retailers, segments, cities and states a question names, the way analysts write
 * them: aliases and parents (D-Mart, Avenue Supermarts → DMart; Eternal → Blinkit; Trent →
 * Zudio, Westside, Star Bazaar), spacing and punctuation variants, and typos. Exact matches
 * beat fuzzy ones; a name the service knows nothing about is reported as unknown instead of
 * being swapped for a look-alike.
 */
import { CITIES, CITY_ALIASES, ORGANISATION_NAMES, RETAILER_ALIASES, RETAILERS, SEGMENT_ALIASES, type Segment } from '../world/gazetteer';
import { squash, worldEntities, type EntityRegistry } from '../world/entity-registry';
import { isNeverName, OBJECT_STARTERS } from './question-words';

export interface ResolvedEntities {
  retailers: string[];
  segments: Segment[];
  cities: string[];
  states: string[];
  /** Names in the question the corpus has nothing about ("Lenskart"). */
  unknown: string[];
  /** Retailers matched only approximately (typos), with what was written. */
  fuzzy: Array<{ written: string; retailer: string }>;
  /** The question without the names found ("Vijay Sales" must not read as a question about sales). */
  rest: string;
}

type Target = { kind: 'retailer'; names: string[] } | { kind: 'city'; name: string } | { kind: 'state'; name: string } | { kind: 'organisation' };

export { squash };

interface ResolverLookups {
  exact: Map<string, Target>;
  /** Single-word names a typo may aim at (retailers and cities), for the fuzzy pass. */
  fuzzyKeys: Array<[string, Target]>;
  /** Organisations signals name that are not retailers (regulators, press, investors…): never unknown. */
  organisations: string[];
}

/** The resolver's lookups over a registry: the gazetteer's names first, then the learned ones. */
function buildLookups(registry: EntityRegistry): ResolverLookups {
  const exact = new Map<string, Target>();
  const addExact = (key: string, target: Target): void => {
    const squashed = squash(key);
    if (squashed.length >= 2 && !exact.has(squashed)) exact.set(squashed, target);
  };
  for (const retailer of RETAILERS) addExact(retailer.name, { kind: 'retailer', names: [retailer.name] });
  for (const [name, aliases] of Object.entries(RETAILER_ALIASES)) for (const alias of aliases) addExact(alias, { kind: 'retailer', names: [name] });
  const children = new Map<string, string[]>();
  for (const retailer of RETAILERS) if (retailer.parent) children.set(retailer.parent, [...(children.get(retailer.parent) ?? []), retailer.name]);
  for (const [parent, names] of children) addExact(parent, { kind: 'retailer', names });
  addExact('reliance', { kind: 'retailer', names: children.get('Reliance Retail') ?? [] });
  for (const city of CITIES) addExact(city.city, { kind: 'city', name: city.city });
  for (const [city, aliases] of Object.entries(CITY_ALIASES)) for (const alias of aliases) addExact(alias, { kind: 'city', name: city });
  for (const state of new Set(CITIES.map((city) => city.state))) if (!exact.has(squash(state))) addExact(state, { kind: 'state', name: state });

  const fuzzyKeys = [...exact.entries()].filter(([key, target]) => key.length >= 4 && (target.kind === 'retailer' || target.kind === 'city'));
  const organisations = ORGANISATION_NAMES.map(squash);
  // Multi-word organisation names are read before places, so their words are not taken as a state.
  for (const name of organisations) if (!exact.has(name)) exact.set(name, { kind: 'organisation' });

  // Learned entities: companies and brands are asked about like retailers; a person is a name, never unknown.
  for (const entity of registry.learned()) {
    const target: Target = entity.kind === 'person' ? { kind: 'organisation' } : { kind: 'retailer', names: [entity.name] };
    for (const written of [entity.name, ...entity.aliases]) {
      const key = squash(written);
      if (key.length < 2 || exact.has(key)) continue;
      exact.set(key, target);
      if (target.kind === 'retailer' && key.length >= 4) fuzzyKeys.push([key, target]);
      if (entity.kind === 'person') organisations.push(key);
    }
  }
  return { exact, fuzzyKeys, organisations };
}

/** Words that start questions or name periods and units: never an unknown entity. */
const COMMON = new Set(
  `how what which who whom whose where when why is are was were does did do has have had can could would should will shall tell show give list compare and or the a an in of for on at to please i me my we our us
  any also same then that this there they their them its it now so but ok okay hi hey yes no thanks let over between versus vs with by from last next current latest recent new top biggest largest
  india indian diwali dhanteras navratri festive festival season gov gmv yoy qoq ebitda fy q1 q2 q3 q4 crore lakh inr rs
  january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec
  kitne kitna kitni kya kahan kaha kyun kyon kaun kaunse kaunsa kaise kaisa hai hain tha the ka ki ke ko ne me mein se aur abhi tak saal iss is pichle pichhle pichla khole khola kholi kholay badh badha badhi raha rahi rahe kar karta batao batayein dukaan dukan dukane wala wale wali bhi hi toh to vahan wahan waha unka unke unki woh wo yeh ye log mahine tezi tyohar tyohaar bikri kamai naye nayi naya kul share market stores store dark
  dont doesnt didnt isnt arent wasnt werent wont cant couldnt shouldnt havent hasnt`.split(/\s+/),
);

/** A common word, also when contracted ("What's", "Where're", "don't"), or a word that is never a name ("Summarise", "CEO's"). */
const isCommon = (token: { key: string; base: string }): boolean => COMMON.has(token.key) || COMMON.has(token.base) || isNeverName(token.key) || isNeverName(token.base);

/** Words after which a lower-case unknown word is probably a name ("does lenskart", "about firstcry"). */
const SUBJECT_CUES = new Set(['has', 'have', 'does', 'did', 'is', 'about', 'of', 'for', 'at', 'by', 'and', 'vs', 'versus']);
const POSTPOSITIONS = new Set(['ne', 'ka', 'ki', 'ke', 'ko', 'mein']);

/** Optimal string alignment distance (a transposition counts once), capped for speed. */
export function editDistance(a: string, b: string, cap = 3): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      row.push(value);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

const allowedDistance = (length: number): number => (length >= 8 ? 2 : length >= 5 ? 1 : 0);

/**
 * Resolves a question's entities. `isKnownWord` (a corpus vocabulary lookup) lets typos and
 * unknown names be told apart from ordinary words; without it only exact matches count.
 */
export function resolveEntities(question: string, isKnownWord?: (word: string) => boolean, registry: EntityRegistry = worldEntities): ResolvedEntities {
  const { exact: EXACT, fuzzyKeys: FUZZY_KEYS, organisations: ORGANISATIONS } = registry.derived('entity-resolver', buildLookups);
  const isOrganisationPart = (run: string): boolean => ORGANISATIONS.some((name) => name.includes(squash(run)));
  const matches = [...question.matchAll(/[A-Za-z0-9&]+(?:[-'’][A-Za-z0-9&]+)*/g)];
  const words = matches.map((match) => match[0]);
  const tokens = matches.map((match) => {
    const word = match[0];
    // A sentence's first word is capitalised by grammar, not because it is a name.
    const before = question.slice(0, match.index).replace(/[\s"'“”‘’([*_>#-]+$/u, '');
    return { raw: word, key: squash(word), base: squash(word.replace(/['’](s|re|ve|ll|d|m)$/i, '')), lower: word.toLowerCase(), used: false, sentenceStart: before === '' || /[.?!:;\n]$/.test(before) };
  });
  const result: ResolvedEntities = { retailers: [], segments: [], cities: [], states: [], unknown: [], fuzzy: [], rest: '' };
  const take = (target: Target): void => {
    if (target.kind === 'retailer') for (const name of target.names) pushUnique(result.retailers, name);
    else if (target.kind === 'city') pushUnique(result.cities, target.name);
    else if (target.kind === 'state') pushUnique(result.states, target.name);
    // An organisation's name ("Karnataka Labour Department") is neither a place nor a retailer.
  };

  // A group's name expands to its chains ("Trent" → Zudio, Westside, Star Bazaar), unless the
  // question also names one of them: "Star Bazaar (Trent)" is about Star Bazaar, the group a
  // qualifier, and its other brands must not be cited.
  const groups: string[][] = [];
  const named = new Set<string>();

  // Exact names, longest first (three words joined, then two, then one).
  for (const size of [3, 2, 1]) {
    for (let i = 0; i + size <= tokens.length; i += 1) {
      const span = tokens.slice(i, i + size);
      if (span.some((token) => token.used)) continue;
      const key = span.map((token) => token.key).join('');
      // "Nature's Basket's": the last word's possessive is not part of the name.
      const withoutPossessive = span.slice(0, -1).map((token) => token.key).join('') + span[span.length - 1]!.base;
      const target = EXACT.get(key) ?? EXACT.get(withoutPossessive);
      if (!target) continue;
      take(target);
      if (target.kind === 'retailer') {
        if (target.names.length > 1) groups.push(target.names);
        else named.add(target.names[0]!);
      }
      for (const token of span) token.used = true;
    }
  }
  for (const group of groups) {
    if (!group.some((name) => named.has(name))) continue;
    result.retailers = result.retailers.filter((name) => named.has(name) || !group.includes(name) || groups.some((other) => other !== group && other.includes(name) && !other.some((n) => named.has(n))));
  }

  // Segments by phrase, among the words no name took ("Sugar Cosmetics" is a retailer).
  const lower = ` ${words.join(' ').toLowerCase()} `;
  for (const [segment, aliases] of Object.entries(SEGMENT_ALIASES) as Array<[Segment, string[]]>) {
    for (const alias of aliases) {
      const phrase = ` ${alias.toLowerCase().replace(/[^a-z0-9&]+/g, ' ').trim()} `;
      const at = lower.indexOf(phrase);
      if (at < 0) continue;
      const before = lower.slice(0, at).trim();
      const start = before === '' ? 0 : before.split(' ').length;
      const length = phrase.trim().split(' ').length;
      const span = tokens.slice(start, start + length);
      if (span.some((token) => token.used)) continue;
      pushUnique(result.segments, segment);
      for (const token of span) token.used = true;
    }
  }

  // A group named with a segment means its brands in that segment: "Reliance's grocery stores"
  // is Reliance Smart, not Reliance Trends. A group with no brand in the segment keeps them all.
  if (result.segments.length > 0) {
    for (const group of groups) {
      const inSegment = group.filter((name) => result.segments.some((segment) => segment === registry.find(name)?.segment));
      if (inSegment.length === 0 || inSegment.length === group.length) continue;
      result.retailers = result.retailers.filter((name) => !group.includes(name) || inSegment.includes(name) || named.has(name) || groups.some((other) => other !== group && other.includes(name)));
    }
  }

  // Typos: only words the corpus does not use, close to exactly one name.
  if (isKnownWord) {
    // "festive-season" is known when each part is.
    const knownWord = isKnownWord;
    isKnownWord = (word: string): boolean => knownWord(word) || (word.includes('-') && word.split('-').every((part) => COMMON.has(part) || knownWord(part)));
    for (let i = 0; i < tokens.length; i += 1) {
      const token = tokens[i]!;
      if (token.used || token.key.length < 4 || isCommon(token) || /^\d/.test(token.key) || isKnownWord(token.key) || isKnownWord(token.lower)) continue;
      const candidates = [token.key, ...(tokens[i + 1] && !tokens[i + 1]!.used ? [token.key + tokens[i + 1]!.key] : [])];
      let best: { distance: number; key: string; target: Target; joined: boolean } | null = null;
      let tie = false;
      for (const [index, candidate] of candidates.entries()) {
        for (const [key, target] of FUZZY_KEYS) {
          const limit = Math.min(allowedDistance(key.length), allowedDistance(candidate.length));
          if (limit === 0) continue;
          const distance = editDistance(candidate, key, limit);
          if (distance > limit) continue;
          if (!best || distance < best.distance) {
            best = { distance, key, target, joined: index === 1 };
            tie = false;
          } else if (distance === best.distance && JSON.stringify(target) !== JSON.stringify(best.target)) tie = true;
        }
      }
      if (!best || tie) continue;
      take(best.target);
      token.used = true;
      if (best.joined) tokens[i + 1]!.used = true;
      if (best.target.kind === 'retailer') for (const name of best.target.names) result.fuzzy.push({ written: token.raw, retailer: name });
    }

    // Unknown names: capitalised runs (not the question word that opens a sentence), or a
    // word the corpus never uses sitting where a name goes. Instructions, question words,
    // roles and possessives of ordinary words are never names (question-words.ts).
    let run: Array<{ raw: string; unknownWord: boolean }> = [];
    const flush = (): void => {
      // One ordinary capitalised word is emphasis; an unknown word or two capitalised words make a name.
      // "Lenskart's": the name is Lenskart.
      const name = run.map((item) => item.raw).join(' ').replace(/['’]s$/i, '');
      if ((run.length >= 2 || run.some((item) => item.unknownWord)) && !isOrganisationPart(name)) pushUnique(result.unknown, name);
      run = [];
    };
    for (let i = 0; i < tokens.length; i += 1) {
      const token = tokens[i]!;
      // Verb and adverb forms ("Gaining", "opened") are words, not names.
      const unknownWord = !token.used && token.key.length >= 3 && !isCommon(token) && !/\d/.test(token.key) && !/(ing|ed|ly|tion|ment)$/.test(token.key) && !isKnownWord(token.key) && !isKnownWord(token.lower);
      const capitalised = /^[A-Z]/.test(token.raw) && !isCommon(token) && !/^\d/.test(token.key);
      // A sentence that opens with a word and then "the", "me", "why"… opens with a verb ("Summarise the…").
      const opensWithVerb = token.sentenceStart && (OBJECT_STARTERS.has(tokens[i + 1]?.key ?? '') || tokens[i + 1]?.used === true);
      if (!token.used && capitalised && !opensWithVerb && (!token.sentenceStart || unknownWord)) {
        run.push({ raw: token.raw, unknownWord });
        continue;
      }
      flush();
      const inNameSlot = SUBJECT_CUES.has(tokens[i - 1]?.key ?? '') || POSTPOSITIONS.has(tokens[i + 1]?.key ?? '');
      if (unknownWord && inNameSlot && !opensWithVerb) pushUnique(result.unknown, token.raw.replace(/['’]s$/i, ''));
    }
    flush();
  }
  result.rest = tokens
    .filter((token) => !token.used || result.segments.length > 0 && SEGMENT_WORDS.has(token.lower))
    .map((token) => token.raw)
    .join(' ');
  return result;
}

/** Segment words stay in the rest: "dark stores" still asks about stores. */
const SEGMENT_WORDS = new Set(['dark', 'store', 'stores', 'sales']);

function pushUnique<T>(list: T[], item: T): void {
  if (!list.includes(item)) list.push(item);
}
