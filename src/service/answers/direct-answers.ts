/**
 * The direct answer, computed from the signals: a count with its breakdown, the latest
 * figure with its change, players ranked by a stated measure. One measure per statement;
 * each figure is followed by the citation of a signal that states it. Figures computed here
 * (sums, counts of cities) come after the citations they are computed from.
 */
import type { CorpusSignal } from '../world/signal-types';
import { fiscalQuarter } from '../world/periods';
import { calendarDayIn, startOfDayIn } from '../world/time-zone';
import type { Segment } from '../world/gazetteer';
import { framePlaces, inFramePlace, type Period, type QuestionFrame } from './question';
import { firstReported, readFigure, type FactGroup } from './signal-facts';
import { capitalise, cite, day, newAnswer, noteDisagreement, num, pct, pts, retailerOf, unitOf, use, within, zoneOf, type AnswerContext, type DirectAnswer } from './direct-answer-parts';

export type { AnswerContext, DirectAnswer } from './direct-answer-parts';

/** Whether a fiscal quarter ("Q3 FY26") overlaps the period asked about ("this year"); any quarter when none was asked. */
function quarterOverlaps(label: string, period: QuestionFrame['period'], zone: string): boolean {
  const match = /^Q([1-4]) FY(\d{2})$/.exec(label);
  if (!period || period.kind !== 'range' || !match) return true;
  // In the zone the period was read in: both start at that zone's midnight.
  const quarter = fiscalQuarter(Number(match[2]), Number(match[1]), zone);
  return quarter.startMs < period.endMs && quarter.endMs > period.startMs;
}

/** Store events of a retailer, oldest first. */
function storeEvents(context: AnswerContext, name: string): FactGroup[] {
  return [...(context.facts.storeEvents.get(name)?.values() ?? [])].sort((a, b) => firstReported(a).localeCompare(firstReported(b)));
}

export function storeCountAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer {
  const answer = newAnswer(`${frame.retailers.join(' vs ')}: store network`);
  for (const name of frame.retailers.slice(0, 4)) {
    const unit = unitOf(name);
    if (retailerOf(name)?.online) {
      answer.gaps.push(`${name} sells online only; the signals carry no store count for it.`);
      continue;
    }
    let events = storeEvents(context, name);
    if (frame.period) events = events.filter((group) => Date.parse(firstReported(group)) < frame.period!.endMs);
    const latest = events.at(-1);
    const figure = latest && readFigure(latest, 'store_count_national', context.sourcesById);
    if (!latest || !figure) {
      answer.gaps.push(`No signal reports ${name}'s store count${frame.period ? ` by ${frame.period.label}` : ''}.`);
      continue;
    }
    use(answer, figure.signal);
    const yearBefore = Date.parse(firstReported(latest)) - 365 * 86_400_000;
    const earlier = [...events].reverse().find((group) => Date.parse(firstReported(group)) <= yearBefore) ?? (events.length > 1 ? events[0] : undefined);
    const earlierFigure = earlier && earlier !== latest ? readFigure(earlier, 'store_count_national', context.sourcesById) : null;
    let line = `**${name} operates ${num(figure.value)} ${unit}** nationwide, per its latest count (${day(context, figure.signal.published_at)}) ${cite(figure.signal)}`;
    if (earlierFigure) {
      use(answer, earlierFigure.signal);
      const change = figure.value - earlierFigure.value;
      line += `, against ${num(earlierFigure.value)} on ${day(context, earlierFigure.signal.published_at)} ${cite(earlierFigure.signal)}: ${change >= 0 ? 'a net addition of' : 'a net reduction of'} ${num(Math.abs(change))} ${unit}.`;
    } else line += '.';
    answer.lines.push(line);
    noteDisagreement(answer, `${name}'s ${unit === 'dark stores' ? 'dark-store' : 'store'} count`, figure, (value) => `${num(value)} ${unit}`, context);
    const recent = events.slice(-3).reverse();
    if (frame.retailers.length === 1 && recent.length > 0) {
      answer.lines.push('', 'Latest changes to the network:');
      for (const group of recent) {
        const signal = bestOf(group, context, group[0]!.metrics.stores_opened !== undefined ? 'stores_opened' : 'stores_closed');
        const opened = signal.metrics.stores_opened;
        use(answer, signal);
        answer.lines.push(`- ${day(context, signal.published_at)}: ${opened !== undefined ? `opened ${num(opened)}` : `closed ${num(signal.metrics.stores_closed ?? 0)}`} in ${signal.entities.cities[0]} ${cite(signal)}`);
      }
    }
    if (frame.cities.length > 0) answer.gaps.push(`Store counts are reported for the whole network, not per city; openings by city are listed when you ask how many ${name} opened and where.`);
  }
  return answer;
}

/** The most authoritative signal of a group that states `metric`. */
function bestOf(group: FactGroup, context: AnswerContext, metric: string): CorpusSignal {
  return readFigure(group, metric, context.sourcesById)?.signal ?? group[0]!;
}

export function openingsAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer {
  const { year } = calendarDayIn(context.now, zoneOf(context));
  const period: Period = frame.period ?? { kind: 'range', label: `${year} so far (1 Jan – ${day(context, context.now)})`, startMs: startOfDayIn(year, 0, 1, zoneOf(context)), endMs: context.now + 1 };
  const answer = newAnswer(`${frame.retailers.join(', ')}: store openings, ${period.label}`);
  for (const name of frame.retailers.slice(0, 4)) {
    const unit = unitOf(name);
    if (retailerOf(name)?.online) {
      answer.gaps.push(`${name} sells online only; the signals report no store openings for it.`);
      continue;
    }
    const events = storeEvents(context, name).filter((group) => within(firstReported(group), period));
    const inPlace = (signal: CorpusSignal): boolean =>
      inFramePlace(frame, signal.entities.cities[0]) && (frame.states.length === 0 || frame.states.includes(signal.entities.states[0] ?? ''));
    const openings = events.map((group) => bestOf(group, context, 'stores_opened')).filter((signal) => signal.metrics.stores_opened !== undefined && inPlace(signal));
    const closures = events.map((group) => bestOf(group, context, 'stores_closed')).filter((signal) => signal.metrics.stores_closed !== undefined && inPlace(signal));
    const where = framePlaces(frame).length > 0 ? ` in ${framePlaces(frame).join(', ')}` : '';
    if (openings.length === 0) {
      answer.lines.push(`**${name} opened no ${unit}${where} in ${period.label}**, according to the signals.`);
      continue;
    }
    const total = openings.reduce((sum, signal) => sum + signal.metrics.stores_opened!, 0);
    const byCity = new Map<string, CorpusSignal[]>();
    for (const signal of openings) byCity.set(signal.entities.cities[0]!, [...(byCity.get(signal.entities.cities[0]!) ?? []), signal]);
    answer.lines.push(
      `**${name} opened ${num(total)} ${unit}${where} in ${period.label}**, in ${openings.length} opening${openings.length === 1 ? '' : 's'} across ${byCity.size} cit${byCity.size === 1 ? 'y' : 'ies'} (the sum of the openings below):`,
    );
    const cities = [...byCity.entries()].sort((a, b) => sum(b[1]) - sum(a[1]) || a[0].localeCompare(b[0]));
    for (const [city, signals] of cities) {
      use(answer, ...signals);
      const parts = signals.map((signal) => `${num(signal.metrics.stores_opened!)} on ${day(context, signal.published_at)} ${cite(signal)}`);
      answer.lines.push(`- **${city}** — ${parts.join('; ')}${signals.length > 1 ? ` (${num(sum(signals))} in all)` : ''}`);
    }
    for (const signal of closures) {
      use(answer, signal);
      answer.lines.push(`- Closed: ${num(signal.metrics.stores_closed!)} ${unit} in ${signal.entities.cities[0]} on ${day(context, signal.published_at)} ${cite(signal)}`);
    }
    const latest = storeEvents(context, name).filter((group) => Date.parse(firstReported(group)) < period.endMs).at(-1);
    const figure = latest && readFigure(latest, 'store_count_national', context.sourcesById);
    if (figure) {
      use(answer, figure.signal);
      answer.lines.push(`- Network after the latest change: ${num(figure.value)} ${unit} ${cite(figure.signal)}`);
      noteDisagreement(answer, `${name}'s ${unit === 'dark stores' ? 'dark-store' : 'store'} count`, figure, (value) => `${num(value)} ${unit}`, context);
    }
  }
  return answer;
}

const sum = (signals: CorpusSignal[]): number => signals.reduce((total, signal) => total + (signal.metrics.stores_opened ?? 0), 0);

export function revenueAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer {
  const answer = newAnswer(`${frame.retailers.join(' vs ')}: quarterly revenue`);
  for (const name of frame.retailers.slice(0, 4)) {
    const byQuarter = context.facts.results.get(name);
    const quarters = [...(byQuarter?.entries() ?? [])].sort((a, b) => firstReported(a[1]).localeCompare(firstReported(b[1])));
    if (quarters.length === 0) {
      answer.gaps.push(`No signal reports ${name}'s results.`);
      continue;
    }
    let chosen = quarters.at(-1)!;
    const wanted = frame.period?.quarter;
    if (wanted) {
      const found = quarters.find(([label]) => label === wanted);
      if (found) chosen = found;
      else {
        answer.periodMatched = false;
        const [q, fy] = [Number(wanted[1]), Number(wanted.slice(-2))];
        const ends = fiscalQuarter(fy, q, zoneOf(context)).endMs;
        answer.lines.push(
          ends > context.now
            ? `**${name} has no ${wanted} results yet: the quarter runs to ${day(context, ends - 1)}**, and results come out weeks after a quarter ends. The latest reported quarter is ${chosen[0]}:`
            : `**No signal reports ${name}'s ${wanted} results.** The latest reported quarter is ${chosen[0]}:`,
        );
      }
    }
    const shown = frame.intents.includes('trend') ? quarters.slice(-4) : [chosen];
    for (const [label, group] of shown) {
      const figure = readFigure(group, 'revenue_cr', context.sourcesById);
      if (!figure) continue;
      use(answer, figure.signal);
      const growth = figure.signal.metrics.revenue_growth_yoy_pct;
      const margin = figure.signal.metrics.ebitda_margin_pct;
      answer.lines.push(
        `${shown.length > 1 ? '- ' : ''}**${name}'s revenue was ₹${num(figure.value)} crore in ${label}**` +
          `${growth !== undefined ? `, ${growth >= 0 ? 'up' : 'down'} ${Math.abs(growth)}% year on year` : ''}${margin !== undefined ? `, with an EBITDA margin of ${margin}%` : ''} (reported ${day(context, figure.signal.published_at)}) ${cite(figure.signal)}`,
      );
      noteDisagreement(answer, `${name}'s ${label} revenue`, figure, (value) => `₹${num(value)} crore`, context);
    }
  }
  return answer;
}

function segmentFor(frame: QuestionFrame): Segment {
  return frame.segments[0] ?? retailerOf(frame.retailers[0] ?? '')?.segment ?? 'quick commerce';
}

/** A city market's group for the quarter asked (or the latest reported). */
function marketGroup(context: AnswerContext, segment: Segment, city: string, quarter: string | undefined): { label: string; group: FactGroup; matched: boolean; previous?: [string, FactGroup] } | null {
  const byQuarter = context.facts.markets.get(`${segment}|${city}`);
  const quarters = [...(byQuarter?.entries() ?? [])].sort((a, b) => firstReported(a[1]).localeCompare(firstReported(b[1])));
  if (quarters.length === 0) return null;
  const at = quarter ? quarters.findIndex(([label]) => label === quarter) : -1;
  const index = at >= 0 ? at : quarters.length - 1;
  return { label: quarters[index]![0], group: quarters[index]![1], matched: !quarter || at >= 0, previous: quarters[index - 1] };
}

export function govGrowthAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer {
  const segment = segmentFor(frame);
  const answer = newAnswer(`${capitalise(segment)}: order value growth`);
  const cities = frame.cities.length > 0 ? frame.cities : [];
  if (cities.length === 0) {
    const rows = [...context.facts.markets.keys()]
      .filter((key) => key.startsWith(`${segment}|`) && inFramePlace(frame, key.split('|')[1]))
      .map((key) => marketGroup(context, segment, key.split('|')[1]!, frame.period?.quarter))
      .filter((row): row is NonNullable<typeof row> => row !== null)
      .map((row) => ({ row, figure: readFigure(row.group, 'gov_growth_yoy_pct', context.sourcesById)! }))
      .filter((entry) => entry.figure)
      .sort((a, b) => b.figure.value - a.figure.value);
    if (rows.length === 0) return answer;
    answer.lines.push(`${capitalise(segment)} gross order value growth, year on year, in the latest reported quarter (${rows[0]!.row.label}), fastest ${frame.cityTier ? framePlaces(frame).join(', ') : 'cities'} first:`);
    for (const { figure } of rows.slice(0, 5)) {
      use(answer, figure.signal);
      answer.lines.push(`- **${figure.signal.entities.cities[0]}**: ${pct(figure.value)} ${cite(figure.signal)}`);
    }
    const slowest = rows.at(-1)!;
    use(answer, slowest.figure.signal);
    answer.lines.push(`- Slowest: ${slowest.figure.signal.entities.cities[0]}, ${pct(slowest.figure.value)} ${cite(slowest.figure.signal)}`);
    return answer;
  }
  for (const city of cities.slice(0, 4)) {
    const market = marketGroup(context, segment, city, frame.period?.quarter);
    if (!market) {
      answer.gaps.push(`No signal reports ${segment} order value in ${city}.`);
      continue;
    }
    if (!market.matched) {
      answer.periodMatched = false;
      answer.lines.push(`**No ${segment} figures for ${city} in ${frame.period?.label} yet**; the latest reported quarter is ${market.label}:`);
    }
    const figure = readFigure(market.group, 'gov_growth_yoy_pct', context.sourcesById);
    if (!figure) continue;
    use(answer, figure.signal);
    answer.lines.push(`**${capitalise(segment)} gross order value in ${city} grew ${pct(figure.value)} year on year in ${market.label}** ${cite(figure.signal)}.`);
    noteDisagreement(answer, `${capitalise(segment)} order value growth in ${city}, ${market.label}`, figure, pct, context);
    // Who carries that growth: the same report's shares, largest first.
    const panel = market.group.find((signal) => signal.entities.retailers.length > 0);
    const shares = panel ? [...panel.summary.matchAll(/([A-Z][A-Za-z&' -]+?) (\d+\.\d)% \(/g)].map((match) => `${match[1]!.trim()} ${match[2]}%`) : [];
    if (panel && shares.length > 0) {
      use(answer, panel);
      answer.lines.push('', `Largest players by share of ${segment} gross order value in ${city}, ${market.label}: ${shares.slice(0, 4).join(', ')} ${cite(panel)}.`);
    }
    // The quarters before, one measure throughout (a table an analyst can scan).
    const series = [...(context.facts.markets.get(`${segment}|${city}`)?.entries() ?? [])]
      .sort((a, b) => firstReported(a[1]).localeCompare(firstReported(b[1])))
      .filter(([, group]) => firstReported(group) <= firstReported(market.group))
      .filter(([label]) => quarterOverlaps(label, frame.period, zoneOf(context)))
      .slice(-4)
      .reverse();
    if (series.length > 1) {
      answer.lines.push('', `| Quarter | ${capitalise(segment)} order value growth in ${city}, YoY | Source |`, '|---|---:|---|');
      for (const [label, group] of series) {
        const row = readFigure(group, 'gov_growth_yoy_pct', context.sourcesById);
        if (!row) continue;
        use(answer, row.signal);
        answer.lines.push(`| ${label} | ${pct(row.value)} | ${cite(row.signal)} |`);
      }
      answer.lines.push('');
    }
  }
  return answer;
}

export function shareAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer {
  const segment = segmentFor(frame);
  const answer = newAnswer(`${capitalise(segment)}: who is gaining share`);
  const measure = 'change in share of gross order value on the previous quarter (percentage points)';
  const readShares = (signal: CorpusSignal): Array<{ retailer: string; share: number; change: number }> =>
    [...signal.summary.matchAll(/([A-Z][A-Za-z&' -]+?) (\d+\.\d)% \((unchanged|[+\-−]\d+\.\d pts)\)/g)].map((match) => ({
      retailer: match[1]!.replace(/^.*: /, '').trim(),
      share: Number(match[2]),
      change: match[3] === 'unchanged' ? 0 : Number(match[3]!.replace(' pts', '').replace('−', '-')),
    }));
  if (frame.cities.length > 0) {
    for (const city of frame.cities.slice(0, 3)) {
      const market = marketGroup(context, segment, city, frame.period?.quarter);
      const signal = market && market.group.find((candidate) => candidate.entities.retailers.length > 0);
      if (!market || !signal) {
        answer.gaps.push(`No signal reports ${segment} shares in ${city}.`);
        continue;
      }
      if (!market.matched) answer.periodMatched = false;
      const shares = readShares(signal).sort((a, b) => b.change - a.change);
      const gaining = shares.filter((share) => share.change > 0);
      const losing = shares.filter((share) => share.change < 0).reverse();
      use(answer, signal);
      const describe = (share: (typeof shares)[number]): string => `${share.retailer} (${pts(share.change)}, to ${pct(share.share)})`;
      answer.lines.push(
        `In ${city} ${segment}, ${market.label}, ranked by ${measure}: ` +
          (gaining.length > 0 ? `**gaining: ${gaining.map(describe).join(', ')}**` : '**no player gained share**') +
          (losing.length > 0 ? `; losing: ${losing.map(describe).join(', ')}` : '') +
          ` ${cite(signal)}.`,
      );
      const named = frame.retailers.filter((name) => !shares.some((share) => share.retailer === name));
      for (const name of named) answer.gaps.push(`${name} is not among the ${segment} players tracked in ${city}.`);
    }
    return answer;
  }
  // No city: how many of the tracked cities each player gained share in.
  const latest = [...context.facts.markets.keys()]
    .filter((key) => key.startsWith(`${segment}|`) && inFramePlace(frame, key.split('|')[1]))
    .map((key) => marketGroup(context, segment, key.split('|')[1]!, frame.period?.quarter))
    .filter((row): row is NonNullable<typeof row> => row !== null)
    .map((row) => row.group.find((candidate) => candidate.entities.retailers.length > 0))
    .filter((signal): signal is CorpusSignal => signal !== undefined);
  if (latest.length === 0) return answer;
  const tally = new Map<string, { gained: number; best?: { change: number; signal: CorpusSignal; share: number } }>();
  for (const signal of latest) {
    for (const share of readShares(signal)) {
      const entry = tally.get(share.retailer) ?? { gained: 0 };
      if (share.change > 0) entry.gained += 1;
      if (!entry.best || share.change > entry.best.change) entry.best = { change: share.change, signal, share: share.share };
      tally.set(share.retailer, entry);
    }
  }
  const ranked = [...tally.entries()].sort((a, b) => b[1].gained - a[1].gained || a[0].localeCompare(b[0]));
  // The count of cities is computed over every city's signal, more than an answer can cite, so it
  // orders the list rather than being stated: every figure written is one a cited signal states.
  answer.lines.push(`${capitalise(segment)}, latest reported quarter, across the cities tracked, ranked by the number of cities where the player's share of gross order value rose on the previous quarter (most first):`);
  for (const [retailer, entry] of ranked.slice(0, 6)) {
    if (entry.best) use(answer, entry.best.signal);
    answer.lines.push(
      `- **${retailer}**${entry.best ? ` — biggest gain in ${entry.best.signal.entities.cities[0]}, ${entry.best.signal.period} (${pts(entry.best.change)}, to ${pct(entry.best.share)}) ${cite(entry.best.signal)}` : `: share rose in ${entry.gained > 0 ? 'some' : 'none'} of the cities tracked`}`,
    );
  }
  answer.gaps.push('Name a city to see every player ranked there.');
  return answer;
}

export function festiveAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer {
  const year = frame.period?.festiveYear ?? calendarDayIn(context.now, zoneOf(context)).year;
  const answer = newAnswer(`Diwali ${year}: festive-season demand by category`);
  let shownYear = year;
  let group = context.facts.festive.get(year);
  if (!group) {
    answer.periodMatched = false;
    const earlier = [...context.facts.festive.keys()].filter((y) => y < year).sort().at(-1);
    answer.lines.push(`**No festive-season figures for Diwali ${year} yet**${earlier ? `; the latest are for Diwali ${earlier}, shown instead:` : '.'}`);
    if (!earlier) return answer;
    shownYear = earlier;
    group = context.facts.festive.get(earlier)!;
  }
  const signal = bestOf(group, context, 'festive_growth_grocery_pct');
  use(answer, signal);
  const rows = Object.entries(signal.metrics)
    .filter(([key]) => key.startsWith('festive_growth_'))
    .map(([key, value]) => ({ segment: key.replace('festive_growth_', '').replace('_pct', '').replace('_', ' '), value }))
    .sort((a, b) => b.value - a.value);
  const wanted = frame.segments.length > 0 ? rows.filter((row) => frame.segments.includes(row.segment as Segment)) : rows;
  const list = (wanted.length > 0 ? wanted : rows).map((row) => `${row.segment} ${row.value > 0 ? '+' : ''}${row.value.toFixed(1)}%`).join(', ');
  answer.lines.push(`**Festive-season sales around Diwali ${shownYear} grew year on year**, by category (sales growth YoY): ${list} ${cite(signal)}.`);
  const top = rows[0]!;
  answer.lines.push(`Strongest: ${top.segment}; weakest: ${rows.at(-1)!.segment} (ranked by the figures above).`);
  // The festive figures are national and by category: a retailer or a place the question names
  // is not covered by them, and the answer says so rather than answering as if it were.
  const narrower = [...frame.retailers, ...framePlaces(frame)];
  if (narrower.length > 0) answer.gaps.push(`No signal gives festive-season figures for ${narrower.join(' or ')}; the figures above are national, by category.`);
  return answer;
}

export function fundingAnswer(frame: QuestionFrame, context: AnswerContext): DirectAnswer {
  const answer = newAnswer(`${frame.retailers.join(', ')}: funding`);
  for (const name of frame.retailers.slice(0, 4)) {
    const rounds = [...(context.facts.funding.get(name)?.values() ?? [])].sort((a, b) => firstReported(a).localeCompare(firstReported(b)));
    const inPeriod = frame.period ? rounds.filter((group) => within(firstReported(group), frame.period!)) : rounds;
    if (inPeriod.length === 0) {
      answer.lines.push(`**The signals report no funding round for ${name}${frame.period ? ` in ${frame.period.label}` : ' in the last 18 months'}**${retailerOf(name)?.listed ? ` (${name} is listed)` : ''}.`);
      continue;
    }
    for (const group of inPeriod.reverse()) {
      const figure = readFigure(group, 'amount_cr', context.sourcesById)!;
      use(answer, figure.signal);
      const valuation = figure.signal.metrics.valuation_cr;
      answer.lines.push(`${inPeriod.length > 1 ? '- ' : ''}**${name} raised ₹${num(figure.value)} crore** on ${day(context, figure.signal.published_at)}${valuation ? `, at a valuation of about ₹${num(valuation)} crore` : ''} ${cite(figure.signal)}.`);
    }
  }
  return answer;
}

export { appRankAnswer } from './app-rank-answer';
