/**
 * The corpus's ground truth: one true value per entity, metric and period, generated first;
 * signals are then written from it (several sources may cover one fact, all with the same
 * figure). Disagreement exists only where it is planted here and recorded in `conflicts`,
 * so the evaluation (`npm run eval`) can check answers against it.
 */
import type { SeededRandom } from './random';
import { fiscalQuarterOf, festiveWindow, nextQuarter, previousQuarter, type FiscalQuarter } from '../world/periods';
import { INVESTORS } from '../world/gazetteer';
import { CITIES, RETAILERS, SEGMENTS, type Retailer, type Segment } from './vocabulary';

export interface StoreEvent {
  event_id: string;
  at: string;
  city: string;
  state: string;
  /** Stores opened (positive) or closed (negative). */
  change: number;
  /** National count after this event: the previous count plus the change. */
  total: number;
  signal_ids: string[];
}

export interface ResultFact {
  event_id: string;
  period: string;
  reported_at: string;
  revenue_cr: number;
  revenue_growth_yoy_pct: number;
  ebitda_margin_pct: number;
  signal_ids: string[];
}

export interface MarketFact {
  event_id: string;
  segment: Segment;
  city: string;
  period: string;
  reported_at: string;
  gov_growth_yoy_pct: number;
  /** Share of gross order value (%) and its change on the previous quarter (points). */
  shares: Array<{ retailer: string; share_pct: number; change_pts: number }>;
  signal_ids: string[];
}

export interface FestiveFact {
  event_id: string;
  year: number;
  reported_at: string;
  growth_yoy_pct: Record<Segment, number>;
  signal_ids: string[];
}

export interface FundingRound {
  event_id: string;
  at: string;
  amount_cr: number;
  valuation_cr: number;
  investor: string;
  signal_ids: string[];
}

/**
 * A deliberate disagreement: one source reports `reported_value` where the truth is `true_value`.
 * For `app_rank` (two trackers' charts for one app and day) neither is the truth: `true_value`
 * is the earlier report's, the one an answer leads with.
 */
export interface Conflict {
  kind: 'store_count' | 'revenue' | 'gov_growth' | 'app_rank';
  entity: string;
  /** For GOV: the city; the segment is in `segment`. */
  segment?: Segment;
  event_id: string;
  metric: string;
  true_value: number;
  reported_value: number;
  true_signal_id: string;
  conflicting_signal_id: string;
}

export interface GroundTruth {
  seed: number;
  anchor: string;
  stores: Record<string, { unit: 'stores' | 'dark stores'; events: StoreEvent[] }>;
  results: Record<string, ResultFact[]>;
  markets: MarketFact[];
  festive: FestiveFact[];
  funding: Record<string, FundingRound[]>;
  conflicts: Conflict[];
}

/** What a retailer's figures look like: store network size, quarterly revenue, growth. */
const SCALE: Record<Segment, { stores: [number, number]; revenue: [number, number]; growth: [number, number]; perEvent: [number, number] }> = {
  grocery: { stores: [80, 420], revenue: [800, 16_000], growth: [8, 24], perEvent: [1, 6] },
  'quick commerce': { stores: [150, 1_000], revenue: [300, 4_500], growth: [45, 110], perEvent: [4, 30] },
  fashion: { stores: [120, 800], revenue: [250, 5_000], growth: [6, 35], perEvent: [2, 14] },
  electronics: { stores: [80, 520], revenue: [400, 5_500], growth: [5, 22], perEvent: [1, 8] },
  beauty: { stores: [40, 220], revenue: [150, 2_500], growth: [12, 38], perEvent: [1, 6] },
  jewellery: { stores: [60, 480], revenue: [500, 14_000], growth: [10, 30], perEvent: [1, 5] },
  pharmacy: { stores: [300, 5_800], revenue: [200, 4_000], growth: [8, 26], perEvent: [5, 40] },
};

export const storeUnit = (retailer: Retailer): 'stores' | 'dark stores' => (retailer.segment === 'quick commerce' ? 'dark stores' : 'stores');

const DAY_MS = 86_400_000;


/** A fact and the drafts of the signals that report it. */
export interface FactDraft {
  event_id: string;
  at: number;
  retailer?: Retailer;
  segment: Segment;
  city?: (typeof CITIES)[number];
  period?: string;
  kind: 'store' | 'results' | 'market' | 'festive' | 'funding';
  /** Builds the signal texts; `variant` > 0 is a further source covering the same fact. */
  coverage: Array<{ sourceKinds: string[]; conflict?: { value: number } }>;
  data: Record<string, unknown>;
}

function pickCity(random: SeededRandom): (typeof CITIES)[number] {
  // Tier-1 cities get most openings, as in real roll-outs.
  const tier1 = CITIES.filter((city) => city.tier === 1);
  return random.chance(0.7) ? random.pick(tier1) : random.pick(CITIES);
}

/**
 * Generates every fact between `startMs` and `anchorMs`, in a fixed order so the same seed
 * gives the same truth. Returns the truth (signal ids filled in later) and the drafts.
 */
export function generateFacts(random: SeededRandom, seed: number, startMs: number, anchorMs: number): { truth: GroundTruth; drafts: FactDraft[] } {
  const truth: GroundTruth = { seed, anchor: new Date(anchorMs).toISOString(), stores: {}, results: {}, markets: [], festive: [], funding: {}, conflicts: [] };
  const drafts: FactDraft[] = [];
  const span = anchorMs - startMs;
  const at = (ms: number): number => Math.floor(ms / 1000) * 1000;

  // 1. Store networks: cumulative counts, openings and closures add up.
  for (const retailer of RETAILERS) {
    if (retailer.online) continue;
    const scale = SCALE[retailer.segment];
    let total = random.int(scale.stores[0], scale.stores[1]);
    const openings = random.int(9, 18);
    const closures = random.int(0, 2);
    const times = Array.from({ length: openings + closures }, (_, i) => ({ ms: at(startMs + random.next() * span), closure: i >= openings }));
    times.sort((a, b) => a.ms - b.ms);
    const events: StoreEvent[] = [];
    for (const [n, time] of times.entries()) {
      const city = pickCity(random);
      const size = random.int(scale.perEvent[0], scale.perEvent[1]);
      const change = time.closure ? -Math.max(1, Math.round(size / 2)) : size;
      total += change;
      const event_id = `evt_store_${retailer.stem}_${n}`;
      events.push({ event_id, at: new Date(time.ms).toISOString(), city: city.city, state: city.state, change, total, signal_ids: [] });
      const coverage: FactDraft['coverage'] = [{ sourceKinds: ['store_locator', 'company_newsroom'] }];
      if (random.chance(0.55)) coverage.push({ sourceKinds: ['business_press'] });
      drafts.push({ event_id, at: time.ms, retailer, segment: retailer.segment, city, kind: 'store', coverage, data: { change, total } });
    }
    truth.stores[retailer.name] = { unit: storeUnit(retailer), events };
  }

  // 2. Quarterly results, reported 4–7 weeks after the quarter ends.
  const firstQuarter = fiscalQuarterOf(startMs);
  for (const retailer of RETAILERS) {
    const scale = SCALE[retailer.segment];
    const growthMean = random.float(scale.growth[0], scale.growth[1]);
    const history = new Map<string, number>();
    let quarter: FiscalQuarter = previousQuarter(firstQuarter, 5);
    let base = random.int(scale.revenue[0], scale.revenue[1]) / (1 + growthMean / 100);
    for (let i = 0; i < 4; i += 1) {
      history.set(quarter.label, Math.round(base * random.float(0.9, 1.1, 3)));
      base *= (1 + growthMean / 100) ** 0.25;
      quarter = nextQuarter(quarter);
    }
    const facts: ResultFact[] = [];
    for (;;) {
      const yearAgo = history.get(previousQuarter(quarter, 4).label)!;
      const growth = Math.max(-5, growthMean + random.float(-6, 6));
      const revenue = Math.round(yearAgo * (1 + growth / 100));
      history.set(quarter.label, revenue);
      const reportedMs = at(quarter.endMs + random.int(28, 49) * DAY_MS + random.int(0, 86_000) * 1000);
      if (reportedMs > anchorMs) break;
      if (reportedMs >= startMs) {
        const growthStated = Math.round(((revenue - yearAgo) / yearAgo) * 1000) / 10;
        const margin = retailer.segment === 'quick commerce' ? random.float(-14, 1) : random.float(2, 14);
        const event_id = `evt_results_${retailer.stem}_${quarter.label.replace(' ', '_').toLowerCase()}`;
        facts.push({ event_id, period: quarter.label, reported_at: new Date(reportedMs).toISOString(), revenue_cr: revenue, revenue_growth_yoy_pct: growthStated, ebitda_margin_pct: margin, signal_ids: [] });
        const coverage: FactDraft['coverage'] = [{ sourceKinds: retailer.listed ? ['exchange_filing'] : ['company_newsroom'] }, { sourceKinds: ['business_press'] }];
        drafts.push({ event_id, at: reportedMs, retailer, segment: retailer.segment, period: quarter.label, kind: 'results', coverage, data: { revenue, growth: growthStated, margin } });
      }
      quarter = nextQuarter(quarter);
    }
    truth.results[retailer.name] = facts;
  }

  // 3. City markets: GOV growth and player shares per segment, city and quarter.
  for (const segment of SEGMENTS) {
    const players = RETAILERS.filter((retailer) => retailer.segment === segment);
    for (const city of CITIES) {
      // Brands listed first in a segment are its national leaders; cities differ around that.
      let shares = players.map((_, i) => random.float(4, 30) * Math.max(0.3, 1.6 - 0.2 * i));
      const normalise = (values: number[]): number[] => {
        const sum = values.reduce((a, b) => a + b, 0);
        const rounded = values.map((value) => Math.round((value / sum) * 1000) / 10);
        rounded[0] = Math.round((100 - rounded.slice(1).reduce((a, b) => a + b, 0)) * 10) / 10;
        return rounded;
      };
      let previous = normalise(shares);
      const drift = players.map(() => random.float(-1.5, 1.5));
      const growthBase = segment === 'quick commerce' ? random.float(35, 85) : random.float(4, 26);
      let quarter = previousQuarter(firstQuarter, 1);
      for (;;) {
        shares = shares.map((share, i) => Math.max(1, share + drift[i]! + random.float(-0.8, 0.8)));
        const current = normalise(shares);
        const reportedMs = at(quarter.endMs + random.int(18, 40) * DAY_MS + random.int(0, 86_000) * 1000);
        if (reportedMs > anchorMs) break;
        if (reportedMs >= startMs) {
          const gov = Math.round((growthBase + random.float(-5, 5)) * 10) / 10;
          const event_id = `evt_market_${segment.replace(' ', '_')}_${city.city.toLowerCase()}_${quarter.label.replace(' ', '_').toLowerCase()}`;
          const ranked = players
            .map((retailer, i) => ({ retailer: retailer.name, share_pct: current[i]!, change_pts: Math.round((current[i]! - previous[i]!) * 10) / 10 }))
            .sort((a, b) => b.share_pct - a.share_pct);
          truth.markets.push({ event_id, segment, city: city.city, period: quarter.label, reported_at: new Date(reportedMs).toISOString(), gov_growth_yoy_pct: gov, shares: ranked, signal_ids: [] });
          const coverage: FactDraft['coverage'] = [{ sourceKinds: ['industry_body'] }];
          if (random.chance(0.3)) coverage.push({ sourceKinds: ['business_press'] });
          drafts.push({ event_id, at: reportedMs, segment, city, period: quarter.label, kind: 'market', coverage, data: { gov, shares: ranked } });
        }
        previous = current;
        quarter = nextQuarter(quarter);
      }
    }
  }

  // 4. Festive seasons: sales growth by category, reported about a week after Diwali.
  for (let year = new Date(startMs).getUTCFullYear(); year <= new Date(anchorMs).getUTCFullYear(); year += 1) {
    const window = festiveWindow(year);
    if (!window) continue;
    const reportedMs = at(window.diwaliMs + random.int(6, 10) * DAY_MS + 10 * 3_600_000);
    if (reportedMs > anchorMs || reportedMs < startMs) continue;
    const growth = Object.fromEntries(SEGMENTS.map((segment) => [segment, random.float(segment === 'quick commerce' ? 40 : 4, segment === 'quick commerce' ? 95 : 32)])) as Record<Segment, number>;
    const event_id = `evt_festive_${year}`;
    truth.festive.push({ event_id, year, reported_at: new Date(reportedMs).toISOString(), growth_yoy_pct: growth, signal_ids: [] });
    drafts.push({ event_id, at: reportedMs, segment: 'grocery', period: `Diwali ${year}`, kind: 'festive', coverage: [{ sourceKinds: ['industry_body'] }, { sourceKinds: ['business_press'] }], data: { year, growth } });
  }

  // 5. Funding: unlisted retailers raise at a realistic rate (at most two rounds in 18 months).
  const investors = INVESTORS;
  for (const retailer of RETAILERS) {
    if (retailer.listed) continue;
    const roundCount = random.chance(0.45) ? (random.chance(0.25) ? 2 : 1) : 0;
    const rounds: FundingRound[] = [];
    for (let n = 0; n < roundCount; n += 1) {
      const ms = at(startMs + random.next() * span);
      const amount = retailer.segment === 'quick commerce' ? random.int(40, 500) * 10 : random.int(5, 120) * 10;
      const round: FundingRound = { event_id: `evt_funding_${retailer.stem}_${n}`, at: new Date(ms).toISOString(), amount_cr: amount, valuation_cr: amount * random.int(8, 20), investor: random.pick(investors), signal_ids: [] };
      rounds.push(round);
      drafts.push({ event_id: round.event_id, at: ms, retailer, segment: retailer.segment, kind: 'funding', coverage: [{ sourceKinds: ['business_press'] }, { sourceKinds: ['business_press'] }], data: { ...round } });
    }
    rounds.sort((a, b) => a.at.localeCompare(b.at));
    if (rounds.length > 0) truth.funding[retailer.name] = rounds;
  }

  plantConflicts(random, truth, drafts);
  return { truth, drafts };
}

/**
 * A few realistic disagreements on the latest figures: a press report or tracker that differs
 * from the company's own number. Zepto's dark-store count is always one of them.
 */
function plantConflicts(random: SeededRandom, truth: GroundTruth, drafts: FactDraft[]): void {
  const byEvent = new Map(drafts.map((draft) => [draft.event_id, draft]));
  const storeRetailers = Object.keys(truth.stores).filter((name) => name !== 'Zepto');
  const chosenStores = ['Zepto', ...pickSome(random, storeRetailers, 5)];
  for (const name of chosenStores) {
    const last = truth.stores[name]!.events.at(-1);
    const draft = last && byEvent.get(last.event_id);
    if (!last || !draft) continue;
    const delta = random.int(3, 40) * (random.chance(0.5) ? 1 : -1);
    draft.coverage = [draft.coverage[0]!, { sourceKinds: ['business_press'], conflict: { value: last.total + delta } }];
  }
  const resultRetailers = pickSome(random, Object.keys(truth.results).filter((name) => (truth.results[name]?.length ?? 0) > 0), 6);
  for (const name of resultRetailers) {
    const last = truth.results[name]!.at(-1)!;
    const draft = byEvent.get(last.event_id)!;
    const wrong = Math.round(last.revenue_cr * (1 + random.float(4, 14) / 100 * (random.chance(0.5) ? 1 : -1)));
    draft.coverage = [draft.coverage[0]!, { sourceKinds: ['business_press'], conflict: { value: wrong } }];
  }
  const latestMarkets = new Map<string, MarketFact>();
  for (const market of truth.markets) latestMarkets.set(`${market.segment}|${market.city}`, market);
  const marketKeys = [...latestMarkets.keys()].sort();
  const chosenMarkets = [latestMarkets.get('quick commerce|Bengaluru'), ...pickSome(random, marketKeys.filter((key) => key !== 'quick commerce|Bengaluru'), 5).map((key) => latestMarkets.get(key))];
  for (const market of chosenMarkets) {
    if (!market) continue;
    const draft = byEvent.get(market.event_id)!;
    const wrong = Math.round((market.gov_growth_yoy_pct + random.float(6, 18) * (random.chance(0.5) ? 1 : -1)) * 10) / 10;
    draft.coverage = [draft.coverage[0]!, { sourceKinds: ['business_press'], conflict: { value: wrong } }];
  }
}

function pickSome<T>(random: SeededRandom, items: T[], n: number): T[] {
  const pool = [...items];
  const chosen: T[] = [];
  while (chosen.length < n && pool.length > 0) chosen.push(pool.splice(Math.floor(random.next() * pool.length), 1)[0]!);
  return chosen;
}
