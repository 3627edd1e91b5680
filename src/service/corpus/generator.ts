/**
 * Deterministic corpus of India retail signals (DESIGN §2): ~150 sources and ≥ 20,000 signals
 * over 18 months. Same seed and anchor → byte-identical output. Figures are synthetic.
 */
import type { SourceHealth } from '../../shared/service-schemas';
import { SeededRandom, slugify, stableHex16 } from './random';
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
  SEGMENTS,
  type Retailer,
  type Segment,
} from './vocabulary';

export type SourceKind =
  | 'exchange_filing'
  | 'company_newsroom'
  | 'business_press'
  | 'app_store_rank'
  | 'job_board'
  | 'government_release'
  | 'price_tracker'
  | 'store_locator'
  | 'industry_body';

export interface CorpusSource {
  id: string;
  name: string;
  kind: SourceKind;
  url: string;
  cadence: string;
  /** Expected items per day; the live feed and items_24h follow it. */
  dailyRate: number;
  health: SourceHealth;
  retailer?: string;
}

export interface CorpusSignal {
  id: string;
  slug: string;
  title: string;
  summary: string;
  body: string;
  source_id: string;
  url: string;
  published_at: string;
  type: SignalType;
  entities: { retailers: string[]; segments: string[]; cities: string[]; states: string[] };
  metrics: Record<string, number>;
}

export type SignalType =
  | 'store_opening'
  | 'closure'
  | 'funding'
  | 'results'
  | 'pricing'
  | 'hiring'
  | 'regulation'
  | 'expansion'
  | 'partnership'
  | 'app_rank'
  | 'market_update';

export interface Corpus {
  sources: CorpusSource[];
  signals: CorpusSignal[];
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

const TYPE_WEIGHTS: Array<[SignalType, number]> = [
  ['store_opening', 14],
  ['expansion', 12],
  ['market_update', 10],
  ['pricing', 12],
  ['hiring', 9],
  ['results', 7],
  ['funding', 5],
  ['partnership', 7],
  ['app_rank', 10],
  ['closure', 5],
  ['regulation', 5],
];
const TOTAL_WEIGHT = TYPE_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);

function pickType(random: SeededRandom): SignalType {
  let roll = random.next() * TOTAL_WEIGHT;
  for (const [type, weight] of TYPE_WEIGHTS) {
    roll -= weight;
    if (roll < 0) return type;
  }
  return 'store_opening';
}

/** What each segment prices, hires and which industry bodies speak for it. */
const PRICE_CATEGORIES: Record<Segment, string[]> = {
  grocery: ['staples', 'fresh produce', 'dairy', 'edible oils'],
  'quick commerce': ['fresh produce', 'dairy', 'snacks', 'staples'],
  fashion: ['ethnic wear', 'denim', 'footwear'],
  electronics: ['smartphones', 'televisions', 'air conditioners'],
  beauty: ['skincare', 'fragrances', 'makeup'],
  jewellery: ['gold coins', 'diamond jewellery', 'silver jewellery'],
  pharmacy: ['generic medicines', 'wellness products', 'diabetes care'],
};
const ROLES: Record<Segment, string[]> = {
  grocery: ['store staff', 'warehouse associates', 'category managers'],
  'quick commerce': ['delivery partners', 'dark store associates', 'software engineers'],
  fashion: ['store staff', 'stylists', 'merchandisers'],
  electronics: ['sales advisors', 'service technicians'],
  beauty: ['beauty advisors', 'store staff'],
  jewellery: ['sales associates', 'karigars'],
  pharmacy: ['pharmacists', 'delivery partners'],
};
const INDUSTRY_VOICES: Record<Segment, string[]> = {
  grocery: ['Retailers Association of India', 'CII Retail Council', 'IBEF'],
  'quick commerce': ['Retailers Association of India', 'NASSCOM Consumer Internet', 'FICCI Retail Committee'],
  fashion: ['Clothing Manufacturers Association of India', 'Retailers Association of India'],
  electronics: ['Consumer Electronics and Appliances Manufacturers Association', 'CII Retail Council'],
  beauty: ['Indian Beauty & Hygiene Association', 'FICCI Retail Committee'],
  jewellery: ['All India Gem & Jewellery Domestic Council', 'IBEF'],
  pharmacy: ['All India Organisation of Chemists and Druggists', 'CII Retail Council'],
};

const formatInr = (crore: number): string => `₹${crore.toLocaleString('en-IN')} crore`;

interface Draft {
  title: string;
  summary: string;
  detail: string;
  metrics: Record<string, number>;
  retailers: string[];
  segments: Segment[];
  cities: Array<(typeof CITIES)[number]>;
  sourceKinds: SourceKind[];
}

/** One template per signal type: real names, synthetic figures. */
function draftSignal(random: SeededRandom, type: SignalType, publishedAt: Date): Draft {
  const retailer: Retailer = random.pick(RETAILERS);
  const city = random.pick(CITIES);
  const segment = retailer.segment;
  const quarter = Math.floor(publishedAt.getUTCMonth() / 3) + 1;
  const fy = publishedAt.getUTCFullYear() % 100 + (publishedAt.getUTCMonth() >= 3 ? 1 : 0);
  const base = { retailers: [retailer.name], segments: [segment] as Segment[], cities: [city] };

  switch (type) {
    case 'store_opening': {
      const opened = random.int(1, segment === 'quick commerce' ? 40 : 12);
      const total = opened + random.int(5, 420);
      const unit = segment === 'quick commerce' ? 'dark stores' : 'stores';
      return {
        ...base,
        title: `${retailer.name} opens ${count(opened, unit)} in ${city.city}`,
        summary: `${retailer.name} opened ${count(opened, `new ${unit}`)} in ${city.city}, taking its ${city.state} count to ${total}.`,
        detail: `The openings are concentrated in high-density residential pockets of ${city.city}. Management said ${unit} in tier-${city.tier} cities break even in ${random.int(5, 18)} months on average.`,
        metrics: { stores_opened: opened, store_count_state: total },
        sourceKinds: ['store_locator', 'company_newsroom', 'business_press'],
      };
    }
    case 'closure': {
      const closed = random.int(1, 15);
      return {
        ...base,
        title: `${retailer.name} shuts ${count(closed, 'underperforming stores')} in ${city.city}`,
        summary: `${retailer.name} closed ${count(closed, 'stores')} in ${city.city} after a portfolio review; same-store sales there fell ${random.float(2, 14)}%.`,
        detail: `The company is consolidating into larger formats in ${city.state} and says affected staff will be redeployed.`,
        metrics: { stores_closed: closed },
        sourceKinds: ['store_locator', 'business_press'],
      };
    }
    case 'expansion': {
      if (segment !== 'quick commerce') {
        const cities = random.int(2, 14);
        const stores = random.int(10, 900);
        return {
          ...base,
          title: `${retailer.name} enters ${cities} new cities, starting with ${city.city}`,
          summary: `${retailer.name} is entering ${cities} new cities led by ${city.city}, taking its ${segment} network to ${stores} stores nationwide.`,
          detail: `The roll-out targets tier-${city.tier} markets in ${city.state} first; management expects new stores to reach mature sales in ${random.int(9, 30)} months.`,
          metrics: { new_cities: cities, store_count_national: stores },
          sourceKinds: ['company_newsroom', 'business_press'],
        };
      }
      const added = random.int(5, 120);
      const minutes = random.int(8, 30);
      const growth = random.float(8, 65);
      return {
        ...base,
        title: `${retailer.name} expands to ${added} new pin codes in ${city.city}`,
        summary: `${retailer.name} now serves ${added} more pin codes in ${city.city}; average delivery time is ${minutes} minutes and orders grew ${growth}% quarter on quarter.`,
        detail: `${retailer.name} is adding dark-store capacity ahead of the festive season, with ${city.city} among its fastest-growing markets in ${city.state}.`,
        metrics: { pin_codes_added: added, avg_delivery_min: minutes, order_growth_qoq_pct: growth },
        sourceKinds: ['company_newsroom', 'business_press'],
      };
    }
    case 'market_update': {
      const seg = random.chance(0.45) ? ('quick commerce' as Segment) : random.pick(SEGMENTS);
      const growth = random.float(seg === 'quick commerce' ? 28 : 4, seg === 'quick commerce' ? 95 : 32);
      const share = random.float(2, 38);
      return {
        retailers: [],
        segments: [seg],
        cities: [city],
        title: `${capitalise(seg)} in ${city.city} grows ${growth}% year on year`,
        summary: `${capitalise(seg)} gross order value in ${city.city} grew ${growth}% year on year in Q${quarter}; it now makes up ${share}% of urban ${seg === 'quick commerce' ? 'grocery' : seg} spend there.`,
        detail: `Demand in ${city.city} is led by ${random.pick(['young households', 'premium neighbourhoods', 'new residential corridors', 'festive buying', 'repeat monthly baskets'])}; growth in tier-${city.tier} ${city.state} markets is ${random.chance(0.5) ? 'accelerating' : 'steady'}.`,
        metrics: { gov_growth_yoy_pct: growth, share_of_spend_pct: share },
        sourceKinds: ['industry_body', 'business_press'],
      };
    }
    case 'pricing': {
      const change = random.float(-18, 12);
      const category = random.pick(PRICE_CATEGORIES[segment]);
      return {
        ...base,
        title: `${retailer.name} ${change < 0 ? 'cuts' : 'raises'} ${category} prices in ${city.city}`,
        summary: `Average ${category} prices at ${retailer.name} in ${city.city} moved ${change > 0 ? '+' : ''}${change}% week on week, the ${Math.abs(change) > 9 ? 'largest' : 'latest'} move tracked this quarter.`,
        detail: `Competing ${segment} players in ${city.city} ${random.chance(0.5) ? 'matched the move within days' : 'held prices'}, per the tracker's basket of ${random.int(40, 400)} items.`,
        metrics: { avg_price_change_pct: change },
        sourceKinds: ['price_tracker'],
      };
    }
    case 'hiring': {
      const roles = random.int(40, 6_000);
      const role = random.pick(ROLES[segment]);
      return {
        ...base,
        title: `${retailer.name} is hiring ${roles.toLocaleString('en-IN')} ${role} in ${city.city}`,
        summary: `${retailer.name} listed ${roles.toLocaleString('en-IN')} open ${role} roles in ${city.city}, ${random.float(5, 120)}% more than a month earlier.`,
        detail: `Listings point to ${segment} capacity build-out in ${city.state}; median advertised pay is ₹${random.int(14, 60)},000 a month.`,
        metrics: { open_roles: roles },
        sourceKinds: ['job_board'],
      };
    }
    case 'results': {
      const revenue = random.int(120, 18_000);
      const growth = random.float(-6, 48);
      const margin = random.float(-12, 14);
      return {
        ...base,
        title: `${retailer.parent ?? retailer.name} Q${quarter} FY${fy}: revenue ${formatInr(revenue)}, ${growth >= 0 ? 'up' : 'down'} ${Math.abs(growth)}%`,
        summary: `${retailer.parent ?? retailer.name} reported Q${quarter} FY${fy} revenue of ${formatInr(revenue)} (${growth >= 0 ? '+' : ''}${growth}% YoY) with an EBITDA margin of ${margin}%.`,
        detail: `${retailer.name} contributed the bulk of growth; management flagged ${random.pick(['store additions', 'higher average order values', 'private labels', 'festive demand', 'lower discounting'])} as the driver.`,
        metrics: { revenue_cr: revenue, revenue_growth_yoy_pct: growth, ebitda_margin_pct: margin },
        sourceKinds: retailer.listed ? ['exchange_filing', 'business_press'] : ['business_press'],
      };
    }
    case 'funding': {
      const amount = random.int(50, 5_000);
      const investor = random.pick(['Temasek', 'GIC', 'Peak XV', 'Accel', 'Lightspeed', 'Motilal Oswal', 'ADIA', 'General Catalyst', 'Nexus Venture Partners', 'a family office']);
      return {
        ...base,
        title: `${retailer.name} raises ${formatInr(amount)} led by ${investor}`,
        summary: `${retailer.name} raised ${formatInr(amount)} in a round led by ${investor}, to fund expansion in ${city.city} and other ${segment} markets.`,
        detail: `The round values the business at about ${formatInr(amount * random.int(6, 22))}. Proceeds go to supply chain, technology and new markets.`,
        metrics: { amount_cr: amount },
        sourceKinds: ['business_press', 'exchange_filing'],
      };
    }
    case 'partnership': {
      const outlets = random.int(10, 300);
      const partner = random.pick(['ONDC', 'PhonePe', 'Paytm', 'HDFC Bank', 'Shiprocket', 'Delhivery', 'Dunzo', 'Google Cloud', 'Meesho', 'Uber']);
      return {
        ...base,
        title: `${retailer.name} partners with ${partner} in ${city.city}`,
        summary: `${retailer.name} and ${partner} signed a partnership covering ${random.pick(['last-mile delivery', 'payments', 'loyalty', 'catalogue listing', 'returns'])} in ${city.city}, starting with ${outlets} outlets.`,
        detail: `The pilot runs for ${random.int(3, 12)} months before a wider ${city.state} roll-out.`,
        metrics: { outlets_in_pilot: outlets },
        sourceKinds: ['company_newsroom', 'business_press'],
      };
    }
    case 'app_rank': {
      const rank = random.int(1, 60);
      const change = random.int(-25, 25);
      return {
        ...base,
        title: `${retailer.name} app ${change >= 0 ? 'climbs' : 'slips'} to #${rank} in shopping`,
        summary: `${possessive(retailer.name)} app ranked #${rank} among shopping apps in India (${change >= 0 ? 'up' : 'down'} ${Math.abs(change)} places), with downloads strongest in ${city.city}.`,
        detail: `Download share in ${city.state} was ${random.float(3, 30)}% of the national total this week.`,
        metrics: { rank, rank_change: change },
        sourceKinds: ['app_store_rank'],
      };
    }
    case 'regulation': {
      const regulator = random.pick(REGULATORS);
      const seg = random.pick(regulator.segments);
      const rule = random.pick(['draft guidelines', 'a compliance advisory', 'new labelling rules', 'an inquiry', 'revised licensing norms', 'a consultation paper']);
      return {
        retailers: [],
        segments: [seg],
        cities: [city],
        title: `${regulator.name} issues ${rule} for ${seg}`,
        summary: `${regulator.name} issued ${rule} affecting ${seg} operators, with ${city.state} among the first states to implement.`,
        detail: `Operators have ${random.int(30, 180)} days to comply. Industry bodies expect costs to rise ${random.float(0.5, 4)}% of sales for smaller players.`,
        metrics: { compliance_days: random.int(30, 180) },
        sourceKinds: ['government_release', 'business_press'],
      };
    }
  }
}

/** "Kalyan Jewellers' app", "Zepto's app". */
function possessive(name: string): string {
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}

/** "1 store", "12 stores" (units given in the plural). */
function count(n: number, plural: string): string {
  if (n !== 1) return `${n} ${plural}`;
  return `1 ${plural.replace(/ies$/, 'y').replace(/s$/, '')}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function chooseSource(random: SeededRandom, draft: Draft, byKind: Map<SourceKind, CorpusSource[]>): CorpusSource {
  const kind = random.pick(draft.sourceKinds);
  let pool = byKind.get(kind) ?? [];
  if (kind === 'price_tracker') {
    const fitting = pool.filter((source) => draft.segments.includes(PRICE_TRACKER_SEGMENTS[source.name] as Segment));
    if (fitting.length > 0) pool = fitting;
  }
  if (kind === 'industry_body') {
    const voices = new Set(draft.segments.flatMap((segment) => INDUSTRY_VOICES[segment]));
    const fitting = pool.filter((source) => voices.has(source.name));
    if (fitting.length > 0) pool = fitting;
  }
  if (kind === 'company_newsroom' || kind === 'store_locator') {
    const own = pool.filter((source) => source.retailer && draft.retailers.includes(source.retailer));
    pool = own.length > 0 ? own : (byKind.get('business_press') ?? []);
  }
  return random.pick(pool);
}

/** Builds one signal; also used by the live feed for new arrivals. */
export function makeSignal(
  random: SeededRandom,
  index: number,
  seed: number,
  publishedAt: Date,
  byKind: Map<SourceKind, CorpusSource[]>,
): CorpusSignal {
  const type = pickType(random);
  const draft = draftSignal(random, type, publishedAt);
  const source = chooseSource(random, draft, byKind);
  const id = `sig_${stableHex16(`${seed}:${index}:${draft.title}`)}`;
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
  };
}

export function groupSourcesByKind(sources: CorpusSource[]): Map<SourceKind, CorpusSource[]> {
  const byKind = new Map<SourceKind, CorpusSource[]>();
  for (const source of sources) {
    const list = byKind.get(source.kind) ?? [];
    list.push(source);
    byKind.set(source.kind, list);
  }
  return byKind;
}

export function generateCorpus(options: CorpusOptions = {}): Corpus {
  const seed = options.seed ?? DEFAULT_SEED;
  const count = options.signalCount ?? DEFAULT_SIGNAL_COUNT;
  const anchorMs = (options.anchor ?? DEFAULT_ANCHOR).getTime();
  const random = new SeededRandom(seed);
  const sources = generateSources(random);
  const kinds: SourceKind[] = ['business_press', 'price_tracker', 'job_board', 'store_locator', 'app_store_rank', 'industry_body'];
  for (let i = sources.length; i < (options.sourceCount ?? 0); i += 1) {
    const city = random.pick(CITIES);
    const kind = random.pick(kinds);
    sources.push(makeSource(random, kind, `${city.city} ${kind.replace(/_/g, ' ')} feed ${i}`, `feed-${i}.${slugify(city.city)}`));
  }
  const byKind = groupSourcesByKind(sources);
  const signals: CorpusSignal[] = [];
  for (let index = 0; index < count; index += 1) {
    // Squaring the roll skews publication towards recent months, as real feeds grow.
    const ageDays = random.next() ** 1.6 * SPAN_DAYS;
    const publishedAt = new Date(Math.floor((anchorMs - ageDays * DAY_MS) / 1000) * 1000);
    signals.push(makeSignal(random, index, seed, publishedAt, byKind));
  }
  signals.sort((a, b) => b.published_at.localeCompare(a.published_at));
  return { sources, signals };
}
