/**
 * An app's latest place in the shopping charts (split from direct-answers.ts). The trackers'
 * reports are grouped by the analyst's day (issue 43 item 7): two trackers charting the app on
 * the day the analyst sees are one day's figures, whatever their UTC times, so where they differ
 * the composer's conflict check (conflicts.ts, grouping by the same day) flags it.
 */
import type { CorpusSignal } from '../world/signal-types';
import { isoDayOf } from './signal-days';
import type { QuestionFrame } from './question';
import { cite, day, newAnswer, possessiveName, use, zoneOf, type AnswerContext, type DirectAnswer } from './direct-answer-parts';

/** An app's rank reports before `until`, by the analyst's day (YYYY-MM-DD in `zone`), oldest day first. */
function reportsByDay(context: AnswerContext, name: string, until: number): Array<[string, CorpusSignal[]]> {
  const zone = zoneOf(context);
  const byDay = new Map<string, CorpusSignal[]>();
  // The facts keep each app's reports by UTC day; the analyst's day regroups them.
  for (const group of context.facts.appRanks.get(name)?.values() ?? []) {
    for (const signal of group) {
      if (Date.parse(signal.published_at) >= until) continue;
      const key = isoDayOf(signal.published_at, zone);
      byDay.set(key, [...(byDay.get(key) ?? []), signal]);
    }
  }
  return [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/**
 * The day's first report from each rank tracker (lead: the earliest). Every tracker's figure
 * for that day is cited, so where they differ the composer flags it under "Sources disagree".
 */
export function appRankAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer {
  const answer = newAnswer(`${frame.retailers.join(', ')}: app rank`);
  const until = frame.period ? Math.min(frame.period.endMs, context.now + 1) : context.now + 1;
  for (const name of frame.retailers.slice(0, 4)) {
    const latest = reportsByDay(context, name, until).at(-1);
    if (!latest) {
      answer.gaps.push(`No rank tracker reports ${possessiveName(name)} app${frame.period ? ` in ${frame.period.label}` : ''}.`);
      continue;
    }
    const firstPerSource = new Map<string, CorpusSignal>();
    for (const signal of [...latest[1]].sort((a, b) => a.published_at.localeCompare(b.published_at) || a.id.localeCompare(b.id))) {
      if (!firstPerSource.has(signal.source_id)) firstPerSource.set(signal.source_id, signal);
    }
    const [lead, ...others] = [...firstPerSource.values()];
    const source = (signal: CorpusSignal): string => context.sourcesById.get(signal.source_id)?.name ?? signal.source_id;
    use(answer, lead!, ...others);
    const differing = others.filter((signal) => signal.metrics.rank !== lead!.metrics.rank);
    answer.lines.push(
      `**${possessiveName(name)} app ranked #${lead!.metrics.rank}** among shopping apps in India on ${day(context, lead!.published_at)}, per ${source(lead!)} ${cite(lead!)}` +
        (differing.length > 0 ? `; ${differing.length === 1 ? 'another tracker ranks' : 'other trackers rank'} it differently that day (see "Sources disagree").` : '.'),
    );
    const agreeing = others.filter((signal) => signal.metrics.rank === lead!.metrics.rank);
    if (agreeing.length > 0) answer.lines.push('', `${agreeing.map(source).join(' and ')} ${agreeing.length === 1 ? 'agrees' : 'agree'} ${agreeing.map(cite).join(' ')}.`);
  }
  if (frame.cities.length > 0) answer.gaps.push('App ranks are national charts; the trackers do not rank apps per city.');
  return answer;
}
