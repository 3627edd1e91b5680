/**
 * A feed about retailers, brands and people the built-in gazetteer does not know (issue 43):
 * the fixture web serves it (`/open-world.xml`, RSS with Markdown and HTML in descriptions, an
 * item at 23:30 UTC, figures, aliases the items give), the tests ask about it, and the eval's
 * open_world section reads it as a labelled set: each item lists the names a reader would mark
 * in it (the canonical name also when the item only writes an alias). Figures are invented.
 */
import type { FixtureItem } from './fixture-web';

export interface OpenWorldEntity {
  name: string;
  kind: 'retailer' | 'brand' | 'organisation' | 'person';
  /** Aliases the items give ("VMM"). */
  aliases: string[];
  segment: string | null;
  cities: string[];
}

export interface LabelledItem extends FixtureItem {
  /** Names a reader would mark (canonical), unknown to the gazetteer. */
  names: string[];
}

export const OPEN_WORLD_ENTITIES: OpenWorldEntity[] = [
  { name: 'Vishal Mega Mart', kind: 'retailer', aliases: ['VMM'], segment: 'grocery', cities: ['Lucknow'] },
  { name: 'Nilgiri Threads', kind: 'retailer', aliases: ['NTL', 'Nilgiri Threads Ltd'], segment: 'fashion', cities: ['Coimbatore'] },
  { name: 'DealShare', kind: 'retailer', aliases: [], segment: 'grocery', cities: ['Jaipur'] },
  { name: 'FirstCry', kind: 'retailer', aliases: [], segment: null, cities: ['Pune'] },
  { name: 'Lenskart', kind: 'retailer', aliases: [], segment: null, cities: ['Delhi'] },
  { name: 'Licious', kind: 'retailer', aliases: [], segment: 'grocery', cities: ['Bengaluru'] },
  { name: 'Ratnadeep Supermarket', kind: 'retailer', aliases: ['Ratnadeep'], segment: 'grocery', cities: ['Hyderabad'] },
  { name: 'Sahyadri Farms', kind: 'organisation', aliases: [], segment: 'grocery', cities: ['Nashik'] },
  { name: 'Jumbotail', kind: 'retailer', aliases: [], segment: 'grocery', cities: ['Bengaluru'] },
  { name: 'Pepperfry', kind: 'retailer', aliases: [], segment: null, cities: ['Mumbai'] },
  { name: 'Bewakoof', kind: 'brand', aliases: [], segment: 'fashion', cities: ['Mumbai'] },
  { name: 'Chumbak', kind: 'brand', aliases: [], segment: null, cities: ['Bengaluru'] },
  { name: 'Snitch', kind: 'brand', aliases: [], segment: 'fashion', cities: ['Bengaluru'] },
  { name: 'Rare Rabbit', kind: 'brand', aliases: [], segment: 'fashion', cities: ['Mumbai'] },
  { name: 'BlueStone', kind: 'retailer', aliases: [], segment: 'jewellery', cities: ['Chennai'] },
  { name: 'Country Delight', kind: 'brand', aliases: [], segment: 'grocery', cities: ['Gurugram'] },
  { name: 'Kapila Krishi Bazaar', kind: 'retailer', aliases: ['KKB'], segment: 'grocery', cities: ['Indore'] },
  { name: 'Sleepy Owl', kind: 'brand', aliases: [], segment: 'grocery', cities: ['Delhi'] },
  { name: 'Konkan Coast Foods', kind: 'organisation', aliases: ['KCF', 'Konkan Coast Foods Pvt Ltd'], segment: 'grocery', cities: ['Ratnagiri'] },
  { name: 'Heritage Threads', kind: 'retailer', aliases: ['HT Stores'], segment: 'fashion', cities: ['Kolkata'] },
  { name: 'Ananya Raghavan', kind: 'person', aliases: [], segment: null, cities: [] },
  { name: 'Farah Qureshi', kind: 'person', aliases: [], segment: null, cities: [] },
  { name: 'Sandeep Bhatia', kind: 'person', aliases: [], segment: null, cities: [] },
  { name: 'Meera Kulkarni', kind: 'person', aliases: [], segment: null, cities: [] },
  { name: 'Karthik Iyer', kind: 'person', aliases: [], segment: null, cities: [] },
  { name: 'Vikram Sethi', kind: 'person', aliases: [], segment: null, cities: [] },
  { name: 'Deepa Nair', kind: 'person', aliases: [], segment: null, cities: [] },
  { name: 'Rohan Mehta', kind: 'person', aliases: [], segment: null, cities: [] },
];

const T0 = Date.parse('2026-11-10T04:00:00Z');
const at = (hours: number): string => new Date(T0 + hours * 3_600_000).toISOString();

/** Written one by one: aliases, Markdown and HTML, people with their roles, the 23:30 UTC item. */
const HAND_WRITTEN: LabelledItem[] = [
  { id: 'vmm-lucknow', title: 'Vishal Mega Mart opens 12 stores in Lucknow and Kanpur', html: '<h1>Vishal Mega Mart opens 12 stores</h1><p>Value retailer <strong>Vishal Mega Mart / VMM</strong> opened 12 stores in Lucknow and Kanpur in October, taking its network to 680 stores. Chief financial officer Sandeep Bhatia said revenue grew 21% to ₹2,850 crore.</p>', published: at(0), names: ['Vishal Mega Mart', 'Sandeep Bhatia'] },
  { id: 'vmm-late', title: 'VMM plans 40 more stores in tier-2 towns', html: '# VMM sets out its plan\n\n**Vishal Mega Mart** said on Tuesday it would open 40 more stores in Uttar Pradesh and Bihar by March, most of them in smaller towns. Its stores stock groceries, apparel and home goods.', published: '2026-11-12T23:30:00.000Z', names: ['Vishal Mega Mart'] },
  { id: 'ntl-results', title: 'Nilgiri Threads Ltd (NTL) posts record quarter', html: '<p>Nilgiri Threads Ltd (NTL), the Coimbatore apparel maker and retailer, said revenue rose 18% to ₹420 crore in Q2. Chief executive Ananya Raghavan said its 140 stores in Tamil Nadu and Kerala drove the growth.</p>', published: at(3), names: ['Nilgiri Threads', 'Ananya Raghavan'] },
  { id: 'ntl-expansion', title: 'NTL to add 60 stores as Nilgiri Threads enters Karnataka', html: '<ul><li>Nilgiri Threads will open 60 stores in Karnataka over two years.</li><li>Ananya Raghavan, its chief executive, said the first will open in Mysuru.</li></ul>', published: at(30), names: ['Nilgiri Threads', 'Ananya Raghavan'] },
  { id: 'dealshare-funding', title: 'DealShare raises ₹380 crore to expand in Rajasthan', html: '<p>Social commerce grocery platform DealShare raised ₹380 crore and will expand its grocery business in Jaipur and Jodhpur, co-founder Karthik Iyer said.</p>', published: at(6), names: ['DealShare', 'Karthik Iyer'] },
  { id: 'dealshare-layoffs', title: 'DealShare trims 8% of staff, shuts two warehouses', html: 'DealShare cut 8% of its staff and closed two warehouses in Jaipur as it focuses on profitable cities, the company said in a note to employees.', published: at(50), names: ['DealShare'] },
  { id: 'firstcry-pune', title: 'FirstCry opens flagship store in Pune', html: '<p>Kids retailer FirstCry opened a 12,000 sq ft flagship store in Pune. Retail head Meera Kulkarni said the company now runs 1,050 stores.</p>', published: at(9), names: ['FirstCry', 'Meera Kulkarni'] },
  { id: 'firstcry-results', title: 'FirstCry revenue grows 24% as store sales climb', html: '*FirstCry* reported revenue of ₹1,890 crore, up 24%, with store sales growing faster than online orders. **Meera Kulkarni** said the chain would add 150 stores.', published: at(60), names: ['FirstCry', 'Meera Kulkarni'] },
  { id: 'lenskart-2000', title: 'Lenskart opens its 2,000th store in Delhi', html: '<p>Eyewear retailer Lenskart opened its 2,000th store in Delhi. Chief operating officer Farah Qureshi said 60% of new stores are outside the metros.</p>', published: at(12), names: ['Lenskart', 'Farah Qureshi'] },
  { id: 'lenskart-tier2', title: 'Lenskart bets on smaller cities for growth', html: 'Lenskart will open 300 stores in smaller cities this year, COO Farah Qureshi told investors, after same-store sales grew 11%.', published: at(72), names: ['Lenskart', 'Farah Qureshi'] },
  { id: 'licious-kochi', title: 'Licious expands to Kochi with 20 experience centres', html: '## Licious in Kerala\n\nMeat and seafood delivery brand **Licious** will open 20 experience centres in Kochi, founder Rohan Mehta said, after orders in Bengaluru rose 30%.', published: at(15), names: ['Licious', 'Rohan Mehta'] },
  { id: 'ratnadeep-hyderabad', title: 'Ratnadeep Supermarket adds 15 stores in Hyderabad', html: '<p>Hyderabad grocery chain Ratnadeep Supermarket opened 15 stores this quarter. Managing director Vikram Sethi said Ratnadeep now runs 160 supermarkets.</p>', published: at(18), names: ['Ratnadeep Supermarket', 'Vikram Sethi'] },
  { id: 'sahyadri-nashik', title: 'Sahyadri Farms to open 50 fresh produce outlets', html: 'Farmer producer company Sahyadri Farms will open 50 fresh produce outlets in Nashik and Mumbai, chairman Deepa Nair said, investing ₹75 crore.', published: at(21), names: ['Sahyadri Farms', 'Deepa Nair'] },
  { id: 'kkb-indore', title: 'Kapila Krishi Bazaar (KKB) opens 30 rural stores', html: '<p>Kapila Krishi Bazaar (KKB), an Indore-based rural retailer, opened 30 stores in Madhya Pradesh selling groceries and farm inputs.</p>', published: at(24), names: ['Kapila Krishi Bazaar'] },
  { id: 'kcf-ipo', title: 'Konkan Coast Foods Pvt Ltd (KCF) files for IPO', html: 'Konkan Coast Foods Pvt Ltd (KCF), which sells packaged cashews and kokum, filed for a ₹600 crore IPO. KCF runs 45 outlets in Ratnagiri and Goa.', published: at(27), names: ['Konkan Coast Foods'] },
  { id: 'heritage-threads', title: 'Heritage Threads / HT Stores to shut 10 outlets in Kolkata', html: '<p>Heritage Threads / HT Stores will close 10 outlets in Kolkata and move to larger stores in malls, the company said.</p>', published: at(33), names: ['Heritage Threads'] },
];

interface Fact { name: string; alias?: string; person?: string; role?: string; city: string; place: string; what: string; figure: string }

const FACTS: Fact[] = [
  { name: 'Vishal Mega Mart', alias: 'VMM', person: 'Sandeep Bhatia', role: 'chief financial officer', city: 'Lucknow', place: 'Uttar Pradesh', what: 'value retail', figure: '₹2,850 crore' },
  { name: 'Nilgiri Threads', alias: 'NTL', person: 'Ananya Raghavan', role: 'chief executive', city: 'Coimbatore', place: 'Tamil Nadu', what: 'apparel', figure: '₹420 crore' },
  { name: 'DealShare', person: 'Karthik Iyer', role: 'co-founder', city: 'Jaipur', place: 'Rajasthan', what: 'grocery', figure: '₹380 crore' },
  { name: 'FirstCry', person: 'Meera Kulkarni', role: 'retail head', city: 'Pune', place: 'Maharashtra', what: 'kids wear', figure: '₹1,890 crore' },
  { name: 'Lenskart', person: 'Farah Qureshi', role: 'chief operating officer', city: 'Delhi', place: 'Delhi', what: 'eyewear', figure: '₹1,400 crore' },
  { name: 'Licious', person: 'Rohan Mehta', role: 'founder', city: 'Bengaluru', place: 'Karnataka', what: 'meat and seafood', figure: '₹680 crore' },
  { name: 'Ratnadeep Supermarket', person: 'Vikram Sethi', role: 'managing director', city: 'Hyderabad', place: 'Telangana', what: 'grocery', figure: '₹1,120 crore' },
  { name: 'Sahyadri Farms', person: 'Deepa Nair', role: 'chairman', city: 'Nashik', place: 'Maharashtra', what: 'fresh produce', figure: '₹75 crore' },
  { name: 'Jumbotail', city: 'Bengaluru', place: 'Karnataka', what: 'wholesale grocery', figure: '₹240 crore' },
  { name: 'Pepperfry', city: 'Mumbai', place: 'Maharashtra', what: 'furniture', figure: '₹310 crore' },
  { name: 'Bewakoof', city: 'Mumbai', place: 'Maharashtra', what: 'casual fashion', figure: '₹95 crore' },
  { name: 'Chumbak', city: 'Bengaluru', place: 'Karnataka', what: 'home decor', figure: '₹60 crore' },
  { name: 'Snitch', city: 'Bengaluru', place: 'Karnataka', what: 'menswear', figure: '₹110 crore' },
  { name: 'Rare Rabbit', city: 'Mumbai', place: 'Maharashtra', what: 'premium menswear', figure: '₹520 crore' },
  { name: 'BlueStone', city: 'Chennai', place: 'Tamil Nadu', what: 'jewellery', figure: '₹770 crore' },
  { name: 'Country Delight', city: 'Gurugram', place: 'Haryana', what: 'dairy', figure: '₹1,300 crore' },
  { name: 'Kapila Krishi Bazaar', alias: 'KKB', city: 'Indore', place: 'Madhya Pradesh', what: 'rural retail', figure: '₹150 crore' },
  { name: 'Sleepy Owl', city: 'Delhi', place: 'Delhi', what: 'coffee', figure: '₹70 crore' },
  { name: 'Konkan Coast Foods', alias: 'KCF', city: 'Ratnagiri', place: 'Maharashtra', what: 'packaged foods', figure: '₹90 crore' },
  { name: 'Heritage Threads', city: 'Kolkata', place: 'West Bengal', what: 'ethnic wear', figure: '₹130 crore' },
];

/** Sentence-case headlines and bodies, the way trade news writes them ({n} the name, {a} the alias or name). */
const TEMPLATES: Array<{ title: string; body: string; person?: boolean }> = [
  { title: '{n} opens 25 stores in {city}', body: '<p>{n}, the {what} chain, opened 25 stores in {city} and across {place} in the quarter, taking its revenue to {figure}.</p>' },
  { title: '{n} raises {figure} in new funding', body: '{n} raised {figure} from investors to expand its {what} business beyond {city}, the company said on Monday.' },
  { title: '{n} reports 19% growth in quarterly revenue', body: '<p>Revenue at {a} grew 19% year-on-year to {figure}, helped by new stores in {city}. {person}</p>', person: true },
  { title: 'Why {n} is betting on smaller towns', body: 'Analysts say {n} is moving its {what} stores from {city} to smaller towns in {place}, where rents are lower and competition thinner.' },
  { title: '{n} to hire 1,200 staff for the festive season', body: '<p>{a} will hire 1,200 people for its stores in {city} ahead of Diwali. {person}</p>', person: true },
  { title: 'Festive quarter lifts {what} sales at {n}', body: 'Sales of {what} at {n} rose 27% in October as shoppers in {city} returned to stores, according to the company.' },
];

function fill(text: string, fact: Fact): string {
  const personLine = fact.person ? `${fact.role![0]!.toUpperCase()}${fact.role!.slice(1)} ${fact.person} said the company would keep adding stores.` : 'The company did not comment further.';
  return text.replace(/\{n\}/g, fact.name).replace(/\{a\}/g, fact.alias ?? fact.name).replace(/\{city\}/g, fact.city).replace(/\{place\}/g, fact.place).replace(/\{what\}/g, fact.what).replace(/\{figure\}/g, fact.figure).replace(/\{person\}/g, personLine);
}

const TEMPLATED: LabelledItem[] = FACTS.flatMap((fact, f) =>
  TEMPLATES.filter((_, t) => (f + t) % 6 < 4).map((template, t) => {
    const names = [fact.name, ...(template.person && fact.person ? [fact.person] : [])];
    return { id: `ow-${f}-${t}`, title: fill(template.title, fact), html: fill(template.body, fact), published: at(36 + f * 4 + t), names };
  }),
);

/** Items naming nobody new: a learner that makes names of their words loses precision. */
const NO_NEW_NAMES: LabelledItem[] = [
  { id: 'none-inflation', title: 'Retail Inflation Eases In October As Vegetable Prices Fall', html: 'Retail inflation eased in October as vegetable prices fell, official data showed on Tuesday.', published: at(40), names: [] },
  { id: 'none-footfall', title: 'Mall footfall rises 12% in Mumbai during Navratri', html: '<p>Footfall in malls in Mumbai rose 12% during Navratri, the Retailers Association of India said.</p>', published: at(41), names: [] },
  { id: 'none-dmart', title: 'DMart adds 8 stores in Pune', html: 'Avenue Supermarts, which runs DMart, added 8 stores in Pune and Nagpur in the quarter.', published: at(42), names: [] },
  { id: 'none-gst', title: 'GST Council trims rates on packaged foods', html: '<p>The GST Council cut rates on several packaged foods, a move retailers said would lift volumes.</p>', published: at(43), names: [] },
  { id: 'none-qcom', title: 'Quick commerce orders double in Bengaluru', html: 'Quick commerce orders doubled in Bengaluru in a year, with Blinkit and Zepto leading, data from industry trackers showed.', published: at(44), names: [] },
  { id: 'none-rural', title: 'Rural Demand Recovers, Say Consumer Goods Makers', html: 'Rural demand recovered in the September quarter, consumer goods makers said, with volumes in villages growing faster than in cities.', published: at(45), names: [] },
];

/** The labelled set (≥ 100 items): the eval measures entity learning on it. */
export const LABELLED_ITEMS: LabelledItem[] = [...HAND_WRITTEN, ...TEMPLATED, ...NO_NEW_NAMES];

/** The items the fixture web serves at /open-world.xml (hand-written ones plus the no-name ones). */
export const OPEN_WORLD_ITEMS: LabelledItem[] = [...HAND_WRITTEN, ...NO_NEW_NAMES];

/**
 * Held-out questions written from the learned entities of the labelled feed (issue 43, item 8),
 * not from the sample's ground truth: each must cite an item about `about`.
 */
export const OPEN_WORLD_QUESTIONS: Array<{ question: string; about: string }> = [
  ...OPEN_WORLD_ENTITIES.filter((entity) => entity.kind !== 'person').flatMap((entity) => [
    { question: `What did ${entity.name} announce?`, about: entity.name },
    { question: `Any recent news about ${entity.name}?`, about: entity.name },
  ]),
  ...OPEN_WORLD_ENTITIES.filter((entity) => entity.aliases.some((alias) => /^[A-Z]{2,4}$/.test(alias))).map((entity) => ({ question: `What is ${entity.aliases.find((alias) => /^[A-Z]{2,4}$/.test(alias))} doing?`, about: entity.name })),
  ...OPEN_WORLD_ENTITIES.filter((entity) => entity.kind === 'person').map((entity) => ({ question: `What did ${entity.name} say?`, about: entity.name })),
  { question: 'What did Vishal Mega Mrt announce?', about: 'Vishal Mega Mart' },
  { question: 'How is Lenskrat doing?', about: 'Lenskart' },
  { question: 'Any news on Firstcry stores?', about: 'FirstCry' },
];
