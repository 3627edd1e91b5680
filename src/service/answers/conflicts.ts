/**
 * Conflicting figures (issue 30): two sources stating different values — beyond rounding — for
 * the same measure of the same entity, place and day (or the same reported fact: one store
 * event, one quarter's results, one city market's quarter). An answer that cites both must say
 * so; `findConflicts` finds them among any signals, so the extractive composer, a model's
 * verified answer and the machine-readable `conflicts` field all read the same rule.
 */
import { sourceAuthority, type CorpusSignal, type CorpusSource } from '../world/signal-types';
import { DEFAULT_TIME_ZONE, formatCalendarDay } from '../world/time-zone';
import { isoDayOf } from './signal-days';

/** Extension field `conflicts[]` of an answer (JSON body and the `clarity.conflicts_flagged` frame). */
export interface FigureConflict {
  /** What is measured: `app_rank`, `store_count`, `revenue_cr`, `gov_growth_yoy_pct`. */
  measure: string;
  entity: string;
  place: string;
  /** The day (YYYY-MM-DD) or reported period ("Q2 FY27") the figures are for. */
  as_of: string;
  /** One per source, the figure the answer leads with first. */
  figures: Array<{ value: number; signal_id: string; source_id: string; source_name: string; published_at: string }>;
  /** The sentence the answer says about it. */
  note: string;
}

interface Measure {
  metric: string;
  name: string;
  /** What the figures are about, or null when the signal does not state this measure comparably. */
  subject: (signal: CorpusSignal) => { entity: string; place: string } | null;
  /** "the app rank" etc., for the note. */
  describe: (entity: string) => string;
  format: (value: number) => string;
}

const retailer = (signal: CorpusSignal): string | undefined => (signal.entities.retailers.length === 1 ? signal.entities.retailers[0] : undefined);
const nationwide = (signal: CorpusSignal): { entity: string; place: string } | null => {
  const name = retailer(signal);
  return name ? { entity: name, place: 'India' } : null;
};
const possessive = (name: string): string => (name.endsWith('s') ? `${name}'` : `${name}'s`);

const MEASURES: Measure[] = [
  { metric: 'rank', name: 'app_rank', subject: (signal) => (signal.type === 'app_rank' ? nationwide(signal) : null), describe: (entity) => `${possessive(entity)} app rank among shopping apps`, format: (value) => `#${value}` },
  { metric: 'store_count_national', name: 'store_count', subject: nationwide, describe: (entity) => `${possessive(entity)} store count`, format: (value) => value.toLocaleString('en-IN') },
  { metric: 'revenue_cr', name: 'revenue_cr', subject: (signal) => (signal.period ? nationwide(signal) : null), describe: (entity) => `${possessive(entity)} revenue`, format: (value) => `₹${value.toLocaleString('en-IN')} crore` },
  {
    metric: 'gov_growth_yoy_pct',
    name: 'gov_growth_yoy_pct',
    subject: (signal) => {
      const segment = signal.entities.segments[0];
      const city = signal.entities.cities[0];
      return signal.period && segment && city && signal.entities.cities.length === 1 ? { entity: segment, place: city } : null;
    },
    describe: (entity) => `${entity} order-value growth`,
    format: (value) => `${value}%`,
  },
];

const decimals = (value: number): number => (Number.isInteger(value) ? 0 : (String(value).split('.')[1]?.length ?? 0));

/** Whether two figures differ beyond rounding: they do not agree at the coarser precision of the two. */
export function differBeyondRounding(a: number, b: number): boolean {
  const places = Math.min(decimals(a), decimals(b));
  const scale = 10 ** places;
  return Math.round(a * scale) !== Math.round(b * scale);
}


/**
 * Whether one source's second figure for the same subject and day can be an update of its first:
 * a chart moves a few places between its runs, a count or a rate moves by a little. #21 and #1
 * from one tracker on one day cannot both describe that day; shown together they are a
 * disagreement like any other.
 */
export function plausibleUpdate(measure: string, a: number, b: number): boolean {
  if (measure === 'app_rank') return Math.abs(a - b) <= 5;
  return Math.abs(a - b) <= 0.02 * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * The conflicts among `signals`: grouped by measure, entity, place and the fact they report
 * (the signals' shared event or period, else the analyst's day: the calendar day in `zone`,
 * the date the app shows, so two figures the analyst sees on one day are compared whatever
 * their UTC times; issue 43 item 7), each group with figures from at
 * least two sources that differ beyond rounding. One source's updates within a day are not a
 * conflict when they are plausible updates (`plausibleUpdate`); two figures from one source that
 * cannot both be right are. Figures are ordered as an answer leads: the more authoritative, then
 * the earlier.
 */
export function findConflicts(signals: CorpusSignal[], sourcesById: Map<string, CorpusSource>, zone: string = DEFAULT_TIME_ZONE): FigureConflict[] {
  const day = (iso: string): string => isoDayOf(iso, zone);
  const groups = new Map<string, { measure: Measure; entity: string; place: string; asOf: string; signals: CorpusSignal[] }>();
  const seen = new Set<string>();
  for (const signal of signals) {
    if (seen.has(signal.id)) continue;
    seen.add(signal.id);
    for (const measure of MEASURES) {
      const value = signal.metrics[measure.metric];
      const subject = value === undefined ? null : measure.subject(signal);
      if (!subject) continue;
      const fact = signal.period && measure.metric !== 'store_count_national' ? `period:${signal.period}` : signal.event_id ? `event:${signal.event_id}` : `day:${day(signal.published_at)}`;
      const key = [measure.name, subject.entity, subject.place, fact].join('|');
      const group = groups.get(key) ?? { measure, ...subject, asOf: signal.period && measure.metric !== 'store_count_national' ? signal.period : day(signal.published_at), signals: [] };
      group.signals.push(signal);
      groups.set(key, group);
    }
  }
  const conflicts: FigureConflict[] = [];
  for (const group of groups.values()) {
    const { measure } = group;
    const ranked = [...group.signals].sort(
      (a, b) =>
        sourceAuthority(sourcesById.get(a.source_id)?.kind) - sourceAuthority(sourcesById.get(b.source_id)?.kind) ||
        a.published_at.localeCompare(b.published_at) ||
        a.id.localeCompare(b.id),
    );
    // One figure per source: its first in the ranking.
    const bySource = new Map<string, CorpusSignal>();
    for (const signal of ranked) if (!bySource.has(signal.source_id)) bySource.set(signal.source_id, signal);
    const lead = ranked[0]!;
    const leadValue = lead.metrics[measure.metric]!;
    const valueOf = (signal: CorpusSignal): number => signal.metrics[measure.metric]!;
    const differing = [...bySource.values()].filter((signal) => signal !== lead && differBeyondRounding(valueOf(signal), leadValue));
    // A source's own later figure that no update explains ("#1" then "#21" on one chart, one day).
    const firsts = new Set(bySource.values());
    for (const signal of ranked) {
      if (firsts.has(signal)) continue;
      const first = bySource.get(signal.source_id)!;
      const shown = [lead, ...differing].some((other) => !differBeyondRounding(valueOf(other), valueOf(signal)));
      if (!shown && differBeyondRounding(valueOf(first), valueOf(signal)) && !plausibleUpdate(measure.name, valueOf(first), valueOf(signal))) differing.push(signal);
    }
    if (differing.length === 0) continue;
    // An event's figures were reported over a few days: the day they are for is the first report's.
    const asOf = group.asOf.includes('-') ? day(ranked.reduce((min, signal) => (signal.published_at < min ? signal.published_at : min), lead.published_at)) : group.asOf;
    const figures = [lead, ...differing].map((signal) => ({
      value: signal.metrics[measure.metric]!,
      signal_id: signal.id,
      source_id: signal.source_id,
      source_name: sourcesById.get(signal.source_id)?.name ?? signal.source_id,
      published_at: signal.published_at,
    }));
    // The analyst's day (the sample plants its disagreements on one UTC and one IST day:
    // corpus/app-rank-conflicts.ts).
    const when = asOf.includes('-') ? `on ${formatCalendarDay(asOf)}` : `for ${asOf}`;
    const stated = figures.map((figure) => `${figure.source_name} reports ${measure.format(figure.value)} [${figure.signal_id}]`);
    const note =
      `${capitalise(measure.describe(group.entity))} in ${group.place} ${when} differs between sources: ${stated.slice(0, -1).join(', ')}${stated.length > 2 ? ',' : ''} while ${stated.at(-1)}. ` +
      `These are not the same figure; the first is the ${sameKind(figures, sourcesById) ? 'earlier report' : 'more authoritative source'}.`;
    conflicts.push({ measure: measure.name, entity: group.entity, place: group.place, as_of: asOf, figures, note });
  }
  return conflicts;
}

function sameKind(figures: FigureConflict['figures'], sourcesById: Map<string, CorpusSource>): boolean {
  return new Set(figures.map((figure) => sourcesById.get(figure.source_id)?.kind)).size === 1;
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Whether an answer's text already names both sides of a conflict (its figures' citations). */
export function isFlagged(conflict: FigureConflict, flaggedText: string): boolean {
  return conflict.figures.every((figure) => flaggedText.includes(figure.signal_id));
}
