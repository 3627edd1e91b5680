/**
 * Composes a cited markdown answer from retrieved signals. Every claim carries an inline
 * `[sig_…]` marker (DESIGN §3). No model: the text is assembled from the signals themselves.
 */
import type { CorpusSignal, CorpusSource } from '../corpus/generator';
import { metricLabel } from '../../shared/metric-labels';
import { extractEntities, type SearchHit } from '../retrieval/search-index';

export interface ComposedAnswer {
  content: string;
  citations: CorpusSignal[];
  confidence: number;
  /** Confidence as it firms up while the answer is written, one value per cited signal. */
  confidenceTrace: number[];
  promotion: { topic: string; preset: string; reason: string } | null;
}

const MAX_CITED = 6;
const MAX_PER_TYPE = 2;

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
export const formatDay = (iso: string): string => dateFormat.format(new Date(iso));



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

export function composeAnswer(
  question: string,
  hits: SearchHit[],
  sourcesById: Map<string, CorpusSource>,
  now: number,
): ComposedAnswer {
  const chosen = diversify(hits);
  if (chosen.length === 0) {
    return {
      content:
        'I could not find signals that match this question. Try naming a retailer, a segment (for example quick commerce or jewellery) or a city.',
      citations: [],
      confidence: 0.05,
      confidenceTrace: [0.05],
      promotion: null,
    };
  }
  const entities = extractEntities(question);
  const subject = describeSubject(entities, question);
  const cite = (signal: CorpusSignal): string => `[${signal.id}]`;
  const lead = chosen[0]!.signal;
  const newest = chosen.reduce((a, b) => (a.signal.published_at > b.signal.published_at ? a : b)).signal;
  const sourceNames = new Set(chosen.map((hit) => sourcesById.get(hit.signal.source_id)?.name ?? hit.signal.source_id));

  const lines: string[] = [];
  lines.push(`## ${subject}`, '');
  lines.push(
    `Based on ${chosen.length} signals from ${sourceNames.size} sources, the most recent from ${formatDay(newest.published_at)}.`,
    '',
  );
  lines.push(`**In short:** ${lead.summary} ${cite(lead)}`, '');
  lines.push('### Key developments', '');
  const byDate = [...chosen].sort((a, b) => b.signal.published_at.localeCompare(a.signal.published_at));
  for (const { signal } of byDate) {
    lines.push(`- **${formatDay(signal.published_at)}** — ${signal.summary} ${cite(signal)}`);
  }
  lines.push('');

  const figures = chosen.flatMap(({ signal }) =>
    Object.entries(signal.metrics)
      .slice(0, 2)
      .map(([key, value]) => ({ signal, key, value })),
  );
  if (figures.length > 0) {
    lines.push('### Figures', '', '| Signal | Measure | Value |', '|---|---|---:|');
    for (const { signal, key, value } of figures.slice(0, 8)) {
      lines.push(`| ${escapeTableCell(signal.title)} ${cite(signal)} | ${metricLabel(key)} | ${value.toLocaleString('en-IN')} |`);
    }
    lines.push('');
  }

  const weakSources = chosen.filter((hit) => sourcesById.get(hit.signal.source_id)?.health !== 'healthy');
  lines.push('### Caveats', '');
  if (weakSources.length > 0) {
    lines.push(
      `- ${weakSources.length} of the cited sources ${weakSources.length === 1 ? 'is' : 'are'} currently degraded or down; treat ${weakSources.length === 1 ? 'its' : 'their'} figures with care ${weakSources.map((hit) => cite(hit.signal)).join(' ')}.`,
    );
  }
  const oldest = chosen.reduce((a, b) => (a.signal.published_at < b.signal.published_at ? a : b)).signal;
  const oldestDays = Math.round((now - Date.parse(oldest.published_at)) / 86_400_000);
  if (oldestDays > 90) lines.push(`- The oldest cited signal is ${oldestDays} days old ${cite(oldest)}.`);
  lines.push('- Figures come from individual signals and are not audited market estimates.');

  const trace = confidenceTrace(chosen, sourcesById, entities);
  const confidence = trace[trace.length - 1] ?? 0.1;
  const promotion =
    chosen.length >= 3
      ? { topic: subject, preset: 'standard', reason: `${hits.length}+ signals match; a research report covers them in depth.` }
      : null;
  return { content: lines.join('\n'), citations: chosen.map((hit) => hit.signal), confidence, confidenceTrace: trace, promotion };
}

function escapeTableCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function describeSubject(entities: ReturnType<typeof extractEntities>, question: string): string {
  const what = [...entities.retailers, ...entities.segments.map((segment) => segment.charAt(0).toUpperCase() + segment.slice(1))];
  const where = [...entities.cities, ...entities.states];
  if (what.length === 0 && where.length === 0) {
    const trimmed = question.trim().replace(/[?.!]+$/, '');
    return trimmed.length > 70 ? `${trimmed.slice(0, 67)}…` : trimmed;
  }
  return `${what.join(', ') || 'Retail'}${where.length > 0 ? ` in ${where.join(', ')}` : ' in India'}`;
}

/**
 * Confidence = retrieval strength × agreement × source health, recomputed as each cited
 * signal is added, so a stream can show it firming up.
 */
function confidenceTrace(
  chosen: SearchHit[],
  sourcesById: Map<string, CorpusSource>,
  entities: ReturnType<typeof extractEntities>,
): number[] {
  const wanted = entities.retailers.length + entities.segments.length + entities.cities.length + entities.states.length;
  const trace: number[] = [];
  for (let count = 1; count <= chosen.length; count += 1) {
    const part = chosen.slice(0, count);
    const strength = Math.min(1, (part[0]?.textScore ?? 0) / 18);
    const agreement = wanted === 0 ? 0.6 : part.reduce((sum, hit) => sum + Math.min(1, hit.entityMatches / wanted), 0) / part.length;
    const health =
      part.reduce((sum, hit) => {
        const state = sourcesById.get(hit.signal.source_id)?.health;
        return sum + (state === 'healthy' ? 1 : state === 'degraded' ? 0.6 : 0.3);
      }, 0) / part.length;
    const coverage = Math.min(1, count / 4);
    const value = 0.15 + 0.8 * strength * (0.35 + 0.65 * agreement) * health * (0.6 + 0.4 * coverage);
    trace.push(Math.round(Math.min(0.97, value) * 100) / 100);
  }
  return trace;
}
