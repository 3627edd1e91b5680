/**
 * Deterministic corpus of India retail signals (docs/decisions/design.md §2): ~150 sources and ≥ 20,000 signals
 * over 18 months. Same seed and anchor → byte-identical output. Figures are synthetic.
 */
import type { SourceHealth } from '../../shared/service-schemas';
import { sourceAuthority, type CorpusSignal, type CorpusSource, type SignalType, type SourceKind } from '../world/signal-types';
import { SeededRandom, slugify, stableHex16 } from './random';
import { plantAppRankConflicts } from './app-rank-conflicts';
import { continueRankSeries } from './app-rank-series';
import { draftFactSignals } from './fact-signals';
import { draftFiller, pickFillerType, type TextDraft } from './filler';
import { generateFacts, type Conflict, type FactDraft, type GroundTruth } from './ground-truth';
import {
  APP_RANK_TRACKERS,
  CITIES,
  EXCHANGES,
  INDUSTRY_BODIES,
  JOB_BOARDS,
  PRESS,
  PRICE_TRACKER_SEGMENTS,
  PRICE_TRACKERS,
  REGULATORS,
  RETAILERS,
  type Segment,
} from './vocabulary';

export type { GroundTruth } from './ground-truth';

export { sourceAuthority, type CorpusSignal, type CorpusSource, type SignalType, type SourceKind } from '../world/signal-types';

export interface Corpus {
  sources: CorpusSource[];
  signals: CorpusSignal[];
  /** The true values the signals were written from, and the planted conflicts (for evaluation). */
  truth: GroundTruth;
}

export interface CorpusOptions {
  seed?: number;
  signalCount?: number;
  /** Pads the roster with regional feeds up to this many sources (load tests of the health view). */
  sourceCount?: number;
  /** Newest possible publication time; the corpus spans 18 months before it. */
  anchor?: Date;
}

export const DEFAULT_SEED = 20_261_101;
export const DEFAULT_SIGNAL_COUNT = 20_000;
export const DEFAULT_ANCHOR = new Date('2026-11-01T00:00:00Z');
const SPAN_DAYS = 548;
const DAY_MS = 86_400_000;

const CADENCES: Record<SourceKind, { cadence: string; dailyRate: [number, number] }> = {
  exchange_filing: { cadence: 'event-driven', dailyRate: [6, 20] },
  company_newsroom: { cadence: 'daily', dailyRate: [1, 4] },
  business_press: { cadence: 'hourly', dailyRate: [12, 40] },
  app_store_rank: { cadence: 'every 6 hours', dailyRate: [4, 8] },
  job_board: { cadence: 'daily', dailyRate: [3, 10] },
  government_release: { cadence: 'weekly', dailyRate: [0.2, 1] },
  price_tracker: { cadence: 'hourly', dailyRate: [10, 24] },
  store_locator: { cadence: 'daily', dailyRate: [1, 3] },
  industry_body: { cadence: 'weekly', dailyRate: [0.3, 1.5] },
};

function makeSource(random: SeededRandom, kind: SourceKind, name: string, host: string, retailer?: string): CorpusSource {
  const { cadence, dailyRate } = CADENCES[kind];
  const roll = random.next();
  const health: SourceHealth = roll < 0.82 ? 'healthy' : roll < 0.95 ? 'degraded' : 'down';
  return {
    id: `src_${slugify(name).replace(/-/g, '_')}`.slice(0, 48),
    name,
    kind,
    url: `https://${host}.example/`,
    cadence,
    dailyRate: random.float(dailyRate[0], dailyRate[1], 2),
    health,
    ...(retailer ? { retailer } : {}),
  };
}

export function generateSources(random: SeededRandom): CorpusSource[] {
  const sources: CorpusSource[] = [];
  for (const exchange of EXCHANGES) sources.push(makeSource(random, 'exchange_filing', exchange, slugify(exchange)));
  for (const retailer of RETAILERS) {
    sources.push(makeSource(random, 'company_newsroom', `${retailer.name} newsroom`, `newsroom.${retailer.stem}`, retailer.name));
  }
  for (const retailer of RETAILERS) {
    if (retailer.segment === 'quick commerce' || retailer.segment === 'fashion' || retailer.segment === 'grocery' || retailer.segment === 'jewellery' || retailer.segment === 'electronics') {
      sources.push(makeSource(random, 'store_locator', `${retailer.name} store locator`, `stores.${retailer.stem}`, retailer.name));
    }
  }
  for (const press of PRESS) sources.push(makeSource(random, 'business_press', press, slugify(press)));
  for (const press of PRESS.slice(0, 12)) {
    sources.push(makeSource(random, 'business_press', `${press} — retail feed`, `retail.${slugify(press)}`));
  }
  for (const tracker of APP_RANK_TRACKERS) sources.push(makeSource(random, 'app_store_rank', tracker, slugify(tracker)));
  for (const board of JOB_BOARDS) sources.push(makeSource(random, 'job_board', board, slugify(board)));
  for (const regulator of REGULATORS) sources.push(makeSource(random, 'government_release', regulator.name, slugify(regulator.name)));
  for (const tracker of PRICE_TRACKERS) sources.push(makeSource(random, 'price_tracker', tracker, slugify(tracker)));
  for (const body of INDUSTRY_BODIES) sources.push(makeSource(random, 'industry_body', body, slugify(body)));
  return sources;
}

const INDUSTRY_VOICES: Record<Segment, string[]> = {
  grocery: ['Retailers Association of India', 'CII Retail Council', 'IBEF'],
  'quick commerce': ['Retailers Association of India', 'NASSCOM Consumer Internet', 'FICCI Retail Committee'],
  fashion: ['Clothing Manufacturers Association of India', 'Retailers Association of India'],
  electronics: ['Consumer Electronics and Appliances Manufacturers Association', 'CII Retail Council'],
  beauty: ['Indian Beauty & Hygiene Association', 'FICCI Retail Committee'],
  jewellery: ['All India Gem & Jewellery Domestic Council', 'IBEF'],
  pharmacy: ['All India Organisation of Chemists and Druggists', 'CII Retail Council'],
};

/** The first kind in the list that has a fitting source (a retailer's own newsroom, a segment's tracker). */
function chooseSource(random: SeededRandom, draft: TextDraft, byKind: Map<SourceKind, CorpusSource[]>, firstFitting: boolean): CorpusSource {
  const kinds = (firstFitting ? draft.sourceKinds : [random.pick(draft.sourceKinds)]) as SourceKind[];
  for (const kind of kinds) {
    let pool = byKind.get(kind) ?? [];
    if (kind === 'price_tracker') pool = pool.filter((source) => draft.segments.includes(PRICE_TRACKER_SEGMENTS[source.name] as Segment));
    if (kind === 'industry_body') {
      const voices = new Set(draft.segments.flatMap((segment) => INDUSTRY_VOICES[segment]));
      pool = pool.filter((source) => voices.has(source.name));
    }
    if (kind === 'company_newsroom' || kind === 'store_locator') pool = pool.filter((source) => source.retailer && draft.retailers.includes(source.retailer));
    // A release is published by the body that issued it; press reports anyone's.
    if (kind === 'government_release' && draft.publisher) pool = pool.filter((source) => source.name === draft.publisher);
    if (pool.length > 0) return random.pick(pool);
  }
  return random.pick(byKind.get('business_press') ?? []);
}

function toSignal(
  draft: TextDraft,
  type: SignalType,
  key: string,
  seed: number,
  publishedAt: Date,
  source: CorpusSource,
  extra: { event_id?: string; period?: string } = {},
): CorpusSignal {
  const id = `sig_${stableHex16(`${seed}:${key}:${draft.title}`)}`;
  const slug = `${slugify(draft.title)}-${id.slice(4, 10)}`;
  return {
    id,
    slug,
    title: draft.title,
    summary: draft.summary,
    body: `${draft.summary} ${draft.detail}`,
    source_id: source.id,
    url: `${source.url}${publishedAt.toISOString().slice(0, 10).replace(/-/g, '/')}/${slug}`,
    published_at: publishedAt.toISOString(),
    type,
    entities: {
      retailers: draft.retailers,
      segments: [...draft.segments],
      cities: draft.cities.map((city) => city.city),
      states: [...new Set(draft.cities.map((city) => city.state))],
    },
    metrics: draft.metrics,
    ...extra,
  };
}

/** Builds one one-off signal (no series behind it); also used by the live feed for new arrivals. */
export function makeSignal(
  random: SeededRandom,
  index: number,
  seed: number,
  publishedAt: Date,
  byKind: Map<SourceKind, CorpusSource[]>,
): CorpusSignal {
  const type = pickFillerType(random);
  const draft = draftFiller(random, type);
  return toSignal(draft, type, String(index), seed, publishedAt, chooseSource(random, draft, byKind, false));
}

const FACT_TYPES: Record<FactDraft['kind'], SignalType> = { store: 'store_opening', results: 'results', market: 'market_update', festive: 'market_update', funding: 'funding' };

export function groupSourcesByKind(sources: CorpusSource[]): Map<SourceKind, CorpusSource[]> {
  const byKind = new Map<SourceKind, CorpusSource[]>();
  for (const source of sources) {
    const list = byKind.get(source.kind) ?? [];
    list.push(source);
    byKind.set(source.kind, list);
  }
  return byKind;
}

/** The corpus's sources, as generateCorpus makes them first from the seed's stream (left where the signals go on from). */
function corpusSourcesFrom(random: SeededRandom, options: CorpusOptions): CorpusSource[] {
  const sources = generateSources(random);
  const kinds: SourceKind[] = ['business_press', 'price_tracker', 'job_board', 'store_locator', 'app_store_rank', 'industry_body'];
  for (let i = sources.length; i < (options.sourceCount ?? 0); i += 1) {
    const city = random.pick(CITIES);
    const kind = random.pick(kinds);
    sources.push(makeSource(random, kind, `${city.city} ${kind.replace(/_/g, ' ')} feed ${i}`, `feed-${i}.${slugify(city.city)}`));
  }
  return sources;
}

/** The sources the corpus of these options has, without its signals (a warming service names them at once). */
export function corpusSources(options: CorpusOptions = {}): CorpusSource[] {
  return corpusSourcesFrom(new SeededRandom(options.seed ?? DEFAULT_SEED), options);
}

export function generateCorpus(options: CorpusOptions = {}): Corpus {
  const steps = corpusSteps(options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Signals made between two of corpusSteps' pauses (a few tens of milliseconds of work). */
export const CORPUS_STEP_SIGNALS = 5_000;

/**
 * generateCorpus in steps: it pauses after every CORPUS_STEP_SIGNALS signals, so a service that
 * already listens can generate a large corpus between requests (server.ts's warm-up). The same
 * corpus either way: the steps only pause, they draw nothing.
 */
export function* corpusSteps(options: CorpusOptions = {}): Generator<void, Corpus> {
  const seed = options.seed ?? DEFAULT_SEED;
  const count = options.signalCount ?? DEFAULT_SIGNAL_COUNT;
  const anchorMs = (options.anchor ?? DEFAULT_ANCHOR).getTime();
  const startMs = anchorMs - SPAN_DAYS * DAY_MS;
  const random = new SeededRandom(seed);
  const sources = corpusSourcesFrom(random, options);
  const byKind = groupSourcesByKind(sources);
  const { truth, drafts } = generateFacts(new SeededRandom(seed ^ 0x7a17), seed, startMs, anchorMs);

  // The signals that report the facts; a small corpus keeps an even sample of them.
  const factSignals: CorpusSignal[] = [];
  const keepShare = Math.min(1, (count * 0.4) / Math.max(1, drafts.length * 1.5));
  for (const fact of drafts) {
    const texts = draftFactSignals(random, fact);
    const keep = random.next() < keepShare;
    for (const [variant, text] of texts.entries()) {
      // Further coverage follows the first report by a few hours, never past the anchor.
      const at = Math.min(anchorMs, fact.at + variant * random.int(2, 30) * 3_600_000);
      const type = fact.kind === 'store' && text.metrics.stores_closed !== undefined ? 'closure' : FACT_TYPES[fact.kind];
      const source = chooseSource(random, text, byKind, variant === 0);
      if (!keep) continue;
      factSignals.push(toSignal(text, type, `${fact.event_id}:${variant}`, seed, new Date(at), source, { event_id: fact.event_id, ...(fact.period ? { period: fact.period } : {}) }));
    }
  }
  const signals: CorpusSignal[] = factSignals.slice(0, count);
  for (let index = signals.length; index < count; index += 1) {
    // The power skews publication towards recent months, as real feeds grow.
    const ageDays = random.next() ** 1.6 * SPAN_DAYS;
    const publishedAt = new Date(Math.floor((anchorMs - ageDays * DAY_MS) / 1000) * 1000);
    signals.push(makeSignal(random, index, seed, publishedAt, byKind));
    if (index % CORPUS_STEP_SIGNALS === 0) yield;
  }
  yield;
  // Each tracker's chart of an app moves by plausible steps; the planted disagreements follow it.
  continueRankSeries(signals, seed, Math.min(factSignals.length, count));
  const appRankConflicts = plantAppRankConflicts(signals, sources, seed, Math.min(factSignals.length, count));
  signals.sort((a, b) => b.published_at.localeCompare(a.published_at) || a.id.localeCompare(b.id));
  yield;
  uniqueSlugs(signals);
  const attached = attachSignals(truth, signals, sources);
  return { sources, signals, truth: { ...attached, conflicts: [...attached.conflicts, ...appRankConflicts] } };
}

/**
 * A slug names one signal (`/signal/<slug>`, unique in the database). Templated titles repeat,
 * and six hex characters of the id collide among them at scale (a million signals held
 * thousands of pairs): a later signal with a taken slug gets its whole id instead.
 */
export function uniqueSlugs(signals: CorpusSignal[]): void {
  const taken = new Set<string>();
  for (const signal of signals) {
    if (taken.has(signal.slug)) signal.slug = `${signal.slug.slice(0, signal.slug.lastIndexOf('-'))}-${signal.id.slice(4)}`;
    taken.add(signal.slug);
  }
}

/** Fills each fact's signal ids and records the planted conflicts; facts with no signal left are dropped. */
function attachSignals(truth: GroundTruth, signals: CorpusSignal[], sources: CorpusSource[]): GroundTruth {
  const byEvent = new Map<string, CorpusSignal[]>();
  for (const signal of signals) if (signal.event_id) byEvent.set(signal.event_id, [...(byEvent.get(signal.event_id) ?? []), signal]);
  const kindOf = new Map(sources.map((source) => [source.id, source.kind]));
  const ids = <T extends { event_id: string; signal_ids: string[] }>(facts: T[]): T[] =>
    facts.flatMap((fact) => {
      const found = byEvent.get(fact.event_id) ?? [];
      return found.length === 0 ? [] : [{ ...fact, signal_ids: found.map((signal) => signal.id) }];
    });
  const stores = Object.fromEntries(Object.entries(truth.stores).map(([name, series]) => [name, { ...series, events: ids(series.events) }]));
  const results = Object.fromEntries(Object.entries(truth.results).map(([name, facts]) => [name, ids(facts)]));
  const funding = Object.fromEntries(Object.entries(truth.funding).map(([name, rounds]) => [name, ids(rounds)]).filter(([, rounds]) => (rounds?.length ?? 0) > 0));
  const markets = ids(truth.markets);
  const conflicts: Conflict[] = [];
  const record = (kind: Conflict['kind'], entity: string, event_id: string, metric: string, trueValue: number, segment?: Segment): void => {
    const found = byEvent.get(event_id) ?? [];
    const wrong = found.find((signal) => signal.metrics[metric] !== undefined && signal.metrics[metric] !== trueValue);
    const right = found
      .filter((signal) => signal.metrics[metric] === trueValue)
      .sort((a, b) => sourceAuthority(kindOf.get(a.source_id)) - sourceAuthority(kindOf.get(b.source_id)))[0];
    if (!wrong || !right) return;
    conflicts.push({ kind, entity, ...(segment ? { segment } : {}), event_id, metric, true_value: trueValue, reported_value: wrong.metrics[metric]!, true_signal_id: right.id, conflicting_signal_id: wrong.id });
  };
  for (const [name, series] of Object.entries(stores)) for (const event of series.events) record('store_count', name, event.event_id, 'store_count_national', event.total);
  for (const [name, facts] of Object.entries(results)) for (const fact of facts) record('revenue', name, fact.event_id, 'revenue_cr', fact.revenue_cr);
  for (const market of markets) record('gov_growth', market.city, market.event_id, 'gov_growth_yoy_pct', market.gov_growth_yoy_pct, market.segment);
  return { ...truth, stores, results, funding, markets, festive: ids(truth.festive), conflicts };
}
