/**
 * Research reports composed from the corpus: overview, a dated timeline of key developments,
 * the players involved, key figures, risks and outlook, every claim cited with `[sig_…]`.
 *
 * cost_usd is an estimate: tokens ≈ characters / 4, priced with PRICE_TABLE below
 * (per million tokens), as a hosted model-backed service would bill the same work.
 */
import type { CorpusSignal, CorpusSource } from '../world/signal-types';
import { metricLabel } from '../../shared/metric-labels';
import { formatNumber } from '../../shared/format';
import { directAnswer, diversify, formatDay, matchesFrame } from '../answers/composer';
import { parseQuestion } from '../answers/question';
import type { SignalFacts } from '../answers/signal-facts';
import type { SearchHit } from '../retrieval/search-index';
import type { SourceHealth } from '../../shared/service-schemas';

/** What lets a report lead with the computed answer, as ask answers do. */
export interface ReportFacts {
  facts: SignalFacts;
  now: number;
  isKnownWord?: (word: string) => boolean;
  /** The health a report may state for a source (SignalStore.healthOf); by default the source's own. */
  healthOf?: (sourceId: string) => SourceHealth | null | undefined;
}

export const PRICE_TABLE = { inputPerMillionUsd: 3, outputPerMillionUsd: 15, retrievalPerSignalUsd: 0.0004 } as const;

export interface BuiltReport {
  markdown: string;
  citations: CorpusSignal[];
  costUsd: number;
}

const MAX_REPORT_SIGNALS = 16;

export function estimateCostUsd(inputChars: number, outputChars: number, signalsRead: number): number {
  const cost =
    (inputChars / 4 / 1_000_000) * PRICE_TABLE.inputPerMillionUsd +
    (outputChars / 4 / 1_000_000) * PRICE_TABLE.outputPerMillionUsd +
    signalsRead * PRICE_TABLE.retrievalPerSignalUsd;
  return Math.round(cost * 10_000) / 10_000;
}

export function buildReport(topic: string, hits: SearchHit[], sourcesById: Map<string, CorpusSource>, context?: ReportFacts): BuiltReport | null {
  const frame = context ? parseQuestion(topic, context.now, context.isKnownWord) : null;
  // The report is about what the topic names: signals about other retailers or places stay out.
  const onTopic = frame ? hits.filter((hit) => matchesFrame(hit.signal, { ...frame, period: null })) : hits;
  const chosen = diversify(onTopic.length >= 2 ? onTopic : hits, MAX_REPORT_SIGNALS).map((hit) => hit.signal);
  if (chosen.length < 2) return null;
  const direct = frame && context && frame.unknown.length === 0 ? directAnswer(frame, { facts: context.facts, sourcesById, now: context.now }) : null;
  const cite = (signal: CorpusSignal): string => `[${signal.id}]`;
  const sourceName = (signal: CorpusSignal): string => sourcesById.get(signal.source_id)?.name ?? signal.source_id;
  const byDate = [...chosen].sort((a, b) => b.published_at.localeCompare(a.published_at));
  const newest = byDate[0]!;
  const oldest = byDate[byDate.length - 1]!;
  const lines: string[] = [];

  lines.push(`# ${topic}`, '');
  if (direct && direct.lines.length > 0) {
    // Answer first: the figure computed from the signals, then any disagreement between sources.
    lines.push('## Answer', '', ...direct.lines, '');
    for (const note of direct.disagreements) lines.push(`- Sources disagree — ${note}`);
    for (const gap of direct.gaps) lines.push(`- ${gap}`);
    lines.push('');
    for (const signal of direct.cited) if (!chosen.includes(signal)) chosen.push(signal);
  }
  lines.push('## Overview', '');
  lines.push(
    `This report draws on ${chosen.length} signals from ${new Set(chosen.map(sourceName)).size} sources published between ${formatDay(oldest.published_at)} and ${formatDay(newest.published_at)}. ` +
      `The most recent development: ${newest.summary} ${cite(newest)}`,
    '',
  );
  const types = countBy(chosen, (signal) => signal.type.replace(/_/g, ' '));
  lines.push(
    `The signals are mostly ${[...types.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([type, n]) => `${type} (${n})`).join(', ')}.`,
    '',
  );

  lines.push('## Key developments', '');
  for (const signal of byDate) lines.push(`- **${formatDay(signal.published_at)}** — ${signal.summary} ${cite(signal)}`);
  lines.push('');

  const players = new Map<string, CorpusSignal[]>();
  for (const signal of chosen) for (const retailer of signal.entities.retailers) players.set(retailer, [...(players.get(retailer) ?? []), signal]);
  lines.push('## Players involved', '');
  if (players.size === 0) lines.push('No single retailer dominates these signals; they describe the market as a whole.');
  for (const [retailer, signals] of [...players.entries()].sort((a, b) => b[1].length - a[1].length)) {
    lines.push(`- **${retailer}** — ${signals.length} signal${signals.length === 1 ? '' : 's'}, latest: ${signals[0]!.title} ${signals.map(cite).join(' ')}`);
  }
  lines.push('');

  lines.push('## Key figures', '', '| Signal | Date | Measure | Value |', '|---|---|---|---:|');
  for (const signal of chosen) {
    for (const [key, value] of Object.entries(signal.metrics).slice(0, 2)) {
      lines.push(`| ${signal.title.replace(/\|/g, '\\|')} ${cite(signal)} | ${formatDay(signal.published_at)} | ${metricLabel(key)} | ${formatNumber(value, { maxFractionDigits: 2 })} |`);
    }
  }
  lines.push('');

  lines.push('## Risks', '');
  const risky = chosen.filter((signal) => signal.type === 'closure' || signal.type === 'regulation' || (signal.metrics.avg_price_change_pct ?? 0) < -8);
  for (const signal of risky) lines.push(`- ${riskSentence(signal)} ${cite(signal)}`);
  const healthOf = context?.healthOf ?? ((id: string) => sourcesById.get(id)?.health);
  const weak = chosen.filter((signal) => {
    const health = healthOf(signal.source_id);
    return health !== null && health !== 'healthy';
  });
  if (weak.length > 0) lines.push(`- ${weak.length} cited source${weak.length === 1 ? ' is' : 's are'} degraded or down; their figures may lag ${weak.map(cite).join(' ')}.`);
  if (risky.length === 0 && weak.length === 0) lines.push('- No closures, regulatory actions or steep price cuts among these signals.');
  lines.push('');

  lines.push('## Outlook', '');
  // One measure per statement: year-on-year revenue growth, year-on-year order value growth and
  // the like are never averaged together.
  const measures: Array<[string, string]> = [
    ['revenue_growth_yoy_pct', 'Revenue growth, year on year'],
    ['gov_growth_yoy_pct', 'Gross order value growth, year on year'],
  ];
  let stated = 0;
  for (const [metric, label] of measures) {
    // One figure per reported fact (two sources covering one result are not two data points).
    const seen = new Set<string>();
    const figures = chosen
      .filter((signal) => signal.metrics[metric] !== undefined)
      .filter((signal) => {
        const key = signal.event_id ?? signal.id;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .map((signal) => ({ signal, value: signal.metrics[metric]! }));
    if (figures.length === 0) continue;
    stated += 1;
    figures.sort((a, b) => a.value - b.value);
    const where = (signal: CorpusSignal): string => {
      const parts = [signal.entities.retailers.length === 1 ? signal.entities.retailers[0] : signal.entities.cities[0], signal.period].filter(Boolean);
      return parts.length > 0 ? ` (${parts.join(', ')})` : '';
    };
    const low = figures[0]!;
    const high = figures[figures.length - 1]!;
    lines.push(
      figures.length === 1
        ? `- ${label}: ${low.value}%${where(low.signal)} ${cite(low.signal)}.`
        : `- ${label} ranges from ${low.value}%${where(low.signal)} ${cite(low.signal)} to ${high.value}%${where(high.signal)} ${cite(high.signal)} across ${figures.length} reported figures.`,
    );
  }
  if (stated > 0) lines.push('', `Each figure above is one measure, as its source reports it; watch the next quarter's reports for whether the pace holds, subject to the risks above.`);
  else lines.push(`Activity is ${chosen.length > 10 ? 'broad' : 'limited'}; watch ${[...players.keys()].slice(0, 3).join(', ') || 'the segment'} for the next moves ${cite(newest)}.`);
  lines.push('', '_Figures are synthetic sample data from the local Retail Signal service._');

  const markdown = lines.join('\n');
  const inputChars = chosen.reduce((sum, signal) => sum + signal.body.length + signal.title.length, topic.length) + hits.length * 200;
  return { markdown, citations: chosen, costUsd: estimateCostUsd(inputChars, markdown.length, hits.length) };
}

function riskSentence(signal: CorpusSignal): string {
  if (signal.type === 'closure') return `Store closures: ${signal.summary}`;
  if (signal.type === 'regulation') return `Regulation: ${signal.summary}`;
  return `Price pressure: ${signal.summary}`;
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
