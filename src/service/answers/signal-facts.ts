/**
 * Signals grouped by the fact they report (store events, quarterly results, city markets,
 * festive seasons, funding rounds), so an answer can compute a count or read the latest
 * figure and see when two sources covering the same fact disagree.
 */
import { sourceAuthority, type CorpusSignal, type CorpusSource } from '../world/signal-types';

export type FactGroup = CorpusSignal[];

export class SignalFacts {
  /** retailer → event id → signals (store openings and closures). */
  readonly storeEvents = new Map<string, Map<string, FactGroup>>();
  /** retailer → fiscal quarter label → signals. */
  readonly results = new Map<string, Map<string, FactGroup>>();
  /** "segment|city" → fiscal quarter label → signals. */
  readonly markets = new Map<string, Map<string, FactGroup>>();
  /** Diwali year → signals. */
  readonly festive = new Map<number, FactGroup>();
  /** retailer → event id → signals. */
  readonly funding = new Map<string, Map<string, FactGroup>>();
  /** app → UTC day (YYYY-MM-DD) → rank reports: each tracker's chart position for that day. */
  readonly appRanks = new Map<string, Map<string, FactGroup>>();

  add(signal: CorpusSignal): void {
    const retailer = signal.entities.retailers[0];
    if (signal.type === 'app_rank' && retailer && signal.metrics.rank !== undefined) {
      let byDay = this.appRanks.get(retailer);
      if (!byDay) this.appRanks.set(retailer, (byDay = new Map()));
      const day = signal.published_at.slice(0, 10);
      byDay.set(day, [...(byDay.get(day) ?? []), signal]);
      return;
    }
    if (!signal.event_id) return;
    const push = <K>(outer: Map<string, Map<K, FactGroup>>, key: string, inner: K): void => {
      let byInner = outer.get(key);
      if (!byInner) outer.set(key, (byInner = new Map()));
      byInner.set(inner, [...(byInner.get(inner) ?? []), signal]);
    };
    if ((signal.type === 'store_opening' || signal.type === 'closure') && retailer) push(this.storeEvents, retailer, signal.event_id);
    else if (signal.type === 'results' && retailer && signal.period) push(this.results, retailer, signal.period);
    else if (signal.type === 'funding' && retailer) push(this.funding, retailer, signal.event_id);
    else if (signal.type === 'market_update' && signal.period?.startsWith('Diwali')) {
      const year = Number(signal.period.slice(-4));
      this.festive.set(year, [...(this.festive.get(year) ?? []), signal]);
    } else if (signal.type === 'market_update' && signal.period) {
      const segment = signal.entities.segments[0];
      const city = signal.entities.cities[0];
      if (segment && city) push(this.markets, `${segment}|${city}`, signal.period);
    }
  }
}

/** When a fact group was first reported. */
export const firstReported = (group: FactGroup): string => group.reduce((min, signal) => (signal.published_at < min ? signal.published_at : min), group[0]!.published_at);

export interface ReadFigure {
  value: number;
  /** The most authoritative signal stating `value`. */
  signal: CorpusSignal;
  /** Other sources covering the same fact with a different figure. */
  disagreeing: Array<{ value: number; signal: CorpusSignal }>;
}

/**
 * The figure a fact group states for `metric`: the most authoritative source's value (a
 * filing or the company's own count over a press estimate), plus any disagreement.
 */
export function readFigure(group: FactGroup, metric: string, sourcesById: Map<string, CorpusSource>): ReadFigure | null {
  const stating = group.filter((signal) => signal.metrics[metric] !== undefined);
  if (stating.length === 0) return null;
  const ranked = [...stating].sort(
    (a, b) =>
      sourceAuthority(sourcesById.get(a.source_id)?.kind) - sourceAuthority(sourcesById.get(b.source_id)?.kind) ||
      a.published_at.localeCompare(b.published_at) ||
      a.id.localeCompare(b.id),
  );
  const primary = ranked[0]!;
  const value = primary.metrics[metric]!;
  const disagreeing = ranked.filter((signal) => signal.metrics[metric] !== value).map((signal) => ({ value: signal.metrics[metric]!, signal }));
  return { value, signal: primary, disagreeing };
}
