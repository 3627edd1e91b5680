/**
 * One-off developments that carry no series (a price move, a hiring drive, a partnership, an
 * app-rank move, a regulator's notice, a pin-code expansion): each figure belongs to its own
 * signal, so they never contradict the ground truth. The live feed writes these too.
 */
import type { SeededRandom } from './random';
import { PARTNERS } from '../world/gazetteer';
import { CITIES, REGULATORS, RETAILERS, type Retailer, type Segment } from './vocabulary';

export type FillerType = 'pricing' | 'hiring' | 'partnership' | 'app_rank' | 'regulation' | 'expansion';

export interface TextDraft {
  title: string;
  summary: string;
  detail: string;
  metrics: Record<string, number>;
  retailers: string[];
  segments: Segment[];
  cities: Array<(typeof CITIES)[number]>;
  sourceKinds: string[];
  /** The one source that can publish it as its own release (a regulator's notice); others only report it. */
  publisher?: string;
}

const WEIGHTS: Array<[FillerType, number]> = [
  ['pricing', 16],
  ['hiring', 12],
  ['partnership', 9],
  ['app_rank', 13],
  ['regulation', 6],
  ['expansion', 10],
];
const TOTAL = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);

export function pickFillerType(random: SeededRandom): FillerType {
  let roll = random.next() * TOTAL;
  for (const [type, weight] of WEIGHTS) {
    roll -= weight;
    if (roll < 0) return type;
  }
  return 'pricing';
}

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

export function possessive(name: string): string {
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}

export function draftFiller(random: SeededRandom, type: FillerType): TextDraft {
  const retailer: Retailer = random.pick(RETAILERS);
  const city = random.pick(CITIES);
  const segment = retailer.segment;
  const base = { retailers: [retailer.name], segments: [segment] as Segment[], cities: [city] };
  switch (type) {
    case 'pricing': {
      const change = random.float(-18, 12);
      const category = random.pick(PRICE_CATEGORIES[segment]);
      const basket = random.int(40, 400);
      return {
        ...base,
        title: `${retailer.name} ${change < 0 ? 'cuts' : 'raises'} ${category} prices in ${city.city}`,
        summary: `Average ${category} prices at ${retailer.name} in ${city.city} moved ${change > 0 ? '+' : ''}${change}% week on week, per a tracked basket of ${basket} items.`,
        detail: `Competing ${segment} players in ${city.city} ${random.chance(0.5) ? 'matched the move within days' : 'held prices'}.`,
        metrics: { avg_price_change_pct: change },
        sourceKinds: ['price_tracker'],
      };
    }
    case 'hiring': {
      const roles = random.int(40, 6_000);
      const role = random.pick(ROLES[segment]);
      const pay = random.int(14, 60);
      return {
        ...base,
        title: `${retailer.name} is hiring ${roles.toLocaleString('en-IN')} ${role} in ${city.city}`,
        summary: `${retailer.name} listed ${roles.toLocaleString('en-IN')} open ${role} roles in ${city.city}; median advertised pay is ₹${pay},000 a month.`,
        detail: `Listings point to ${segment} capacity build-out in ${city.state}.`,
        metrics: { open_roles: roles },
        sourceKinds: ['job_board'],
      };
    }
    case 'partnership': {
      const outlets = random.int(10, 300);
      const partner = random.pick(PARTNERS);
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
      // A state body acts in its own state: its notice is about a city there, never elsewhere.
      const where = regulator.jurisdiction ? random.pick(CITIES.filter((candidate) => candidate.state === regulator.jurisdiction)) : city;
      const rule = random.pick(['draft guidelines', 'a compliance advisory', 'new labelling rules', 'an inquiry', 'revised licensing norms', 'a consultation paper']);
      const days = random.int(30, 180);
      return {
        retailers: [],
        segments: [seg],
        cities: [where],
        title: `${regulator.name} issues ${rule} for ${seg}`,
        summary: regulator.jurisdiction
          ? `${regulator.name} issued ${rule} affecting ${seg} operators in ${regulator.jurisdiction}, starting with ${where.city}.`
          : `${regulator.name} issued ${rule} affecting ${seg} operators, with ${where.state} among the first states to implement.`,
        detail: `Operators have ${days} days to comply. Industry bodies expect costs to rise ${random.float(0.5, 4)}% of sales for smaller players.`,
        metrics: { compliance_days: days },
        sourceKinds: ['government_release', 'business_press'],
        publisher: regulator.name,
      };
    }
    case 'expansion': {
      if (segment === 'quick commerce') {
        const added = random.int(5, 120);
        const minutes = random.int(8, 30);
        return {
          ...base,
          title: `${retailer.name} expands to ${added} new pin codes in ${city.city}`,
          summary: `${retailer.name} now serves ${added} more pin codes in ${city.city}; average delivery time there is ${minutes} minutes.`,
          detail: `${retailer.name} is adding delivery capacity in ${city.state} ahead of peak demand.`,
          metrics: { pin_codes_added: added, avg_delivery_min: minutes },
          sourceKinds: ['company_newsroom', 'business_press'],
        };
      }
      const format = random.pick(['a larger-format store', 'a new store design', 'an express format', 'a flagship store']);
      return {
        ...base,
        title: `${retailer.name} pilots ${format} in ${city.city}`,
        summary: `${retailer.name} is piloting ${format} in ${city.city}, aimed at ${random.pick(['young households', 'premium neighbourhoods', 'new residential corridors', 'repeat monthly baskets'])}.`,
        detail: `If the pilot works, the format will roll out across ${city.state}.`,
        metrics: {},
        sourceKinds: ['company_newsroom', 'business_press'],
      };
    }
  }
}
