/**
 * Issue 43, item 6: the sample agrees with itself. Walks the generated corpus on the seed and
 * anchor the eval uses (and the service's default anchor) and fails on any contradiction: a
 * state body's notice published by another body or about another state, an app's chart on one
 * tracker jumping more than a plausible step between observations, a planted rank disagreement
 * that is not two trackers on one day (in UTC and in India), or a figure outside its plausible range.
 */
import { describe, expect, it } from 'vitest';
import { EVAL_ANCHOR } from '../../eval/service';
import { maxRankStep } from '../../src/service/corpus/app-rank-series';
import { DEFAULT_ANCHOR, DEFAULT_SEED, generateCorpus } from '../../src/service/corpus/generator';
import { REGULATORS } from '../../src/service/world/gazetteer';
import { isoDayIn } from '../../src/service/world/time-zone';
import type { CorpusSignal } from '../../src/service/world/signal-types';

/** Plausible ranges of every figure the sample states (festive growth by segment shares one). */
const RANGES: Record<string, [number, number]> = {
  stores_opened: [1, 60],
  stores_closed: [1, 40],
  store_count_national: [20, 8_000],
  avg_price_change_pct: [-30, 30],
  rank: [1, 60],
  rank_change: [-25, 25],
  outlets_in_pilot: [1, 1_000],
  open_roles: [1, 10_000],
  compliance_days: [7, 365],
  pin_codes_added: [1, 500],
  avg_delivery_min: [5, 60],
  revenue_cr: [1, 50_000],
  revenue_growth_yoy_pct: [-50, 200],
  ebitda_margin_pct: [-50, 40],
  festive_growth: [-50, 150],
  gov_growth_yoy_pct: [-50, 150],
  amount_cr: [1, 10_000],
  valuation_cr: [10, 200_000],
};

const runs = [
  { name: 'the eval', seed: DEFAULT_SEED, anchor: EVAL_ANCHOR },
  { name: 'the default anchor', seed: DEFAULT_SEED, anchor: DEFAULT_ANCHOR },
];

describe.each(runs)('the sample of $name (seed $seed) agrees with itself', ({ seed, anchor }) => {
  const corpus = generateCorpus({ seed, anchor });
  const sourceOf = new Map(corpus.sources.map((source) => [source.id, source]));

  it('a government release is published by the body that issued it, and a state body acts only in its state', () => {
    const problems: string[] = [];
    for (const signal of corpus.signals) {
      const source = sourceOf.get(signal.source_id)!;
      if (source.kind === 'government_release' && !signal.title.startsWith(source.name)) problems.push(`${signal.id}: "${signal.title}" published by ${source.name}`);
      for (const body of REGULATORS) {
        if (!signal.title.startsWith(body.name)) continue;
        if (source.kind === 'government_release' && source.name !== body.name) problems.push(`${signal.id}: ${body.name}'s notice published by ${source.name}`);
        if (body.jurisdiction && signal.entities.states.some((state) => state !== body.jurisdiction)) problems.push(`${signal.id}: ${body.name}'s notice about ${signal.entities.states.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("each tracker's chart of an app moves by plausible steps between consecutive observations", () => {
    const series = new Map<string, CorpusSignal[]>();
    for (const signal of corpus.signals) {
      if (signal.type !== 'app_rank' || signal.metrics.rank === undefined) continue;
      const key = `${signal.entities.retailers.join('+')} on ${sourceOf.get(signal.source_id)!.name}`;
      series.set(key, [...(series.get(key) ?? []), signal]);
    }
    expect(series.size).toBeGreaterThan(100);
    const jumps: string[] = [];
    for (const [key, chart] of series) {
      chart.sort((a, b) => a.published_at.localeCompare(b.published_at));
      for (let i = 1; i < chart.length; i += 1) {
        const [before, after] = [chart[i - 1]!, chart[i]!];
        const gap = Date.parse(after.published_at) - Date.parse(before.published_at);
        if (Math.abs(after.metrics.rank! - before.metrics.rank!) > maxRankStep(gap)) jumps.push(`${key}: #${before.metrics.rank} on ${before.published_at} then #${after.metrics.rank} on ${after.published_at}`);
      }
    }
    expect(jumps).toEqual([]);
  });

  it('each planted rank disagreement is two different trackers on one day', () => {
    const planted = corpus.truth.conflicts.filter((conflict) => conflict.kind === 'app_rank');
    expect(planted.length).toBeGreaterThan(0);
    const byId = new Map(corpus.signals.map((signal) => [signal.id, signal]));
    for (const conflict of planted) {
      const [first, second] = [byId.get(conflict.true_signal_id)!, byId.get(conflict.conflicting_signal_id)!];
      expect(first.source_id).not.toBe(second.source_id);
      expect(first.published_at.slice(0, 10)).toBe(second.published_at.slice(0, 10));
      // And one day in India, the analyst's default zone, where answers group figures by day.
      expect(isoDayIn(first.published_at, 'Asia/Kolkata')).toBe(isoDayIn(second.published_at, 'Asia/Kolkata'));
      expect(first.metrics.rank).not.toBe(second.metrics.rank);
    }
  });

  it('every figure is within its plausible range', () => {
    const outside: string[] = [];
    for (const signal of corpus.signals) {
      for (const [metric, value] of Object.entries(signal.metrics)) {
        const range = RANGES[metric.startsWith('festive_growth_') ? 'festive_growth' : metric];
        if (!range) outside.push(`${signal.id}: no range for ${metric}`);
        else if (!(value >= range[0] && value <= range[1])) outside.push(`${signal.id}: ${metric} ${value}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
