/**
 * The extractive drafts of a report's sections, each from the signals its sub-questions
 * retrieved: overview (the computed answer first when the topic asks for one), key figures (a
 * table, and the series a chart draws), key developments, players, where sources disagree, risks
 * and outlook. Every claim carries the `[sig_…]` marker of a signal that states it; the writer
 * (report-writer.ts) verifies each section as it verifies answers.
 */
import type { CorpusSignal, CorpusSource } from '../world/signal-types';
import { metricLabel } from '../../shared/metric-labels';
import { formatNumber } from '../../shared/format';
import { directAnswer, diversify, formatDay } from '../answers/composer';
import { findConflicts, type FigureConflict } from '../answers/conflicts';
import type { SignalFacts } from '../answers/signal-facts';
import type { SearchHit } from '../retrieval/search-index';
import type { SourceHealth } from '../../shared/service-schemas';
import type { SectionKey, SectionPlan, TopicFrame } from './research-plan';

/** What lets a report lead with the computed answer, as ask answers do. */
export interface ReportFacts {
  facts: SignalFacts;
  now: number;
  /** The analyst's time zone: the report's dates are its calendar's (default Asia/Kolkata, world/time-zone.ts). */
  timeZone?: string;
  /** The health a report may state for a source (SignalStore.healthOf); by default the source's own. */
  healthOf?: (sourceId: string) => SourceHealth | null | undefined;
}

export interface SectionDraft {
  key: SectionKey;
  title: string;
  /** The section's sub-question (what a model is asked). */
  question: string;
  /** Markdown without the heading. */
  markdown: string;
  /** The signals the section may cite (its evidence). */
  evidence: CorpusSignal[];
}

/** One figure a signal states about a subject: a point of a chart, a row of the table, a "before" of the next run. */
export interface ReportFigure {
  subject: string;
  metric: string;
  label: string;
  /** The reported period ("Q2 FY27") or the day published. */
  at: string;
  published_at: string;
  value: number;
  citation: string;
}

/** A metric over periods, or players' shares: what the viewer and the exports draw. */
export interface FigureSeries {
  title: string;
  metric: string;
  kind: 'over_time' | 'by_subject';
  points: Array<{ x: string; value: number; citation: string }>;
}

export interface ReportDisagreement {
  key: string;
  note: string;
  citations: string[];
}

export interface ReportDrafts {
  sections: SectionDraft[];
  /** Every signal about the topic the run read (ids: the next run's "new signals" compare with them). */
  onTopic: CorpusSignal[];
  figures: ReportFigure[];
  series: FigureSeries[];
  disagreements: ReportDisagreement[];
}

const cite = (signal: CorpusSignal): string => `[${signal.id}]`;

/**
 * What a Key figures row is about: the retailer or brand (the one the topic names when the signal
 * carries several, else its first), then the segment, then the place. Not the city first: a row
 * about Vishal Mega Mart's stores read "Lucknow" when the signal also named a learned person.
 */
export function figureRowSubject(signal: CorpusSignal, topic: string): string | null {
  const asked = topic.toLowerCase();
  const retailers = signal.entities.retailers;
  return retailers.find((name) => asked.includes(name.toLowerCase())) ?? retailers[0] ?? signal.entities.segments[0] ?? signal.entities.cities[0] ?? signal.entities.states[0] ?? null;
}

/** The latest figure per subject and metric, one per reported fact; its subject is the Key figures row's, so a chart and the table beside it name the same retailer. */
export function figuresOf(signals: CorpusSignal[], topic: string): ReportFigure[] {
  const figures: ReportFigure[] = [];
  for (const signal of signals) {
    const subject = figureRowSubject(signal, topic);
    if (!subject) continue;
    for (const [metric, value] of Object.entries(signal.metrics)) {
      figures.push({ subject, metric, label: metricLabel(metric), at: signal.period ?? signal.published_at.slice(0, 10), published_at: signal.published_at, value, citation: signal.id });
    }
  }
  return figures.sort((a, b) => a.published_at.localeCompare(b.published_at));
}

export function disagreementKey(conflict: FigureConflict): string {
  return `${conflict.measure}|${conflict.entity}|${conflict.place}|${conflict.as_of}`;
}

function seriesOf(figures: ReportFigure[]): FigureSeries[] {
  const series: FigureSeries[] = [];
  // A metric of one subject over at least three periods: drawn over time.
  const bySubjectMetric = new Map<string, ReportFigure[]>();
  for (const figure of figures) bySubjectMetric.set(`${figure.subject}|${figure.metric}`, [...(bySubjectMetric.get(`${figure.subject}|${figure.metric}`) ?? []), figure]);
  for (const [, group] of bySubjectMetric) {
    const perPeriod = new Map<string, ReportFigure>();
    for (const figure of group) perPeriod.set(figure.at, figure);
    if (perPeriod.size < 3) continue;
    const first = group[0]!;
    series.push({ title: `${first.subject}: ${first.label}`, metric: first.metric, kind: 'over_time', points: [...perPeriod.values()].map((figure) => ({ x: figure.at, value: figure.value, citation: figure.citation })) });
  }
  // Players' shares, or any metric several subjects report: drawn side by side (latest each).
  const byMetric = new Map<string, Map<string, ReportFigure>>();
  for (const figure of figures) {
    const subjects = byMetric.get(figure.metric) ?? new Map<string, ReportFigure>();
    subjects.set(figure.subject, figure);
    byMetric.set(figure.metric, subjects);
  }
  for (const [metric, subjects] of byMetric) {
    if (subjects.size < 3) continue;
    const points = [...subjects.values()].map((figure) => ({ x: figure.subject, value: figure.value, citation: figure.citation }));
    series.push({ title: `${metricLabel(metric)} by ${/share/.test(metric) ? 'player' : 'subject'} (latest each)`, metric, kind: 'by_subject', points });
  }
  return series.slice(0, 4);
}

export function draftReport(
  topic: string,
  frame: TopicFrame,
  plans: SectionPlan[],
  retrieved: Map<SectionKey, SearchHit[]>,
  sourcesById: Map<string, CorpusSource>,
  context: ReportFacts,
  maxSignals: number,
): ReportDrafts | null {
  const all = new Map<string, SearchHit>();
  for (const hits of retrieved.values()) for (const hit of hits) if (!all.has(hit.signal.id) || all.get(hit.signal.id)!.score < hit.score) all.set(hit.signal.id, hit);
  const ranked = [...all.values()].sort((a, b) => b.score - a.score);
  if (ranked.length < 2) return null;
  const pick = (key: SectionKey, max: number): CorpusSignal[] => diversify(retrieved.get(key)?.length ? retrieved.get(key)! : ranked, max).map((hit) => hit.signal);
  const chosen = diversify(ranked, maxSignals).map((hit) => hit.signal);
  const question = (key: SectionKey): string => plans.find((plan) => plan.key === key)?.questions[0] ?? topic;
  const sections: SectionDraft[] = [];
  const byDate = (signals: CorpusSignal[]): CorpusSignal[] => [...signals].sort((a, b) => b.published_at.localeCompare(a.published_at));

  // Overview: the computed answer when the topic asks for one, then the newest developments.
  const overview = byDate(pick('overview', 4));
  const lines: string[] = [];
  const direct = frame.unknown.length === 0 ? directAnswer(frame, { facts: context.facts, sourcesById, now: context.now, ...(context.timeZone ? { timeZone: context.timeZone } : {}) }) : null;
  const overviewEvidence = [...overview];
  if (direct && direct.lines.length > 0) {
    // One block, as answers write it: a lead-in ending in ':' takes its citations from the list under it.
    lines.push(direct.lines.join('\n'));
    for (const signal of direct.cited) if (!overviewEvidence.includes(signal)) overviewEvidence.push(signal);
  }
  for (const signal of overview.slice(0, 3)) lines.push(`${signal.summary} ${cite(signal)}`);
  sections.push({ key: 'overview', title: 'Overview', question: question('overview'), markdown: lines.join('\n\n'), evidence: overviewEvidence });

  // Key figures: each signal's figures, a row each; the series are drawn by the viewer and exports.
  const figureSignals = pick('key_figures', Math.ceil(maxSignals / 2)).filter((signal) => Object.keys(signal.metrics).length > 0);
  const rows = ['| Signal | Date | Measure | Value |', '|---|---|---|---:|'];
  for (const signal of figureSignals) {
    for (const [key, value] of Object.entries(signal.metrics).slice(0, 2)) {
      // The row names its subject, not the signal's title: a title's other figures ("Blinkit leads with 30.2%") would sit beside this row's value.
      rows.push(`| ${(figureRowSubject(signal, topic) ?? sourcesById.get(signal.source_id)?.name ?? signal.source_id).replace(/\|/g, '\\|')} ${cite(signal)} | ${formatDay(signal.published_at, context.timeZone)} | ${tableLabel(key)} | ${formatNumber(value, { maxFractionDigits: 2 })} |`);
    }
  }
  sections.push({
    key: 'key_figures',
    title: 'Key figures',
    question: question('key_figures'),
    markdown: figureSignals.length > 0 ? rows.join('\n') : 'None of the signals about this topic state a figure.',
    evidence: figureSignals,
  });

  const timeline = byDate(pick('timeline', 8));
  const toldInOverview = new Set(overview.slice(0, 3).map((signal) => signal.id));
  sections.push({
    key: 'timeline',
    title: 'Key developments',
    question: question('timeline'),
    // A development the Overview already tells is listed by its headline, not its summary again word for word.
    markdown: timeline.map((signal) => `- **${formatDay(signal.published_at, context.timeZone)}** — ${toldInOverview.has(signal.id) && signal.title.trim() ? signal.title.trim().replace(/[.!?]?$/, '.') : signal.summary} ${cite(signal)}`).join('\n'),
    evidence: timeline,
  });

  const playerSignals = pick('players', 10);
  const players = new Map<string, CorpusSignal[]>();
  for (const signal of playerSignals) for (const retailer of signal.entities.retailers) players.set(retailer, [...(players.get(retailer) ?? []), signal]);
  const playerLines = [...players.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .slice(0, 6)
    // A player's line names when it was last reported, not a title: a title's figures may be another player's or the market's.
    .map(([retailer, signals]) => `- **${retailer}**: latest report ${formatDay(byDate(signals)[0]!.published_at, context.timeZone)} ${byDate(signals).map(cite).join(' ')}`);
  sections.push({
    key: 'players',
    title: 'Players involved',
    question: question('players'),
    markdown: playerLines.length > 0 ? playerLines.join('\n') : 'None of the signals name a single retailer; they describe the market as a whole.',
    evidence: playerSignals,
  });

  // Disagreements among every signal the run read about the topic.
  const conflictSignals = [...new Map([...chosen, ...pick('disagreements', 12)].map((signal) => [signal.id, signal])).values()];
  const conflicts = findConflicts(conflictSignals, sourcesById, context.timeZone);
  const disagreements = conflicts.map((conflict) => ({ key: disagreementKey(conflict), note: conflict.note, citations: conflict.figures.map((figure) => figure.signal_id) }));
  sections.push({
    key: 'disagreements',
    title: 'Where sources disagree',
    question: question('disagreements'),
    markdown: conflicts.length > 0 ? conflicts.map((conflict) => `- ${conflict.note}`).join('\n') : 'None of the signals state different figures for the same fact.',
    evidence: conflictSignals,
  });

  const riskPool = pick('risks_outlook', 10);
  const risky = riskPool.filter((signal) => signal.type === 'closure' || signal.type === 'regulation' || (signal.metrics.avg_price_change_pct ?? 0) < -8);
  const riskLines = risky.map((signal) => `- ${signal.type === 'closure' ? 'Store closures' : signal.type === 'regulation' ? 'Regulation' : 'Price pressure'}: ${signal.summary} ${cite(signal)}`);
  const healthOf = context.healthOf ?? ((id: string) => sourcesById.get(id)?.health);
  const weak = chosen.filter((signal) => {
    const health = healthOf(signal.source_id);
    return health !== null && health !== undefined && health !== 'healthy';
  });
  if (weak.length > 0) riskLines.push(`- Some cited sources are degraded or down, so their figures may lag ${weak.map(cite).join(' ')}.`);
  if (riskLines.length === 0) riskLines.push('- None of the signals report closures, regulatory actions or steep price cuts.');
  const outlook = outlookLines(riskPool.concat(chosen));
  if (outlook.length === 0) outlook.push('- None of the signals about this topic report growth figures yet.');
  // Risks, then the outlook under its own heading (the report's reader looks for both).
  sections.push({ key: 'risks_outlook', title: 'Risks', question: question('risks_outlook'), markdown: [...riskLines, '', '## Outlook', '', ...outlook].join('\n'), evidence: [...new Set([...riskPool, ...chosen])] });

  const onTopic = ranked.map((hit) => hit.signal);
  const figures = figuresOf(onTopic, topic);
  return { sections, onTopic, figures, series: seriesOf(figuresOf([...new Set([...chosen, ...figureSignals])], topic)), disagreements };
}

/** One measure per statement: year-on-year revenue growth and order value growth are never averaged. */
function outlookLines(signals: CorpusSignal[]): string[] {
  const measures: Array<[string, string]> = [
    ['revenue_growth_yoy_pct', 'Revenue growth, year on year'],
    ['gov_growth_yoy_pct', 'Gross order value growth, year on year'],
  ];
  const lines: string[] = [];
  for (const [metric, label] of measures) {
    const seen = new Set<string>();
    const figures = signals
      .filter((signal) => signal.metrics[metric] !== undefined)
      .filter((signal) => {
        const key = signal.event_id ?? signal.id;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .map((signal) => ({ signal, value: signal.metrics[metric]! }))
      .sort((a, b) => a.value - b.value);
    if (figures.length === 0) continue;
    const low = figures[0]!;
    const high = figures[figures.length - 1]!;
    lines.push(
      figures.length === 1 || low.value === high.value
        ? `- ${label}: ${low.value}% ${cite(low.signal)}.`
        : `- ${label} ranges from ${low.value}% ${cite(low.signal)} to ${high.value}% ${cite(high.signal)}.`,
    );
  }
  return lines;
}

/** The table's measure: "Avg" spelled out (the verifier reads a capitalised abbreviation as a name). */
const tableLabel = (metric: string): string => metricLabel(metric).replace(/^Avg\b/, 'Average');
