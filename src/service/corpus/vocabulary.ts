/**
 * The real-world vocabulary of the corpus: segments, retailers, cities and source names of
 * India's retail sector. Figures in generated signals are synthetic; these names are not.
 */

export const SEGMENTS = [
  'grocery',
  'quick commerce',
  'fashion',
  'electronics',
  'beauty',
  'jewellery',
  'pharmacy',
] as const;
export type Segment = (typeof SEGMENTS)[number];

/** Extra ways analysts write a segment, used by retrieval to spot it in a question. */
export const SEGMENT_ALIASES: Record<Segment, string[]> = {
  grocery: ['grocery', 'groceries', 'supermarket', 'supermarkets', 'fmcg', 'kirana'],
  'quick commerce': ['quick commerce', 'q-commerce', 'qcommerce', 'quick-commerce', 'q comm', 'q-comm', 'quick comm', 'dark store', 'dark stores', '10-minute delivery', 'instant delivery'],
  fashion: ['fashion', 'apparel', 'clothing', 'value fashion', 'kapde'],
  electronics: ['electronics', 'consumer electronics', 'smartphones', 'appliances'],
  beauty: ['beauty', 'cosmetics', 'personal care', 'skincare'],
  jewellery: ['jewellery', 'jewelry', 'gold', 'diamonds', 'jewellers'],
  pharmacy: ['pharmacy', 'pharmacies', 'e-pharmacy', 'medicines', 'chemist', 'pharma'],
};

export interface Retailer {
  name: string;
  segment: Segment;
  parent?: string;
  /** Short domain stem for synthetic newsroom URLs (under the reserved `.example` TLD). */
  stem: string;
  listed: boolean;
  /** Sells online only: no store network to count. */
  online?: boolean;
}

/**
 * Other ways analysts write a retailer (normalised: lower case; spaces, hyphens and
 * apostrophes are ignored when matching). Parent names shared by several brands
 * (Trent, Reliance Retail, Titan, Tata Digital, Flipkart) resolve to all of them.
 */
export const RETAILER_ALIASES: Record<string, string[]> = {
  DMart: ['d-mart', 'd mart', 'avenue supermarts', 'avenue supermart', 'dmart ready'],
  'Reliance Smart': ['smart bazaar', 'reliance smart bazaar'],
  'More Retail': ['more supermarket', 'more megastore'],
  "Spencer's": ['spencers', "spencer's retail"],
  "Nature's Basket": ['natures basket'],
  BigBasket: ['big basket'],
  Blinkit: ['blink it', 'grofers', 'eternal', 'zomato'],
  'Swiggy Instamart': ['instamart', 'swiggy'],
  'Flipkart Minutes': ['fk minutes'],
  'BB Now': ['bbnow', 'bigbasket now'],
  'Amazon Now': ['amazon'],
  'Max Fashion': ['max fashions'],
  Pantaloons: ['abfrl', 'aditya birla fashion'],
  'V-Mart': ['vmart', 'v mart'],
  'Shoppers Stop': ['shoppersstop'],
  Croma: ['infiniti retail'],
  Nykaa: ['fsn e-commerce', 'fsn'],
  'Sugar Cosmetics': ['sugar cosmetic'],
  'Kalyan Jewellers': ['kalyan'],
  'Malabar Gold & Diamonds': ['malabar gold', 'malabar'],
  'Senco Gold': ['senco'],
  CaratLane: ['carat lane'],
  'Apollo Pharmacy': ['apollo'],
  MedPlus: ['med plus'],
  'Tata 1mg': ['1mg'],
  PharmEasy: ['pharm easy'],
};

/** Other names of cities (old names, short forms). */
export const CITY_ALIASES: Record<string, string[]> = {
  Bengaluru: ['bangalore', 'blr', 'bengaluru city'],
  Mumbai: ['bombay'],
  Delhi: ['new delhi', 'dilli', 'delhi ncr'],
  Gurugram: ['gurgaon'],
  Kolkata: ['calcutta'],
  Chennai: ['madras'],
  Kochi: ['cochin'],
  Visakhapatnam: ['vizag'],
  Bhubaneswar: ['bhubaneshwar'],
};

export const RETAILERS: Retailer[] = [
  { name: 'DMart', segment: 'grocery', parent: 'Avenue Supermarts', stem: 'dmart', listed: true },
  { name: 'Reliance Smart', segment: 'grocery', parent: 'Reliance Retail', stem: 'reliancesmart', listed: false },
  { name: 'More Retail', segment: 'grocery', stem: 'moreretail', listed: false },
  { name: "Spencer's", segment: 'grocery', parent: "Spencer's Retail", stem: 'spencers', listed: true },
  { name: "Nature's Basket", segment: 'grocery', stem: 'naturesbasket', listed: false },
  { name: 'Star Bazaar', segment: 'grocery', parent: 'Trent', stem: 'starbazaar', listed: false },
  { name: 'BigBasket', segment: 'grocery', parent: 'Tata Digital', stem: 'bigbasket', listed: false, online: true },
  { name: 'Blinkit', segment: 'quick commerce', parent: 'Eternal', stem: 'blinkit', listed: true },
  { name: 'Zepto', segment: 'quick commerce', stem: 'zepto', listed: false },
  { name: 'Swiggy Instamart', segment: 'quick commerce', parent: 'Swiggy', stem: 'instamart', listed: true },
  { name: 'Flipkart Minutes', segment: 'quick commerce', parent: 'Flipkart', stem: 'flipkartminutes', listed: false },
  { name: 'BB Now', segment: 'quick commerce', parent: 'BigBasket', stem: 'bbnow', listed: false },
  { name: 'Amazon Now', segment: 'quick commerce', parent: 'Amazon India', stem: 'amazonnow', listed: false },
  { name: 'Zudio', segment: 'fashion', parent: 'Trent', stem: 'zudio', listed: true },
  { name: 'Westside', segment: 'fashion', parent: 'Trent', stem: 'westside', listed: true },
  { name: 'Reliance Trends', segment: 'fashion', parent: 'Reliance Retail', stem: 'trends', listed: false },
  { name: 'Max Fashion', segment: 'fashion', parent: 'Landmark Group', stem: 'maxfashion', listed: false },
  { name: 'Pantaloons', segment: 'fashion', parent: 'Aditya Birla Fashion', stem: 'pantaloons', listed: true },
  { name: 'Myntra', segment: 'fashion', parent: 'Flipkart', stem: 'myntra', listed: false, online: true },
  { name: 'Ajio', segment: 'fashion', parent: 'Reliance Retail', stem: 'ajio', listed: false, online: true },
  { name: 'Shoppers Stop', segment: 'fashion', stem: 'shoppersstop', listed: true },
  { name: 'V-Mart', segment: 'fashion', stem: 'vmart', listed: true },
  { name: 'Croma', segment: 'electronics', parent: 'Infiniti Retail', stem: 'croma', listed: false },
  { name: 'Reliance Digital', segment: 'electronics', parent: 'Reliance Retail', stem: 'reliancedigital', listed: false },
  { name: 'Vijay Sales', segment: 'electronics', stem: 'vijaysales', listed: false },
  { name: 'Poorvika', segment: 'electronics', stem: 'poorvika', listed: false },
  { name: 'Nykaa', segment: 'beauty', parent: 'FSN E-Commerce', stem: 'nykaa', listed: true },
  { name: 'Purplle', segment: 'beauty', stem: 'purplle', listed: false, online: true },
  { name: 'Tira', segment: 'beauty', parent: 'Reliance Retail', stem: 'tira', listed: false },
  { name: 'Sugar Cosmetics', segment: 'beauty', stem: 'sugar', listed: false, online: true },
  { name: 'Tanishq', segment: 'jewellery', parent: 'Titan', stem: 'tanishq', listed: true },
  { name: 'Kalyan Jewellers', segment: 'jewellery', stem: 'kalyan', listed: true },
  { name: 'Malabar Gold & Diamonds', segment: 'jewellery', stem: 'malabar', listed: false },
  { name: 'Senco Gold', segment: 'jewellery', stem: 'senco', listed: true },
  { name: 'CaratLane', segment: 'jewellery', parent: 'Titan', stem: 'caratlane', listed: false },
  { name: 'Apollo Pharmacy', segment: 'pharmacy', parent: 'Apollo Hospitals', stem: 'apollopharmacy', listed: true },
  { name: 'MedPlus', segment: 'pharmacy', stem: 'medplus', listed: true },
  { name: 'Tata 1mg', segment: 'pharmacy', parent: 'Tata Digital', stem: '1mg', listed: false, online: true },
  { name: 'PharmEasy', segment: 'pharmacy', stem: 'pharmeasy', listed: false, online: true },
  { name: 'Netmeds', segment: 'pharmacy', parent: 'Reliance Retail', stem: 'netmeds', listed: false, online: true },
];

export const CITIES: Array<{ city: string; state: string; tier: 1 | 2 }> = [
  { city: 'Bengaluru', state: 'Karnataka', tier: 1 },
  { city: 'Mumbai', state: 'Maharashtra', tier: 1 },
  { city: 'Delhi', state: 'Delhi', tier: 1 },
  { city: 'Hyderabad', state: 'Telangana', tier: 1 },
  { city: 'Chennai', state: 'Tamil Nadu', tier: 1 },
  { city: 'Kolkata', state: 'West Bengal', tier: 1 },
  { city: 'Pune', state: 'Maharashtra', tier: 1 },
  { city: 'Ahmedabad', state: 'Gujarat', tier: 1 },
  { city: 'Gurugram', state: 'Haryana', tier: 1 },
  { city: 'Noida', state: 'Uttar Pradesh', tier: 1 },
  { city: 'Jaipur', state: 'Rajasthan', tier: 2 },
  { city: 'Lucknow', state: 'Uttar Pradesh', tier: 2 },
  { city: 'Surat', state: 'Gujarat', tier: 2 },
  { city: 'Kochi', state: 'Kerala', tier: 2 },
  { city: 'Coimbatore', state: 'Tamil Nadu', tier: 2 },
  { city: 'Indore', state: 'Madhya Pradesh', tier: 2 },
  { city: 'Chandigarh', state: 'Chandigarh', tier: 2 },
  { city: 'Bhubaneswar', state: 'Odisha', tier: 2 },
  { city: 'Patna', state: 'Bihar', tier: 2 },
  { city: 'Guwahati', state: 'Assam', tier: 2 },
  { city: 'Nagpur', state: 'Maharashtra', tier: 2 },
  { city: 'Visakhapatnam', state: 'Andhra Pradesh', tier: 2 },
];

export const PRESS = [
  'ET Retail', 'Mint', 'Business Standard', 'Moneycontrol', 'Financial Express', 'Inc42', 'YourStory',
  'Entrackr', 'The Ken', 'Business Today', 'Forbes India', 'CNBC-TV18', 'The Hindu BusinessLine',
  'Economic Times', 'Fortune India', 'The Morning Context', 'Deccan Herald Business', 'Hindustan Times Business',
  'Times of India Business', 'Indian Express Business',
];

export const REGULATORS = [
  { name: 'DPIIT', segments: ['grocery', 'quick commerce', 'fashion', 'electronics'] as Segment[] },
  { name: 'Ministry of Consumer Affairs', segments: ['quick commerce', 'grocery', 'electronics'] as Segment[] },
  { name: 'FSSAI', segments: ['grocery', 'quick commerce'] as Segment[] },
  { name: 'Competition Commission of India', segments: ['quick commerce', 'grocery', 'pharmacy'] as Segment[] },
  { name: 'CDSCO', segments: ['pharmacy'] as Segment[] },
  { name: 'Bureau of Indian Standards', segments: ['jewellery', 'electronics'] as Segment[] },
  { name: 'GST Council', segments: ['fashion', 'electronics', 'jewellery', 'beauty'] as Segment[] },
  { name: 'Karnataka Labour Department', segments: ['quick commerce'] as Segment[] },
  { name: 'Maharashtra Industries Department', segments: ['grocery', 'fashion'] as Segment[] },
  { name: 'Delhi Municipal Corporation', segments: ['quick commerce', 'grocery'] as Segment[] },
];

export const INDUSTRY_BODIES = [
  'Retailers Association of India', 'CII Retail Council', 'FICCI Retail Committee', 'IBEF',
  'NASSCOM Consumer Internet', 'All India Gem & Jewellery Domestic Council', 'Indian Beauty & Hygiene Association',
  'All India Organisation of Chemists and Druggists', 'Consumer Electronics and Appliances Manufacturers Association',
  'Clothing Manufacturers Association of India',
];

export const JOB_BOARDS = ['Naukri', 'LinkedIn India', 'Indeed India', 'foundit', 'Apna', 'WorkIndia'];
export const APP_RANK_TRACKERS = ['Google Play India shopping ranks', 'App Store India shopping ranks', 'Sensor-style app intelligence (IN)', 'Appfigures India'];
/** Price trackers and the segment each one follows. */
export const PRICE_TRACKER_SEGMENTS: Record<string, Segment> = {
  'Kirana price panel': 'grocery',
  'Quick commerce basket tracker': 'quick commerce',
  'Fashion markdown tracker': 'fashion',
  'Electronics price watch': 'electronics',
  'Beauty price index': 'beauty',
  'Gold rate tracker': 'jewellery',
  'Pharmacy discount monitor': 'pharmacy',
};
export const PRICE_TRACKERS = Object.keys(PRICE_TRACKER_SEGMENTS);
export const EXCHANGES = ['NSE filings', 'BSE filings'];
