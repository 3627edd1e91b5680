// Signals as evidence: what each cited signal states (figures with their bindings, dates, names), and which of them supports a claim.
import { DEFAULT_TIME_ZONE, isoDayIn } from '../world/time-zone';
import type { CorpusSignal } from '../world/signal-types';
import { RETAILERS } from '../world/gazetteer';
import { bindFigures, type FigureBinding } from './claim-binding';
import { extractClaims, knownNameKey, namesVersion, parentKeyOf, type Extracted, type Figure } from './claim-extraction';
import { segment } from './sentences';

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
  /** Null for a fetched item without a link of its own. */
  url?: string | null;
}

export interface EvidenceFacts {
  signal: EvidenceSignal;
  /** Claims of title + body, positions into `body` (title claims at -1). */
  figures: Figure[];
  dateKeys: Set<string>;
  entityKeys: Set<string>;
  lowerText: string;
  bodySentences: Array<{ start: number; end: number }>;
  bodyClaims: Extracted;
  /** Each figure the signal states, with what it is about; body positions, or the title's. */
  stated: StatedFigure[];
  /** The names it was read with (a learned entity changes them). */
  names: object;
}

export interface StatedFigure {
  figure: Figure;
  binding: FigureBinding;
  in: 'title' | 'body';
}


/** Whether a claim's subject is a stated subject: the same player, the stated player's parent, or the same name however it was read. */
export function sameSubject(claimed: string, stated: string): boolean {
  // A parent's name covers its brand's figure ("Titan" for Tanishq's); a brand never covers its sibling's.
  if (claimed === stated || parentKeyOf(stated) === claimed) return true;
  const bare = (key: string): string => key.slice(key.indexOf(':') + 1).toLowerCase();
  return (claimed.startsWith('name:') || stated.startsWith('name:')) && bare(claimed) === bare(stated);
}

/** Facts per signal, per time zone (a signal's own day depends on it). */
const evidenceCache = new Map<string, WeakMap<EvidenceSignal, EvidenceFacts>>();

export function factsOf(signal: EvidenceSignal, zone: string = DEFAULT_TIME_ZONE): EvidenceFacts {
  let byZone = evidenceCache.get(zone);
  if (!byZone) evidenceCache.set(zone, (byZone = new WeakMap()));
  const cached = byZone.get(signal);
  if (cached && cached.names === namesVersion()) return cached;
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
  // The signal's own players: a sentence that names none is about them (or, in a panel of several, about the market).
  const signalSubjects = (lists?.retailers ?? []).map((name) => knownNameKey(name) ?? `name:${name.toLowerCase()}`);
  const stated: StatedFigure[] = [];
  for (const sentence of bodySentences) {
    for (const [figure, binding] of bindFigures(body, sentence.start, sentence.end, bodyClaims, 'stated', signalSubjects)) stated.push({ figure, binding, in: 'body' });
  }
  for (const [figure, binding] of bindFigures(title, 0, title.length, titleClaims, 'stated', signalSubjects)) stated.push({ figure, binding, in: 'title' });
  const facts: EvidenceFacts = {
    names: namesVersion(),
    stated,
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

export function figureMatches(claim: Figure, stated: Figure): boolean {
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
 * A figure computed from the cited signals (none states it): the difference of two figures
 * they state in one unit, the total of one metric over all of them, how many they are, or in
 * how many cities.
 */
export function computedFigure(claim: Figure, evidence: EvidenceFacts[]): EvidenceFacts | null {
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

export function entitySupported(key: string, text: string, evidence: EvidenceFacts[]): EvidenceFacts | null {
  for (const facts of evidence) {
    if (facts.entityKeys.has(key)) return facts;
    if (key.startsWith('name:') && facts.lowerText.includes(text.toLowerCase())) return facts;
    if (key.startsWith('link:') && facts.lowerText.includes(key.slice(5))) return facts;
  }
  return null;
}

/**
 * The verifier's view of each corpus signal, kept while the signal is: `factsOf` caches by this
 * object, so a view made afresh for every answer read every cited signal's figures, dates and
 * names again (≈ 12 % of the main thread over a burst of 200 answers, profiled). Made again when
 * the source's name or a field the facts read is no longer the one it was made from.
 */
const evidenceViews = new WeakMap<CorpusSignal, EvidenceSignal>();

function evidenceView(signal: CorpusSignal, sourceName: string | undefined): EvidenceSignal {
  const kept = evidenceViews.get(signal);
  if (
    kept &&
    kept.source_name === sourceName &&
    kept.title === signal.title &&
    kept.body === signal.body &&
    kept.published_at === signal.published_at &&
    kept.period === signal.period &&
    kept.url === signal.url &&
    kept.entities === signal.entities &&
    kept.metrics === signal.metrics
  ) {
    return kept;
  }
  const view: EvidenceSignal = { ...signal, source_name: sourceName };
  evidenceViews.set(signal, view);
  return view;
}

/** The verifier's view of corpus signals. */
export function evidenceFrom(signals: Iterable<CorpusSignal>, sourceName: (sourceId: string) => string | undefined): EvidenceSignal[] {
  return [...signals].map((signal) => evidenceView(signal, sourceName(signal.source_id)));
}
