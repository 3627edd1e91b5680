// Claim bindings: what each figure is about (subject, metric, direction, basis), read the same way in an answer's sentence and in a signal's.
import type { Extracted, Figure } from './claim-extraction';

/** What a figure is about, read from the words around it in its sentence. */
export interface FigureBinding {
  /** Retailers (and parents, and unknown names) the figure belongs to; empty: the market, not a player. */
  subjects: string[];
  /** Kinds of measure near the figure (revenue, share, stores…); empty when no word says. */
  metrics: string[];
  direction: 'up' | 'down' | null;
  /** Comparison period of a change: year on year, quarter on quarter, week on week. */
  basis: string | null;
  /** The figure's own clause, for the reason and the support span. */
  clause: { start: number; end: number };
}

/** Words that name a kind of measure, most specific first (a phrase wins over its words). */
const METRICS: Array<[string, RegExp]> = [
  ['share', /\bshares? of (?:[a-z-]+ )?(?:gross )?order value\b|\b(?:market|download) share\b|\bshares?\b|\bleads?\b|\bleading\b|\bahead\b|\btrails?\b/gi],
  ['order value', /\b(?:gross )?order value\b|\bGMV\b|\bGOV\b/g],
  ['revenue', /\brevenues?\b|\bsales\b|\bturnover\b|\btop ?line\b/gi],
  ['margin', /\b(?:EBITDA )?margins?\b|\bEBITDA\b/gi],
  ['stores', /\b(?:dark )?stores?\b|\boutlets?\b|\bnetwork\b|\bbranches\b|\bshowrooms?\b/gi],
  ['roles', /\broles\b|\bjobs\b|\bhiring\b|\bhires?\b|\bvacanc(?:y|ies)\b|\bstaff\b|\bkarigars\b|\bpharmacists\b|\briders\b/gi],
  ['price', /\bprices?\b|\bpricing\b/gi],
  ['rank', /\brank(?:ed|s|ing)?\b|\bplaces?\b|\bpositions?\b|#(?=\d)/gi],
  ['pay', /\bpay\b|\bsalar(?:y|ies)\b|\bwages?\b/gi],
  ['funding', /\bfunding\b|\bround\b|\bvaluation\b|\binvest(?:ment|ors?)\b/gi],
  ['time', /\bdays?\b|\bmonths?\b(?! on month)/gi],
  ['items', /\bitems\b|\bbasket\b|\bSKUs?\b/g],
  ['cost', /\bcosts?\b|\bexpenses?\b/gi],
];

const SHARE_OF = /^\s*(?:of|of the) (?:[a-z-]+ )?(?:(?:gross )?order value|GMV|GOV|sales|market|downloads|the national total)\b/i;
const UP = /\b(?:grew|grow|grows|growing|growth|up|rose|rise|rises|risen|rising|increased?|increases|increasing|gained?|gains|climbed?|climbs|jumped?|jumps|added|adds|opened|opens|opening|raised?|raises|higher|expanded|surged?|improved?|hikes?|hiked)\b/gi;
const DOWN = /\b(?:fell|fall|falls|fallen|falling|down|dropped|drops?|declined?|declines|declining|decreased?|decreases|shrank|shrink|shrinks|shrunk|shrinking|lost|loses|lower|lowered|cut|cuts|slipped|slips?|slid|closed|closes|closing|shut|shuts|contracted|contracts|reduced|reduces|slumped|plunged|plunges)\b/gi;
const UP_WORD = new RegExp(UP.source, 'i');
const DOWN_WORD = new RegExp(DOWN.source, 'i');
const LEVEL = /\b(?:to|at|from|of|was|is|were|reached|stood)\b/i;
const BASES: Array<[string, RegExp]> = [
  ['year on year', /\byear[- ]on[- ]year\b|\bYoY\b|\bannual(?:ly)?\b|\bover (?:the )?(?:same quarter|a year)\b/gi],
  ['quarter on quarter', /\bquarter[- ]on[- ]quarter\b|\bQoQ\b|\bon the previous quarter\b|\bsequential(?:ly)?\b/gi],
  ['week on week', /\bweek[- ]on[- ]week\b|\bWoW\b/gi],
  ['month on month', /\bmonth[- ]on[- ]month\b|\bMoM\b/gi],
];

/** Keys that can be what a figure is about: players, not places or segments (those are checked as names). */
const isSubjectKey = (key: string): boolean => key.startsWith('retailer:') || key.startsWith('parent:') || key.startsWith('name:');

/** Clause bounds inside a sentence: `;`, `:`, `, ` and dashes separate; brackets do not. */
function clauseAround(text: string, from: number, to: number, at: number): { start: number; end: number } {
  let start = from;
  let end = to;
  const separator = /;|:\s|,\s|\s[—–]\s|\sand\s(?=(?:its|their|the|a|an|it|has|had|was|is)\b)/g;
  separator.lastIndex = from;
  for (let match = separator.exec(text); match && match.index < to; match = separator.exec(text)) {
    // A comma inside brackets ("(+2.0 pts), Tata 1mg") is the list's, not the bracket's.
    if (match.index < at) start = match.index + match[0].length;
    else {
      end = match.index;
      break;
    }
  }
  return { start, end };
}

function matchesIn(pattern: RegExp, text: string, from: number, to: number): Array<{ at: number; end: number; word: string }> {
  const out: Array<{ at: number; end: number; word: string }> = [];
  pattern.lastIndex = 0;
  const slice = text.slice(from, to);
  for (const match of slice.matchAll(pattern)) out.push({ at: from + (match.index ?? 0), end: from + (match.index ?? 0) + match[0].length, word: match[0] });
  return out;
}

function metricsIn(text: string, from: number, to: number): Array<{ metric: string; at: number; end: number }> {
  const found: Array<{ metric: string; at: number; end: number }> = [];
  for (const [metric, pattern] of METRICS) {
    for (const match of matchesIn(pattern, text, from, to)) if (!found.some((other) => match.at < other.end && other.at < match.end)) found.push({ metric, at: match.at, end: match.end });
  }
  return found;
}

/** A change's direction: its sign, else a direction word just before it (not "rose to 540"), else a noun just after ("a 5% rise"). */
function directionOf(text: string, figure: Figure, clause: { start: number; end: number }): 'up' | 'down' | null {
  if (figure.sign) return figure.sign === '+' ? 'up' : 'down';
  const before = text.slice(Math.max(clause.start, figure.at - 48), figure.at);
  const words = before.split(/\s+/).filter(Boolean).slice(-5);
  for (let index = words.length - 1; index >= 0; index -= 1) {
    const word = words[index]!;
    if (LEVEL.test(word) && !/^by$/i.test(word)) return null;
    if (UP_WORD.test(word)) return 'up';
    if (DOWN_WORD.test(word)) return 'down';
  }
  const after = text.slice(figure.at + figure.text.length, Math.min(clause.end, figure.at + figure.text.length + 24)).split(/\s+/).filter(Boolean).slice(0, 2).join(' ');
  if (UP_WORD.test(after)) return 'up';
  if (DOWN_WORD.test(after)) return 'down';
  return null;
}

function basesIn(text: string, from: number, to: number): Array<{ basis: string; at: number }> {
  return BASES.flatMap(([basis, pattern]) => matchesIn(pattern, text, from, to).map((match) => ({ basis, at: match.at })));
}

/** What the sentence `[from, to)` of `text` binds each of its figures to. */
export function bindFigures(
  text: string,
  from: number,
  to: number,
  claims: Extracted,
  side: 'claim' | 'stated',
  signalSubjects: string[] = [],
): Map<Figure, FigureBinding> {
  const bindings = new Map<Figure, FigureBinding>();
  const figures = claims.figures.filter((figure) => figure.at >= from && figure.at < to);
  if (figures.length === 0) return bindings;
  // Names are not measure words ("Vijay Sales", "Nature's Basket"): blanked, offsets kept.
  let words = text;
  for (const entity of claims.entities) if (entity.at >= from && entity.at < to) words = words.slice(0, entity.at) + ' '.repeat(entity.text.length) + words.slice(entity.at + entity.text.length);
  const subjects = claims.entities.filter((entity) => entity.at >= from && entity.at < to && isSubjectKey(entity.key));
  const anyEntity = claims.entities.some((entity) => entity.at >= from && entity.at < to);
  const lead = clauseAround(text, from, to, from);
  // Measure words and bases of the whole sentence, read once; each figure takes those of its clause.
  const sentenceMetrics = metricsIn(words, from, to);
  const sentenceBases = basesIn(text, from, to);
  const within = <T extends { at: number }>(list: T[], start: number, end: number): T[] => list.filter((entry) => entry.at >= start && entry.at < end);
  for (const figure of figures) {
    const clause = clauseAround(text, from, to, figure.at);
    const inClause = subjects.filter((entity) => entity.at >= clause.start && entity.at < clause.end);
    let bound: string[];
    if (side === 'claim') {
      // The player nearest before the figure in its clause, else after it, else before it in the sentence.
      const before = inClause.filter((entity) => entity.at < figure.at).at(-1);
      const after = inClause.find((entity) => entity.at > figure.at);
      const earlier = subjects.filter((entity) => entity.at < figure.at).at(-1);
      const chosen = before ?? after ?? earlier ?? subjects[0];
      bound = chosen ? [chosen.key] : [];
    } else if (inClause.length > 0) bound = inClause.map((entity) => entity.key);
    else {
      const inLead = subjects.filter((entity) => entity.at >= lead.start && entity.at < lead.end);
      // A sentence about no player: the signal's own player when it has one (a single-retailer
      // signal's "Download share in Kerala was 15.8%"), else the market (a panel's growth figure).
      bound = inLead.length > 0 ? inLead.map((entity) => entity.key) : subjects.length > 0 ? subjects.map((entity) => entity.key) : !anyEntity || signalSubjects.length === 1 ? signalSubjects : [];
    }
    const clauseMetrics = within(sentenceMetrics, clause.start, clause.end);
    let metrics: string[];
    // "24.0% of order value" is a share of it, whichever side writes it.
    const shareOf = figure.unit === '%' && SHARE_OF.test(words.slice(figure.at + figure.text.length, figure.at + figure.text.length + 40));
    if (side === 'claim') {
      // The measure word nearest before the figure in its clause, else after it, else earlier in the sentence.
      const before = clauseMetrics.filter((word) => word.end <= figure.at).sort((a, b) => b.end - a.end)[0];
      const after = clauseMetrics.filter((word) => word.at > figure.at).sort((a, b) => a.at - b.at)[0];
      const near = shareOf ? 'share' : (before ?? after)?.metric;
      // None in its clause: the list's header says what its items measure ("by share of order value: A 44.7%, B 39.3%").
      metrics = near ? [near] : [...new Set(within(sentenceMetrics, from, clause.start).map((entry) => entry.metric))];
    } else {
      metrics = shareOf ? ['share'] : clauseMetrics.length > 0 ? [...new Set(clauseMetrics.map((entry) => entry.metric))] : within(sentenceMetrics, from, clause.start).sort((a, b) => b.end - a.end).slice(0, 1).map((entry) => entry.metric);
    }
    bindings.set(figure, {
      subjects: bound,
      metrics,
      direction: directionOf(text, figure, clause),
      basis: within(sentenceBases, clause.start, clause.end)[0]?.basis ?? (side === 'stated' ? (within(sentenceBases, from, clause.start)[0]?.basis ?? null) : null),
      clause,
    });
  }
  return bindings;
}

/** Why a stated figure is not the claim's, in words; null when it is. */
export function bindingMismatch(claim: FigureBinding, stated: FigureBinding, related: (a: string, b: string) => boolean): { axis: 'subject' | 'metric' | 'direction' | 'period'; stated: string; claimed: string } | null {
  const subject = claim.subjects[0];
  if (subject && !stated.subjects.some((key) => related(subject, key))) {
    return { axis: 'subject', stated: stated.subjects.length > 0 ? stated.subjects.map(nameOf).join(' and ') : 'the market as a whole', claimed: nameOf(subject) };
  }
  if (claim.metrics.length > 0 && stated.metrics.length > 0 && !claim.metrics.some((metric) => stated.metrics.includes(metric))) {
    return { axis: 'metric', stated: stated.metrics.join(' / '), claimed: claim.metrics.join(' / ') };
  }
  if (claim.direction && stated.direction && claim.direction !== stated.direction) {
    return { axis: 'direction', stated: stated.direction === 'up' ? 'a rise' : 'a fall', claimed: claim.direction === 'up' ? 'a rise' : 'a fall' };
  }
  if (claim.basis && stated.basis && claim.basis !== stated.basis) return { axis: 'period', stated: stated.basis, claimed: claim.basis };
  return null;
}

/** "Blinkit" from "retailer:Blinkit". */
export function nameOf(key: string): string {
  const name = key.slice(key.indexOf(':') + 1);
  return key.startsWith('name:') ? name.replace(/\b\p{L}/gu, (c) => c.toUpperCase()) : name;
}
