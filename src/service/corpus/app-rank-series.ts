/**
 * Each rank tracker's chart of an app is one series: between two of its observations an app
 * moves a few places, more the longer the gap, never from #1 to #51 in two days. The one-off
 * rank reports are drafted one by one (filler.ts), so their ranks are redrawn here as a walk per
 * app and tracker, in publication order, and their texts rewritten to match. Different trackers
 * still rank an app differently (they weight downloads and users differently).
 */
import type { CorpusSignal } from '../world/signal-types';
import { possessive } from './filler';
import { SeededRandom, slugify } from './random';

const DAY_MS = 86_400_000;
export const MIN_RANK = 1;
export const MAX_RANK = 60;

/** The most places an app's rank can move on one tracker between observations `gapMs` apart. */
export function maxRankStep(gapMs: number): number {
  return Math.min(20, 2 + Math.floor((1.5 * gapMs) / DAY_MS));
}

const clampRank = (rank: number): number => Math.max(MIN_RANK, Math.min(MAX_RANK, rank));

/** A rank report's texts for its rank and its move since the tracker's previous chart. */
export function rankTexts(app: string, rank: number, change: number, city: string): { title: string; summary: string } {
  const verb = change > 0 ? 'climbs' : change < 0 ? 'slips' : 'holds';
  const move = change === 0 ? 'unchanged' : `${change > 0 ? 'up' : 'down'} ${Math.abs(change)} places`;
  return {
    title: `${app} app ${verb} ${change === 0 ? 'at' : 'to'} #${rank} in shopping`,
    summary: `${possessive(app)} app ranked #${rank} among shopping apps in India (${move}), with downloads strongest in ${city}.`,
  };
}

/** Redraws the one-off rank reports (index `fillerStart` on) as continuous series per app and tracker. */
export function continueRankSeries(signals: CorpusSignal[], seed: number, fillerStart: number): void {
  const random = new SeededRandom(seed ^ 0x5e71e5);
  const series = new Map<string, CorpusSignal[]>();
  for (let index = fillerStart; index < signals.length; index += 1) {
    const signal = signals[index]!;
    if (signal.type !== 'app_rank' || signal.metrics.rank === undefined || signal.entities.retailers.length !== 1) continue;
    const key = `${signal.entities.retailers[0]}|${signal.source_id}`;
    const chart = series.get(key);
    if (chart) chart.push(signal);
    else series.set(key, [signal]);
  }
  for (const key of [...series.keys()].sort()) {
    const chart = series.get(key)!.sort((a, b) => (a.published_at < b.published_at ? -1 : a.published_at > b.published_at ? 1 : a.id < b.id ? -1 : 1));
    let previous: CorpusSignal | null = null;
    for (const signal of chart) {
      if (previous) {
        const step = maxRankStep(Date.parse(signal.published_at) - Date.parse(previous.published_at));
        const rank = clampRank(previous.metrics.rank! + random.int(-step, step));
        // A lower number is a better place: moving from #9 to #4 is up 5.
        const change = previous.metrics.rank! - rank;
        rewrite(signal, rank, change);
      }
      previous = signal;
    }
  }
}

function rewrite(signal: CorpusSignal, rank: number, change: number): void {
  const app = signal.entities.retailers[0]!;
  const city = /downloads strongest in ([^.]+)\./.exec(signal.summary)?.[1] ?? signal.entities.cities[0] ?? 'India';
  const { title, summary } = rankTexts(app, rank, change, city);
  const detail = signal.body.startsWith(signal.summary) ? signal.body.slice(signal.summary.length) : ` ${signal.body}`;
  const slug = `${slugify(title)}-${signal.id.slice(4, 10)}`;
  signal.url = signal.url?.replace(`/${signal.slug}`, `/${slug}`) ?? null;
  signal.slug = slug;
  signal.title = title;
  signal.summary = summary;
  signal.body = `${summary}${detail}`;
  signal.metrics = { ...signal.metrics, rank, rank_change: change };
}
