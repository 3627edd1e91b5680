/**
 * The sample generator's view of the world: the built-in gazetteer's names (world/gazetteer.json)
 * plus what only the generator needs, the domain stems of its synthetic URLs and the cities it
 * weights as the biggest markets. Figures in generated signals are synthetic; the names are not.
 */
import * as world from '../world/gazetteer';

export {
  APP_RANK_TRACKERS,
  CITY_ALIASES,
  EXCHANGES,
  INDUSTRY_BODIES,
  JOB_BOARDS,
  PRESS,
  PRICE_TRACKER_SEGMENTS,
  PRICE_TRACKERS,
  REGULATORS,
  RETAILER_ALIASES,
  SEGMENT_ALIASES,
  SEGMENTS,
  type Segment,
} from '../world/gazetteer';

/** Short domain stem of each retailer, for synthetic newsroom URLs (under the reserved `.example` TLD) and event ids. */
const STEMS: Record<string, string> = {
  DMart: 'dmart', 'Reliance Smart': 'reliancesmart', 'More Retail': 'moreretail', "Spencer's": 'spencers', "Nature's Basket": 'naturesbasket',
  'Star Bazaar': 'starbazaar', BigBasket: 'bigbasket', Blinkit: 'blinkit', Zepto: 'zepto', 'Swiggy Instamart': 'instamart',
  'Flipkart Minutes': 'flipkartminutes', 'BB Now': 'bbnow', 'Amazon Now': 'amazonnow', Zudio: 'zudio', Westside: 'westside',
  'Reliance Trends': 'trends', 'Max Fashion': 'maxfashion', Pantaloons: 'pantaloons', Myntra: 'myntra', Ajio: 'ajio',
  'Shoppers Stop': 'shoppersstop', 'V-Mart': 'vmart', Croma: 'croma', 'Reliance Digital': 'reliancedigital', 'Vijay Sales': 'vijaysales',
  Poorvika: 'poorvika', Nykaa: 'nykaa', Purplle: 'purplle', Tira: 'tira', 'Sugar Cosmetics': 'sugar', Tanishq: 'tanishq',
  'Kalyan Jewellers': 'kalyan', 'Malabar Gold & Diamonds': 'malabar', 'Senco Gold': 'senco', CaratLane: 'caratlane',
  'Apollo Pharmacy': 'apollopharmacy', MedPlus: 'medplus', 'Tata 1mg': '1mg', PharmEasy: 'pharmeasy', Netmeds: 'netmeds',
};

export interface Retailer extends world.Retailer {
  stem: string;
}

export const RETAILERS: Retailer[] = world.RETAILERS.map((retailer) => {
  const stem = STEMS[retailer.name];
  if (!stem) throw new Error(`corpus/vocabulary: no URL stem for ${retailer.name}`);
  return { ...retailer, stem };
});

/** The cities the generator treats as the biggest markets (tier 1 of its sampling; not the HRA classification). */
const BIG_MARKETS = new Set(['Bengaluru', 'Mumbai', 'Delhi', 'Hyderabad', 'Chennai', 'Kolkata', 'Pune', 'Ahmedabad', 'Gurugram', 'Noida']);

export const CITIES: Array<{ city: string; state: string; tier: 1 | 2 }> = world.CITIES.map((city) => ({ ...city, tier: BIG_MARKETS.has(city.city) ? 1 : 2 }));
