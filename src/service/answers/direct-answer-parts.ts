/**
 * What every direct answer is made of (direct-answers.ts, app-rank-answer.ts): the answer's
 * shape, the context it is computed in, and the small helpers that write figures, dates and
 * citations the same way in each.
 */
import type { CorpusSignal, CorpusSource } from '../world/signal-types';
import { DEFAULT_TIME_ZONE, formatDayIn } from '../world/time-zone';
import { shownDayOf } from './signal-days';
import { RETAILERS } from '../world/gazetteer';
import { withMinusSigns } from '../../shared/format';
import type { Period } from './question';
import type { ReadFigure, SignalFacts } from './signal-facts';

export interface DirectAnswer {
  heading: string;
  lines: string[];
  cited: CorpusSignal[];
  disagreements: string[];
  gaps: string[];
  /** The signals cover the period asked about (false when an earlier one stands in). */
  periodMatched: boolean;
}

export interface AnswerContext {
  facts: SignalFacts;
  sourcesById: Map<string, CorpusSource>;
  now: number;
  /** The analyst's time zone: the dates written are its calendar's (default Asia/Kolkata). */
  timeZone?: string;
}

export const cite = (signal: CorpusSignal): string => `[${signal.id}]`;
export const zoneOf = (context: AnswerContext): string => context.timeZone ?? DEFAULT_TIME_ZONE;
export const day = (context: AnswerContext, iso: string | number): string => (typeof iso === 'string' ? shownDayOf(iso, zoneOf(context)) : formatDayIn(iso, zoneOf(context)));
export const num = (value: number): string => value.toLocaleString('en-IN');
// Figures as displayed: a negative one with the true minus sign (U+2212), never a hyphen.
export const pct = (value: number): string => withMinusSigns(`${value.toFixed(1)}%`);
export const pts = (value: number): string => (value > 0 ? `+${value.toFixed(1)} pts` : value === 0 ? 'unchanged' : withMinusSigns(`${value.toFixed(1)} pts`));
export const retailerOf = (name: string) => RETAILERS.find((retailer) => retailer.name === name);
export const unitOf = (name: string): string => (retailerOf(name)?.segment === 'quick commerce' ? 'dark stores' : 'stores');
export const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

export function newAnswer(heading: string): DirectAnswer {
  return { heading, lines: [], cited: [], disagreements: [], gaps: [], periodMatched: true };
}

export function use(answer: DirectAnswer, ...signals: CorpusSignal[]): void {
  for (const signal of signals) if (!answer.cited.includes(signal)) answer.cited.push(signal);
}

/** Records a "sources disagree" note naming both figures and both citations. */
export function noteDisagreement(answer: DirectAnswer, what: string, figure: ReadFigure, format: (value: number) => string, context: AnswerContext): void {
  for (const other of figure.disagreeing) {
    const name = (signal: CorpusSignal): string => context.sourcesById.get(signal.source_id)?.name ?? signal.source_id;
    use(answer, figure.signal, other.signal);
    answer.disagreements.push(
      `${what}: ${name(figure.signal)} reports ${format(figure.value)} ${cite(figure.signal)}, while ${name(other.signal)} reports ${format(other.value)} ${cite(other.signal)}. ` +
        `The answer uses ${name(figure.signal)}'s figure (the ${context.sourcesById.get(figure.signal.source_id)?.kind === 'business_press' ? 'earlier report' : "company's own or official figure"}).`,
    );
  }
}

export const within = (iso: string, period: Period): boolean => {
  const ms = Date.parse(iso);
  return ms >= period.startMs && ms < period.endMs;
};

export const possessiveName = (name: string): string => (name.endsWith('s') ? `${name}'` : `${name}'s`);
