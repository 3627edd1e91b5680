/**
 * Composes a cited markdown answer, answer first: the direct answer computed from the
 * signals (direct-answers.ts), then supporting developments about the same subject, then a
 * "sources disagree" note where two sources state different figures for one fact, then what
 * the signals do not cover. Every figure carries an inline `[sig_…]` marker (docs/decisions/design.md §3) of a
 * signal that states it. No model: the text is assembled from the signals themselves.
 */
import type { CorpusSignal, CorpusSource } from '../world/signal-types';
import { RETAILERS, SEGMENTS } from '../world/gazetteer';
import type { SearchHit } from '../retrieval/search-index';
import {
  appRankAnswer,
  festiveAnswer,
  fundingAnswer,
  govGrowthAnswer,
  openingsAnswer,
  revenueAnswer,
  shareAnswer,
  storeCountAnswer,
  type AnswerContext,
  type DirectAnswer,
} from './direct-answers';
import { findConflicts, isFlagged, type FigureConflict } from './conflicts';
import { framePlaces, inFramePlace, parseQuestion, type QuestionFrame } from './question';
import type { SignalFacts } from './signal-facts';
import { withMinusSigns } from '../../shared/format';
import { DEFAULT_TIME_ZONE } from '../world/time-zone';
import { shownDayOf } from './signal-days';
import type { SourceHealth } from '../../shared/service-schemas';

export interface ComposedAnswer {
  content: string;
  citations: CorpusSignal[];
  confidence: number;
  /** Confidence as it firms up while the answer is written, one value per cited signal. */
  confidenceTrace: number[];
  promotion: { topic: string; preset: string; reason: string } | null;
  /** How the question was understood (kept with the session turn for follow-ups). */
  frame: QuestionFrame;
  /** Conflicting figures among the citations, each said in the "Sources disagree" section. */
  conflicts: FigureConflict[];
  /**
   * Text the composer wrote as structure, by role: headings, connectives ("Following on from your
   * previous question…") and help ("Try naming a retailer…"). The verifier takes none as a claim.
   */
  structure: string[];
}

export interface ComposeOptions {
  /** The understood question, follow-ups already resolved; parsed from `question` when absent. */
  frame?: QuestionFrame;
  /** The analyst's time zone (world/time-zone.ts): dates written are its calendar's. Default Asia/Kolkata. */
  timeZone?: string;
  /** Signals grouped by fact; without them only supporting developments are listed. */
  facts?: SignalFacts;
  /**
   * The health an answer may state for a source (SignalStore.healthOf): null when none is known,
   * so nothing is said of it; by default the source's own `health`.
   */
  healthOf?: (sourceId: string) => SourceHealth | null | undefined;
}

const MAX_CITED = 6;
const MAX_PER_TYPE = 2;

/**
 * "18 Nov 2026" (src/shared/format.ts; "Sep", not ICU's "Sept"): the day in the analyst's time
 * zone, the date the app shows for the same signal (decision 0036).
 */
export const formatDay = (iso: string, zone: string = DEFAULT_TIME_ZONE): string => shownDayOf(iso, zone);

/** Keeps the best hits but no more than two of one signal type, so answers cover several angles. */
export function diversify(hits: SearchHit[], max = MAX_CITED): SearchHit[] {
  const chosen: SearchHit[] = [];
  const perType = new Map<string, number>();
  for (const hit of hits) {
    const used = perType.get(hit.signal.type) ?? 0;
    if (used >= MAX_PER_TYPE) continue;
    perType.set(hit.signal.type, used + 1);
    chosen.push(hit);
    if (chosen.length === max) break;
  }
  return chosen;
}

/** The computed answer for what the question measures, when the signals allow one. */
export function directAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer | null {
  const retailers = frame.retailers.length > 0;
  const intents = new Set(frame.intents);
  switch (frame.measure) {
    case 'festive':
      return festiveAnswer(frame, context);
    case 'funding':
      return retailers ? fundingAnswer(frame, context) : null;
    case 'share':
      return shareAnswer(frame, context);
    case 'revenue':
      return retailers ? revenueAnswer(frame, context) : null;
    case 'openings':
      return retailers ? openingsAnswer(frame, context) : null;
    case 'store_count':
      return retailers ? storeCountAnswer(frame, context) : null;
    case 'gov_growth':
      return govGrowthAnswer(frame, context);
    case 'app_rank':
      return retailers ? appRankAnswer(frame, context) : null;
    case 'general':
      if (intents.has('why')) return null;
      if (retailers && (intents.has('how_fast') || intents.has('trend'))) return revenueAnswer(frame, context);
      if (retailers && (intents.has('compare') || intents.has('how_many'))) {
        const online = frame.retailers.some((name) => RETAILERS.find((retailer) => retailer.name === name)?.online);
        return online ? revenueAnswer(frame, context) : storeCountAnswer(frame, context);
      }
      if (!retailers && intents.has('how_fast') && (frame.segments.length + frame.cities.length > 0 || frame.cityTier)) return govGrowthAnswer(frame, context);
      return null;
  }
}

export function composeAnswer(
  question: string,
  hits: SearchHit[],
  sourcesById: Map<string, CorpusSource>,
  now: number,
  options: ComposeOptions = {},
): ComposedAnswer {
  const zone = options.timeZone ?? DEFAULT_TIME_ZONE;
  const frame = options.frame ?? parseQuestion(question, now, undefined, zone);
  // A name the service does not know, and no retailer it does: say so rather than answer about
  // the segment or city the question also names.
  if (frame.unknown.length > 0 && frame.retailers.length === 0) return unknownEntityAnswer(frame);

  const direct = options.facts ? directAnswer(frame, { facts: options.facts, sourcesById, now, timeZone: zone }) : null;
  const hasDirect = direct !== null && direct.lines.length > 0;
  const cited = new Set(direct?.cited.map((signal) => signal.id) ?? []);
  const supporting = diversify(
    hits.filter((hit) => !cited.has(hit.signal.id) && matchesFrame(hit.signal, frame)),
    MAX_CITED,
  );
  if (!hasDirect && supporting.length === 0) {
    const help = 'I could not find signals that match this question. Try naming a retailer, a segment (for example quick commerce or jewellery) or a city.';
    return {
      content: help + (direct && direct.gaps.length > 0 ? `\n\n${direct.gaps.map((gap) => `- ${gap}`).join('\n')}` : ''),
      structure: [help],
      citations: [],
      confidence: 0.05,
      confidenceTrace: [0.05],
      promotion: null,
      frame,
      conflicts: [],
    };
  }
  const cite = (signal: CorpusSignal): string => `[${signal.id}]`;
  const lines: string[] = [`## ${describeSubject(frame)}`, ''];
  // Connectives: how the question was read, not what a signal says.
  const connectives: string[] = [];
  if (frame.borrowed.length > 0) connectives.push(`_Following on from your previous question (same ${frame.borrowed.filter((slot) => slot !== 'measure').join(', ') || 'topic'})._`);
  for (const { written, retailer } of frame.fuzzy) connectives.push(`_Reading "${written}" as ${retailer}._`);
  for (const connective of connectives) lines.push(connective, '');
  if (hasDirect) lines.push(...direct.lines, '');
  else {
    const lead = supporting[0]!.signal;
    lines.push(`**In short:** ${lead.summary} ${cite(lead)}`, '');
  }
  const developments = hasDirect ? supporting : supporting.slice(1);
  if (developments.length > 0) {
    lines.push(hasDirect ? '### Supporting developments' : '### Key developments', '');
    const byDate = [...developments].sort((a, b) => b.signal.published_at.localeCompare(a.signal.published_at));
    for (const { signal } of byDate) lines.push(`- **${formatDay(signal.published_at, zone)}** — ${signal.summary} ${cite(signal)}`);
    lines.push('');
  }
  const citations = [...(hasDirect ? direct.cited : []), ...supporting.map((hit) => hit.signal)];
  // Every conflict among the cited figures is said in words (conflicts.ts); the direct answer's notes already name some.
  const conflicts = findConflicts(citations, sourcesById, zone);
  const notes = [...(direct?.disagreements ?? [])];
  for (const conflict of conflicts) if (!isFlagged(conflict, notes.join('\n'))) notes.push(conflict.note);
  if (notes.length > 0) {
    lines.push('### Sources disagree', '');
    for (const note of notes) lines.push(`- ${note}`);
    lines.push('');
  }
  const gaps = [...(direct?.gaps ?? [])];
  for (const name of frame.unknown) gaps.push(`The service has no signals about ${name}.`);
  const healthOf = options.healthOf ?? ((id: string) => sourcesById.get(id)?.health);
  // A source with no known health (null) is not called degraded: the answer states only what was measured.
  const weak = citations.filter((signal) => {
    const health = healthOf(signal.source_id);
    return health !== null && health !== 'healthy';
  });
  if (weak.length > 0) gaps.push(`Some cited sources are currently degraded or down, so their figures may lag: ${weak.map(cite).join(' ')}`);
  // With one signal there is no list of developments above, only the In short line.
  if (!hasDirect) gaps.push(developments.length > 0 ? 'No single figure answers this directly; the developments above are the closest signals.' : 'No single figure answers this directly; the signal above is the closest one.');
  // Only the sample is synthetic: an answer from the analyst's own sources does not call them so.
  const fromFeed = citations.filter((signal) => (signal as { origin?: string }).origin === 'feed').length;
  const kindOfData = fromFeed === 0 ? 'synthetic sample data' : fromFeed === citations.length ? 'the sources cited' : 'some of them synthetic sample data';
  gaps.push(`Figures come from individual signals (${kindOfData}), not audited market estimates.`);
  lines.push("### What the signals don't cover", '', ...gaps.map((gap) => `- ${gap}`));

  const trace = confidenceTrace(frame, direct, hasDirect, citations, healthOf, now, conflicts.length > 0);
  const promotion =
    citations.length >= 3 ? { topic: describeSubject(frame), preset: 'standard', reason: `${hits.length}+ signals match; a research report covers them in depth.` } : null;
  // Quoted signal text writes "-6.4%"; the answer displays a true minus sign (the verifier reads both as one sign).
  const content = withMinusSigns(lines.join('\n'));
  return { content, citations, confidence: trace.at(-1) ?? 0.1, confidenceTrace: trace, promotion, frame, conflicts, structure: [...headingsOf(content), ...connectives] };
}

function unknownEntityAnswer(frame: QuestionFrame): ComposedAnswer {
  const names = frame.unknown.map((name) => `**${name}**`).join(' or ');
  const content = [
    `## No signals about ${frame.unknown.join(', ')}`,
    '',
    `The service has no signals about ${names}, so it cannot answer this without guessing. ` +
      `It follows ${RETAILERS.length} Indian retailers across ${SEGMENTS.join(', ')} — for example DMart, Zepto, Zudio, Tanishq and Apollo Pharmacy.`,
    '',
    "### What the signals don't cover",
    '',
    `- ${frame.unknown.join(', ')}: no signal names ${frame.unknown.length === 1 ? 'it' : 'them'}. Check the spelling, or ask about a retailer, segment or city the service follows.`,
  ].join('\n');
  return { content, citations: [], confidence: 0.05, confidenceTrace: [0.05], promotion: null, frame, conflicts: [], structure: headingsOf(content) };
}

/** The composer's headings: they title what follows, they state nothing. */
function headingsOf(content: string): string[] {
  return content.split('\n').filter((line) => /^#{1,6}\s/.test(line));
}

/** Supporting signals must be about what was asked: the retailer, the place, the segment. */
export function matchesFrame(signal: CorpusSignal, frame: QuestionFrame): boolean {
  const { retailers, cities, segments, states } = signal.entities;
  if (frame.retailers.length > 0 && !frame.retailers.some((name) => retailers.includes(name))) return false;
  if ((frame.cities.length > 0 || frame.cityTier) && !cities.some((city) => inFramePlace(frame, city))) return false;
  if (frame.states.length > 0 && !frame.states.some((state) => states.includes(state))) return false;
  if (frame.retailers.length === 0 && frame.segments.length > 0 && !frame.segments.some((segment) => segments.includes(segment))) return false;
  if (frame.period) {
    const ms = Date.parse(signal.published_at);
    if (ms < frame.period.startMs || ms > frame.period.endMs + 60 * 86_400_000) return false;
  }
  return true;
}

function describeSubject(frame: QuestionFrame): string {
  const what = [...frame.retailers, ...(frame.retailers.length === 0 ? frame.segments.map((segment) => segment.charAt(0).toUpperCase() + segment.slice(1)) : [])];
  const where = framePlaces(frame);
  if (frame.measure === 'festive') return `Festive-season demand${frame.period ? `, ${frame.period.label}` : ''}`;
  if (what.length === 0 && where.length === 0) {
    const trimmed = frame.question.trim().replace(/[?.!]+$/, '');
    return trimmed.length > 70 ? `${trimmed.slice(0, 67)}…` : trimmed;
  }
  return `${what.join(', ') || 'Retail'}${where.length > 0 ? ` in ${where.join(', ')}` : ' in India'}${frame.period ? `, ${frame.period.label}` : ''}`;
}

/**
 * Confidence: how well the cited signals cover the question — a computed answer for the
 * entity and period asked beats a list of related signals; disagreement, a stand-in period,
 * a typo-matched name, stale or unhealthy sources all lower it. Recomputed as each citation
 * is added, so a stream can show it firming up.
 */
function confidenceTrace(
  frame: QuestionFrame,
  direct: DirectAnswer | null,
  hasDirect: boolean,
  citations: CorpusSignal[],
  healthOf: (sourceId: string) => SourceHealth | null | undefined,
  now: number,
  conflicting = false,
): number[] {
  const named = frame.retailers.length + frame.segments.length + frame.cities.length + frame.states.length > 0 || frame.cityTier !== undefined;
  let value = hasDirect ? 0.97 : named ? 0.7 : 0.45;
  if (frame.fuzzy.length > 0) value *= 0.97;
  if (frame.unknown.length > 0) value *= 0.5;
  if (direct && !direct.periodMatched) value *= 0.6;
  if ((direct && direct.disagreements.length > 0) || conflicting) value *= 0.93;
  if (direct && direct.gaps.some((gap) => gap.startsWith('No signal') || gap.includes('online only'))) value *= 0.75;
  const trace: number[] = [];
  for (let count = 1; count <= Math.max(1, citations.length); count += 1) {
    const part = citations.slice(0, count);
    const health =
      part.length === 0
        ? 1
        : part.reduce((sum, signal) => {
            const state = healthOf(signal.source_id);
            // No known health (null) lowers nothing: there is no sign the source lags.
            return sum + (state === 'healthy' || state === null ? 1 : state === 'degraded' ? 0.96 : 0.9);
          }, 0) / part.length;
    const newest = part.reduce((max, signal) => Math.max(max, Date.parse(signal.published_at)), 0);
    const recency = now - newest > 180 * 86_400_000 ? 0.85 : 1;
    const firming = 0.55 + 0.45 * Math.min(1, count / Math.min(3, Math.max(1, citations.length)));
    trace.push(Math.round(Math.min(0.98, value * health * recency * firming) * 100) / 100);
  }
  return trace;
}
