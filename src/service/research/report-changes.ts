/**
 * What changed since the last run of a topic (same owner, same normalised topic): signals about
 * the topic the last run had not read, figures whose latest value moved, and disagreements
 * between sources that appeared or went away. The report opens with them, cited, in a section
 * "What changed since {date}" that is verified like every other.
 */
import type { CorpusSignal } from '../world/signal-types';
import { formatDay } from '../answers/composer';
import { formatNumber } from '../../shared/format';
import type { ReportDisagreement, ReportDrafts, ReportFigure } from './report-builder';

/** What a finished run keeps for the next run of its topic to compare with. */
export interface RunSnapshot {
  signal_ids: string[];
  figures: ReportFigure[];
  disagreements: ReportDisagreement[];
}

export interface ReportChanges {
  previous_id: string;
  since: string;
  new_signals: Array<{ id: string; title: string; published_at: string }>;
  changed_figures: Array<{ subject: string; metric: string; before: number; after: number; citations: string[] }>;
  resolved_disagreements: Array<{ note: string; citations: string[] }>;
  new_disagreements: Array<{ note: string; citations: string[] }>;
}

const MAX_NEW_SIGNALS = 12;

/** "Quick  Commerce in Tier-2 cities." and "quick commerce in tier-2 cities" are one topic. */
export function topicKey(topic: string): string {
  return topic
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The latest figure per subject and metric. */
function latest(figures: ReportFigure[]): Map<string, ReportFigure> {
  const out = new Map<string, ReportFigure>();
  for (const figure of figures) {
    const key = `${figure.subject}|${figure.metric}`;
    const held = out.get(key);
    if (!held || held.published_at <= figure.published_at) out.set(key, figure);
  }
  return out;
}

export function snapshotOf(drafts: ReportDrafts): RunSnapshot {
  return { signal_ids: drafts.onTopic.map((signal) => signal.id), figures: [...latest(drafts.figures).values()], disagreements: drafts.disagreements };
}

export function changesSince(previous: { id: string; createdAt: string; snapshot: RunSnapshot }, drafts: ReportDrafts): ReportChanges {
  const known = new Set(previous.snapshot.signal_ids);
  const fresh = drafts.onTopic
    .filter((signal) => !known.has(signal.id))
    .sort((a, b) => b.published_at.localeCompare(a.published_at))
    .slice(0, MAX_NEW_SIGNALS);
  const before = latest(previous.snapshot.figures);
  const changed: ReportChanges['changed_figures'] = [];
  for (const [key, after] of latest(drafts.figures)) {
    const was = before.get(key);
    if (!was || was.value === after.value || was.citation === after.citation) continue;
    changed.push({ subject: after.subject, metric: after.metric, before: was.value, after: after.value, citations: [was.citation, after.citation] });
  }
  const previousKeys = new Set(previous.snapshot.disagreements.map((entry) => entry.key));
  const currentKeys = new Set(drafts.disagreements.map((entry) => entry.key));
  return {
    previous_id: previous.id,
    since: previous.createdAt,
    new_signals: fresh.map((signal) => ({ id: signal.id, title: signal.title, published_at: signal.published_at })),
    changed_figures: changed,
    resolved_disagreements: previous.snapshot.disagreements.filter((entry) => !currentKeys.has(entry.key)).map(({ note, citations }) => ({ note, citations })),
    new_disagreements: drafts.disagreements.filter((entry) => !previousKeys.has(entry.key)).map(({ note, citations }) => ({ note, citations })),
  };
}

/** The section's markdown (without its heading), and the signals it cites. */
export function changesSection(changes: ReportChanges, signalOf: (id: string) => CorpusSignal | undefined, label: (metric: string) => string, timeZone?: string): { markdown: string; evidence: CorpusSignal[] } {
  const evidence = new Map<string, CorpusSignal>();
  const use = (id: string): string => {
    const signal = signalOf(id);
    if (signal) evidence.set(id, signal);
    return `[${id}]`;
  };
  const lines: string[] = [];
  for (const entry of changes.new_signals) {
    const signal = signalOf(entry.id);
    lines.push(`- New, ${formatDay(entry.published_at, timeZone)}: ${signal?.summary ?? entry.title} ${use(entry.id)}`);
  }
  for (const figure of changes.changed_figures) {
    const [was, now] = figure.citations;
    lines.push(`- ${figure.subject}, ${label(figure.metric).toLowerCase()}: ${formatNumber(figure.after, { maxFractionDigits: 2 })} ${use(now!)}, was ${formatNumber(figure.before, { maxFractionDigits: 2 })} ${use(was!)}.`);
  }
  for (const entry of changes.new_disagreements) lines.push(`- Newly disputed: ${entry.note.replace(/\[(sig_[0-9a-f]{16})\]/g, (_, id: string) => use(id))}`);
  for (const entry of changes.resolved_disagreements) {
    // The sources no longer disagree among what this run read: said with the earlier figures' citations.
    lines.push(`- No longer disputed among the signals read now: ${entry.note.replace(/\[(sig_[0-9a-f]{16})\]/g, (_, id: string) => use(id))}`);
  }
  if (lines.length === 0) lines.push('- None of the signals about this topic are new since then, and no figure changed.');
  return { markdown: lines.join('\n'), evidence: [...evidence.values()] };
}
