/**
 * Planted app-rank disagreements (issue 30): for a few apps, a second rank tracker reports the
 * same app on the same day at a different place in the shopping chart. Trackers weight
 * downloads and active users differently, so real charts disagree like this; an answer must
 * flag it, never list both ranks side by side without a word. The second report replaces a
 * one-off filler signal, so the corpus keeps its size, and is recorded in `truth.conflicts`.
 */
import type { CorpusSignal, CorpusSource } from '../world/signal-types';
import type { Conflict } from './ground-truth';
import { SeededRandom, slugify, stableHex16 } from './random';
import { possessive } from './filler';
import { APP_RANK_TRACKERS, RETAILERS } from './vocabulary';
import { MAX_RANK, maxRankStep, MIN_RANK } from './app-rank-series';

/** The apps whose latest chart position two trackers report differently. */
export const APP_RANK_CONFLICT_APPS = ['Zepto', 'Blinkit', 'Swiggy Instamart', 'Nykaa', 'Myntra', 'DMart'];

const DAY_MS = 86_400_000;
/** India's clock runs 5 h 30 min ahead of UTC all year. */
const IST_OFFSET_MS = 19_800_000;

/**
 * The span around `at` that is one day both in UTC and in India (UTC+5:30, no daylight saving):
 * 00:00–18:30 UTC, or 18:30–24:00 UTC.
 */
function sharedDay(at: number): [number, number] {
  const utcStart = Math.floor(at / DAY_MS) * DAY_MS;
  const indiaMidnight = utcStart + DAY_MS - IST_OFFSET_MS;
  return at < indiaMidnight ? [utcStart, indiaMidnight] : [indiaMidnight, utcStart + DAY_MS];
}

/**
 * Pairs each chosen app's latest rank report with a second tracker's different rank for the
 * same day. `fillerStart`: index of the first one-off signal (fact signals before it are kept).
 */
export function plantAppRankConflicts(signals: CorpusSignal[], sources: CorpusSource[], seed: number, fillerStart: number): Conflict[] {
  const random = new SeededRandom(seed ^ 0x0a99_4a4c);
  const trackers = sources.filter((source) => source.kind === 'app_store_rank' && APP_RANK_TRACKERS.includes(source.name));
  const conflicts: Conflict[] = [];
  const paired = new Set<string>();
  let replace = signals.length - 1;
  for (const app of APP_RANK_CONFLICT_APPS) {
    let latest: CorpusSignal | undefined;
    for (let index = fillerStart; index < signals.length; index += 1) {
      const signal = signals[index]!;
      if (signal.type === 'app_rank' && signal.entities.retailers[0] === app && signal.metrics.rank !== undefined && (!latest || signal.published_at > latest.published_at)) latest = signal;
    }
    if (!latest) continue;
    const dayKey = latest.published_at.slice(0, 10);
    // One day for everyone who reads it: the same UTC day and the same day in India (the
    // analyst's default zone, where answers group figures by day; issue 43 item 7).
    const at = Date.parse(latest.published_at);
    const [dayStart, dayEnd] = sharedDay(at);
    const sameDay = signals.filter((signal) => signal.type === 'app_rank' && signal.entities.retailers[0] === app && Date.parse(signal.published_at) >= dayStart && Date.parse(signal.published_at) < dayEnd);
    // A tracker that has not charted the app that day, at a place no tracker gave it.
    const other = trackers.filter((source) => !sameDay.some((signal) => signal.source_id === source.id));
    if (other.length === 0) continue;
    // The slot to reuse: the last one-off signal that is not a rank report (never one paired here).
    while (replace >= fillerStart && (signals[replace]!.type === 'app_rank' || paired.has(signals[replace]!.id))) replace -= 1;
    if (replace < fillerStart) break;
    const tracker = random.pick(other);
    const original = latest.metrics.rank!;
    const taken = new Set(sameDay.map((signal) => signal.metrics.rank));
    // In that shared day: a few hours after the first report, or before it when the day is ending.
    const later = at + random.int(2, 6) * 3_600_000;
    const published = new Date(later < dayEnd ? later : Math.max(dayStart, at - random.int(2, 6) * 3_600_000));
    // The second tracker's own chart stays continuous: its rank is a step from its previous
    // observation of the app, and at least 3 places from the first tracker's (a real disagreement).
    const before = published.toISOString();
    let previous: CorpusSignal | undefined;
    for (const signal of signals) {
      if (signal.type !== 'app_rank' || signal.source_id !== tracker.id || signal.entities.retailers[0] !== app || signal.metrics.rank === undefined || signal.published_at >= before) continue;
      if (!previous || signal.published_at > previous.published_at) previous = signal;
    }
    const fits = (value: number): boolean => value >= MIN_RANK && value <= MAX_RANK && !taken.has(value) && Math.abs(value - original) >= 3;
    let candidates: number[] = [];
    if (previous) {
      const reach = maxRankStep(published.getTime() - Date.parse(previous.published_at));
      for (let value = previous.metrics.rank! - reach; value <= previous.metrics.rank! + reach; value += 1) if (fits(value)) candidates.push(value);
    }
    if (candidates.length === 0) {
      let step = random.int(3, 8) * (random.chance(0.5) ? 1 : -1);
      while (!fits(original + step) && !fits(original - step)) step += Math.sign(step);
      candidates = [fits(original + step) ? original + step : original - step];
    }
    const rank = random.pick(candidates);
    const retailer = RETAILERS.find((entry) => entry.name === app)!;
    const title = `${app} app at #${rank} in shopping on ${tracker.name}`;
    const id = `sig_${stableHex16(`${seed}:app-rank-conflict:${app}:${title}`)}`;
    const slug = `${slugify(title)}-${id.slice(4, 10)}`;
    const summary = `${possessive(app)} app ranked #${rank} among shopping apps in India on ${tracker.name}'s daily chart.`;
    const planted: CorpusSignal = {
      id,
      slug,
      title,
      summary,
      body: `${summary} ${tracker.name} weights active users as well as downloads, so its chart can differ from other trackers'.`,
      source_id: tracker.id,
      url: `${tracker.url}${published.toISOString().slice(0, 10).replace(/-/g, '/')}/${slug}`,
      published_at: published.toISOString(),
      type: 'app_rank',
      entities: { retailers: [app], segments: [retailer.segment], cities: [...latest.entities.cities], states: [...latest.entities.states] },
      metrics: { rank },
    };
    paired.add(latest.id);
    paired.add(id);
    signals[replace] = planted;
    replace -= 1;
    // The day's earliest report leads (trackers are one kind of source: first reported wins).
    const day = [...sameDay, planted].sort((a, b) => a.published_at.localeCompare(b.published_at) || a.id.localeCompare(b.id));
    const first = day[0]!;
    const second = first === planted ? day.find((signal) => signal.metrics.rank !== planted.metrics.rank)! : planted;
    conflicts.push({
      kind: 'app_rank',
      entity: app,
      event_id: `app_rank:${app}:${dayKey}`,
      metric: 'rank',
      true_value: first.metrics.rank!,
      reported_value: second.metrics.rank!,
      true_signal_id: first.id,
      conflicting_signal_id: second.id,
    });
  }
  return conflicts;
}
