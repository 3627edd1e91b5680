/**
 * The golden set: questions generated from the corpus's ground truth (so the expected figures
 * are the true ones) plus hand-written phrasings — aliases, typos, Hinglish, follow-up chains,
 * topic switches, unknown entities and the planted conflicts. Deterministic for a corpus.
 */
import type { GroundTruth } from '../src/service/corpus/ground-truth';
import { fiscalQuarterOf, previousQuarter } from '../src/service/world/periods';
import { RETAILERS, type Segment } from '../src/service/corpus/vocabulary';

export type Category = 'figure' | 'alias' | 'typo' | 'hinglish' | 'followup' | 'topic_switch' | 'unknown' | 'conflict';

export interface GoldenItem {
  id: string;
  category: Category;
  /** Asked in order in one session; the last turn is scored. */
  turns: string[];
  expect: {
    /** Retailers (or, for market questions, the city) the answer must be about. */
    retailers?: string[];
    city?: string;
    /** True values that must appear in the direct answer. */
    figures?: number[];
    /** A planted conflict the answer must flag, naming both figures and both signals. */
    conflict?: { values: [number, number]; signals: [string, string] };
    /** A name the service has no signals about: the answer must say so and cite nothing. */
    unknown?: string;
    /** Words the answer must not be about (a topic switch must not carry the old subject). */
    notAbout?: string[];
  };
}

const unitOf = (name: string): string => (RETAILERS.find((retailer) => retailer.name === name)?.segment === 'quick commerce' ? 'dark stores' : 'stores');

/** Alias spellings an analyst uses, per retailer. */
const ALIASES: Record<string, string[]> = {
  DMart: ['D-Mart', 'Avenue Supermarts', 'D Mart'],
  'Swiggy Instamart': ['Instamart', 'Swiggy Instamart'],
  Blinkit: ['Eternal', 'Blinkit (Eternal)'],
  "Spencer's": ['Spencers'],
  'V-Mart': ['VMart', 'V Mart'],
  'Reliance Smart': ['Smart Bazaar'],
  'Kalyan Jewellers': ['Kalyan'],
  'Apollo Pharmacy': ['Apollo'],
  'Malabar Gold & Diamonds': ['Malabar Gold'],
  Croma: ['Infiniti Retail'],
  Pantaloons: ['ABFRL'],
};

const TYPOS: Array<[string, string]> = [
  ['zeptoo', 'Zepto'],
  ['Blinkitt', 'Blinkit'],
  ['DMrat', 'DMart'],
  ['Instamrt', 'Swiggy Instamart'],
  ['Tanisq', 'Tanishq'],
  ['Zudeo', 'Zudio'],
  ['Westsyde', 'Westside'],
  ['Pantaloon', 'Pantaloons'],
  ['Poorvikaa', 'Poorvika'],
  ['Medplsu', 'MedPlus'],
];

const UNKNOWN: Array<[string, string]> = [
  ['Lenskart', 'How many stores has Lenskart opened this year?'],
  ['FirstCry', "What was FirstCry's revenue last quarter?"],
  ['Decathlon', 'How many stores does Decathlon operate in India now?'],
  ['IKEA', 'Is IKEA gaining share in home furnishing?'],
  ['Bewakoof', 'How fast is Bewakoof growing?'],
  ['Dunzo', 'How many dark stores does Dunzo run now?'],
  ['Licious', 'What was Licious revenue in Q1 FY27?'],
  ['Country Delight', 'How much has Country Delight raised?'],
  ['Pepperfry', 'Where has Pepperfry opened stores this year?'],
  ['Mamaearth', "Mamaearth's quarterly revenue trend?"],
  ['lenskart', 'how many stores does lenskart have'],
  ['Bata', 'Compare Bata store openings this year'],
  ['Haldiram', 'Haldiram ne iss saal kitne stores khole?'],
  ['Urban Ladder', 'Tell me about Urban Ladder store expansion'],
  ['Wakefit', 'What is Wakefit doing in Bengaluru?'],
];

export function buildGoldenSet(truth: GroundTruth): GoldenItem[] {
  const items: GoldenItem[] = [];
  const anchorMs = Date.parse(truth.anchor);
  const year = new Date(anchorMs).getUTCFullYear();
  const conflictByEvent = new Map(truth.conflicts.map((conflict) => [conflict.event_id, conflict]));
  const conflictExpect = (eventId: string): GoldenItem['expect']['conflict'] | undefined => {
    const conflict = conflictByEvent.get(eventId);
    return conflict ? { values: [conflict.true_value, conflict.reported_value], signals: [conflict.true_signal_id, conflict.conflicting_signal_id] } : undefined;
  };
  const add = (item: GoldenItem): void => {
    items.push(item);
  };

  // 1. Store networks now (every retailer with stores), aliases where analysts use them.
  const storeNames = Object.keys(truth.stores).filter((name) => truth.stores[name]!.events.length > 0).sort();
  for (const [i, name] of storeNames.entries()) {
    const latest = truth.stores[name]!.events.at(-1)!;
    const alias = ALIASES[name]?.[i % (ALIASES[name]?.length ?? 1)];
    const phrasings = [`How many ${unitOf(name)} does ${alias ?? name} operate now?`, `What is ${alias ?? name}'s current store count?`, `${alias ?? name}: how many ${unitOf(name)} in total today?`];
    const conflict = conflictExpect(latest.event_id);
    add({
      id: `stores-now-${name}`,
      category: conflict ? 'conflict' : alias ? 'alias' : 'figure',
      turns: [phrasings[i % phrasings.length]!],
      expect: { retailers: [name], figures: [latest.total], ...(conflict ? { conflict } : {}) },
    });
  }

  // 2. Openings this calendar year, with where.
  for (const [i, name] of storeNames.filter((_, index) => index % 3 === 0).entries()) {
    const opened = truth.stores[name]!.events.filter((event) => event.change > 0 && new Date(event.at).getUTCFullYear() === year);
    const total = opened.reduce((sum, event) => sum + event.change, 0);
    const alias = ALIASES[name]?.[0] ?? name;
    const phrasings = [`How many stores has ${alias} opened this year, and where?`, `Where has ${alias} opened ${unitOf(name)} this year and how many?`, `${alias} store openings so far this year`];
    add({ id: `openings-${name}`, category: alias === name ? 'figure' : 'alias', turns: [phrasings[i % phrasings.length]!], expect: { retailers: [name], figures: [total] } });
  }

  // 3. Quarterly revenue: the latest reported quarter, asked by its label in several spellings.
  const resultNames = Object.keys(truth.results).filter((name) => (truth.results[name]?.length ?? 0) > 0).sort();
  for (const [i, name] of resultNames.entries()) {
    if (i % 2 === 1 && !truth.conflicts.some((conflict) => conflict.kind === 'revenue' && conflict.entity === name)) continue;
    const latest = truth.results[name]!.at(-1)!;
    const [q, fy] = [latest.period.slice(1, 2), latest.period.slice(-2)];
    const label = [latest.period, `Q${q} FY20${Number(fy) - 1}-${fy}`, `Q${q} of FY${fy}`][i % 3]!;
    const alias = ALIASES[name]?.[0];
    const conflict = conflictExpect(latest.event_id);
    add({
      id: `revenue-${name}`,
      category: conflict ? 'conflict' : alias ? 'alias' : 'figure',
      turns: [`What was ${alias ?? name}'s revenue in ${label}?`],
      expect: { retailers: [name], figures: [latest.revenue_cr, Math.abs(latest.revenue_growth_yoy_pct)], ...(conflict ? { conflict } : {}) },
    });
  }
  // "last quarter" = the fiscal quarter before the current one, where it has been reported.
  const lastQuarter = previousQuarter(fiscalQuarterOf(anchorMs)).label;
  for (const name of ['Zepto', 'Blinkit', 'DMart', 'Nykaa', 'Zudio']) {
    const fact = truth.results[name]?.find((result) => result.period === lastQuarter);
    if (!fact) continue;
    add({ id: `revenue-last-quarter-${name}`, category: 'figure', turns: [`What was ${ALIASES[name]?.[0] ?? name}'s revenue last quarter?`], expect: { retailers: [name], figures: [fact.revenue_cr] } });
  }

  // 4. City markets: order value growth, latest quarter; shares.
  const latestMarket = new Map<string, GroundTruth['markets'][number]>();
  for (const market of truth.markets) latestMarket.set(`${market.segment}|${market.city}`, market);
  const cityNames: Record<string, string> = { Bengaluru: 'Bangalore', Mumbai: 'Bombay', Gurugram: 'Gurgaon', Kolkata: 'Calcutta' };
  const marketKeys = [...latestMarket.keys()].sort();
  for (const [i, key] of marketKeys.entries()) {
    const market = latestMarket.get(key)!;
    const conflict = conflictExpect(market.event_id);
    if (i % 8 !== 0 && !conflict) continue;
    const city = i % 16 === 0 && cityNames[market.city] ? cityNames[market.city]! : market.city;
    add({
      id: `gov-${key}`,
      category: conflict ? 'conflict' : 'figure',
      turns: [`How fast is ${market.segment} growing in ${city}?`],
      expect: { city: market.city, figures: [market.gov_growth_yoy_pct], ...(conflict ? { conflict } : {}) },
    });
  }
  for (const city of ['Bengaluru', 'Mumbai', 'Delhi', 'Pune', 'Hyderabad', 'Chennai', 'Jaipur', 'Kochi']) {
    const market = latestMarket.get(`quick commerce|${city}`);
    if (!market) continue;
    const gainer = [...market.shares].sort((a, b) => b.change_pts - a.change_pts)[0]!;
    add({ id: `share-${city}`, category: 'figure', turns: [`Which quick commerce players are gaining share in ${cityNames[city] ?? city}?`], expect: { city, figures: [gainer.share_pct, Math.abs(gainer.change_pts)] } });
  }
  for (const segment of ['fashion', 'grocery'] as Segment[]) {
    const market = latestMarket.get(`${segment}|Mumbai`)!;
    const gainer = [...market.shares].sort((a, b) => b.change_pts - a.change_pts)[0]!;
    add({ id: `share-${segment}-Mumbai`, category: 'figure', turns: [`Who is gaining market share in ${segment} in Mumbai?`], expect: { city: 'Mumbai', figures: [gainer.share_pct] } });
  }

  // 5. Festive seasons.
  for (const festive of truth.festive) {
    add({ id: `festive-${festive.year}`, category: 'figure', turns: [`What does festive-season demand look like for Diwali ${festive.year} across categories?`], expect: { figures: Object.values(festive.growth_yoy_pct) } });
    add({ id: `festive-electronics-${festive.year}`, category: 'figure', turns: [`How did electronics sales do over Diwali ${festive.year}?`], expect: { figures: [festive.growth_yoy_pct.electronics] } });
  }

  // 6. Funding rounds.
  for (const [name, rounds] of Object.entries(truth.funding).sort()) {
    add({ id: `funding-${name}`, category: 'figure', turns: [`How much funding has ${name} raised?`], expect: { retailers: [name], figures: [rounds.at(-1)!.amount_cr] } });
  }

  // 7. Typos.
  for (const [written, name] of TYPOS) {
    const latest = truth.stores[name]?.events.at(-1);
    if (!latest) continue;
    add({ id: `typo-${written}`, category: 'typo', turns: [`How many ${unitOf(name)} does ${written} operate now?`], expect: { retailers: [name], figures: [latest.total] } });
  }

  // 8. Hinglish.
  const zepto = truth.stores.Zepto!.events.at(-1)!;
  const dmartOpened = truth.stores.DMart!.events.filter((event) => event.change > 0 && new Date(event.at).getUTCFullYear() === year).reduce((sum, event) => sum + event.change, 0);
  const blr = latestMarket.get('quick commerce|Bengaluru')!;
  const blinkitLast = truth.results.Blinkit?.find((result) => result.period === lastQuarter);
  add({ id: 'hinglish-zepto', category: 'hinglish', turns: ['Zepto ke kitne dark stores hain abhi?'], expect: { retailers: ['Zepto'], figures: [zepto.total] } });
  add({ id: 'hinglish-dmart', category: 'hinglish', turns: ['DMart ne iss saal kitne stores khole aur kahan?'], expect: { retailers: ['DMart'], figures: [dmartOpened] } });
  add({ id: 'hinglish-blr', category: 'hinglish', turns: ['Bangalore mein quick commerce kitni tezi se badh raha hai?'], expect: { city: 'Bengaluru', figures: [blr.gov_growth_yoy_pct] } });
  if (blinkitLast) add({ id: 'hinglish-blinkit', category: 'hinglish', turns: ['Blinkit ki pichli quarter ki revenue kitni thi?'], expect: { retailers: ['Blinkit'], figures: [blinkitLast.revenue_cr] } });
  const festiveNow = truth.festive.at(-1);
  if (festiveNow) add({ id: 'hinglish-diwali', category: 'hinglish', turns: [`Diwali ${festiveNow.year} mein festive demand kaisi rahi?`], expect: { figures: [festiveNow.growth_yoy_pct['quick commerce']] } });
  const tanishq = truth.stores.Tanishq!.events.at(-1)!;
  add({ id: 'hinglish-tanishq', category: 'hinglish', turns: ['Tanishq ke kul kitne stores hain?'], expect: { retailers: ['Tanishq'], figures: [tanishq.total] } });
  // Contractions and possessives, as analysts type them: "What's" is not a name.
  add({ id: 'contraction-dmart', category: 'alias', turns: ["What's DMart's store count now?"], expect: { retailers: ['DMart'], figures: [truth.stores.DMart!.events.at(-1)!.total] } });
  add({ id: 'contraction-zepto', category: 'alias', turns: ["Where's Zepto at on dark stores now?"], expect: { retailers: ['Zepto'], figures: [zepto.total] } });

  // 9. Follow-up chains.
  const followCities = ['Pune', 'Hyderabad', 'Chennai', 'Jaipur', 'Delhi', 'Kochi'];
  for (const [i, city] of followCities.entries()) {
    const previous = ['Bengaluru', 'Mumbai', 'Kolkata'][i % 3]!;
    const market = latestMarket.get(`quick commerce|${city}`)!;
    add({ id: `follow-and-in-${city}`, category: 'followup', turns: [`How fast is quick commerce growing in ${previous}?`, `And in ${city}?`], expect: { city, figures: [market.gov_growth_yoy_pct] } });
  }
  for (const city of ['Mumbai', 'Pune', 'Delhi', 'Hyderabad']) {
    const market = latestMarket.get(`quick commerce|${city}`)!;
    const gainer = [...market.shares].sort((a, b) => b.change_pts - a.change_pts)[0]!;
    add({ id: `follow-share-there-${city}`, category: 'followup', turns: [`How fast is quick commerce growing in ${city}?`, 'Which players are gaining share there?'], expect: { city, figures: [gainer.share_pct] } });
  }
  const revenuePairs: Array<[string, string]> = [['Blinkit', 'Zepto'], ['DMart', 'Reliance Smart'], ['Tanishq', 'Kalyan Jewellers'], ['Nykaa', 'Purplle'], ['Zudio', 'Westside']];
  for (const [first, second] of revenuePairs) {
    const a = truth.results[first]?.at(-1);
    const b = truth.results[second]?.find((result) => result.period === a?.period);
    if (!a || !b) continue;
    add({ id: `follow-same-period-${second}`, category: 'followup', turns: [`What was ${first}'s revenue in ${a.period}?`, `What about ${second} for the same period?`], expect: { retailers: [second], figures: [b.revenue_cr] } });
  }
  for (const name of ['Zepto', 'Blinkit', 'DMart', 'Tanishq', 'Zudio']) {
    const latest = truth.results[name]?.at(-1);
    if (!latest) continue;
    add({ id: `follow-their-revenue-${name}`, category: 'followup', turns: [`How many ${unitOf(name)} does ${name} operate now?`, `What was their revenue in ${latest.period}?`], expect: { retailers: [name], figures: [latest.revenue_cr] } });
  }
  for (const [first, second] of [['Tanishq', 'CaratLane'], ['Zudio', 'Westside'], ['Blinkit', 'Zepto'], ['Croma', 'Vijay Sales']] as Array<[string, string]>) {
    const latest = truth.stores[second]?.events.at(-1);
    if (!latest) continue;
    add({ id: `follow-and-${second}`, category: 'followup', turns: [`How many ${unitOf(first)} does ${first} operate now?`, `And ${second}?`], expect: { retailers: [second], figures: [latest.total] } });
  }
  for (const name of ['Zudio', 'DMart', 'Croma']) {
    const latest = truth.stores[name]!.events.at(-1)!;
    add({ id: `follow-it-operate-${name}`, category: 'followup', turns: [`How many stores has ${name} opened this year?`, 'How many does it operate now?'], expect: { retailers: [name], figures: [latest.total] } });
  }

  // 10. Topic switches: the new question must not inherit the old subject.
  const festiveLast = truth.festive.at(-1);
  if (festiveLast) {
    add({
      id: 'switch-zepto-to-diwali',
      category: 'topic_switch',
      turns: ['How many dark stores does Zepto operate now?', `What does festive-season demand look like for Diwali ${festiveLast.year} across categories?`],
      expect: { figures: [festiveLast.growth_yoy_pct.fashion, festiveLast.growth_yoy_pct.electronics], notAbout: ['Zepto'] },
    });
  }
  const switches: Array<[string, string]> = [['Pune', 'Tanishq'], ['Bengaluru', 'DMart'], ['Delhi', 'Nykaa'], ['Mumbai', 'Croma'], ['Chennai', 'Zepto']];
  for (const [city, name] of switches) {
    const latest = truth.results[name]?.at(-1);
    if (!latest) continue;
    add({ id: `switch-${city}-to-${name}`, category: 'topic_switch', turns: [`How fast is quick commerce growing in ${city}?`, `What was ${name}'s revenue in ${latest.period}?`], expect: { retailers: [name], figures: [latest.revenue_cr], notAbout: [city] } });
  }
  for (const [name, city] of [['DMart', 'Jaipur'], ['Zudio', 'Kochi'], ['Blinkit', 'Lucknow']] as Array<[string, string]>) {
    const market = latestMarket.get(`fashion|${city}`)!;
    add({ id: `switch-${name}-to-${city}`, category: 'topic_switch', turns: [`How many stores does ${name} operate now?`, `How fast is fashion growing in ${city}?`], expect: { city, figures: [market.gov_growth_yoy_pct], notAbout: [name] } });
  }

  // 11. Unknown entities.
  for (const [name, question] of UNKNOWN) add({ id: `unknown-${name}`, category: 'unknown', turns: [question], expect: { unknown: name } });
  // An unknown name in a follow-up is the new subject, not the previous retailer.
  add({ id: 'unknown-followup-lenskart', category: 'unknown', turns: ['How many stores has DMart opened this year?', 'What about Lenskart?'], expect: { unknown: 'Lenskart' } });
  add({ id: 'unknown-followup-decathlon', category: 'unknown', turns: ['What was Trent revenue last quarter?', 'And Decathlon?'], expect: { unknown: 'Decathlon' } });
  add({ id: 'unknown-after-zepto', category: 'unknown', turns: ['How many dark stores does Zepto operate now?', 'How many stores does Lenskart have?'], expect: { unknown: 'Lenskart' } });

  // 12. Every planted conflict not asked above.
  const asked = new Set(items.flatMap((item) => (item.expect.conflict ? [item.expect.conflict.signals[1]] : [])));
  for (const conflict of truth.conflicts) {
    if (asked.has(conflict.conflicting_signal_id)) continue;
    const expect = { values: [conflict.true_value, conflict.reported_value] as [number, number], signals: [conflict.true_signal_id, conflict.conflicting_signal_id] as [string, string] };
    if (conflict.kind === 'store_count') add({ id: `conflict-${conflict.event_id}`, category: 'conflict', turns: [`How many ${unitOf(conflict.entity)} does ${conflict.entity} have now?`], expect: { retailers: [conflict.entity], figures: [conflict.true_value], conflict: expect } });
    if (conflict.kind === 'revenue') {
      const fact = truth.results[conflict.entity]!.find((result) => result.event_id === conflict.event_id)!;
      add({ id: `conflict-${conflict.event_id}`, category: 'conflict', turns: [`${conflict.entity} revenue ${fact.period}?`], expect: { retailers: [conflict.entity], figures: [conflict.true_value], conflict: expect } });
    }
    if (conflict.kind === 'app_rank') {
      // Two trackers' charts for the same app and day (issue 30): the rank the answer leads with, the other flagged.
      const phrasings = [`What is ${conflict.entity}'s app rank now?`, `Where does ${conflict.entity} rank in the app charts?`, `${conflict.entity} app ranking today?`];
      add({ id: `conflict-${conflict.event_id}`, category: 'conflict', turns: [phrasings[items.length % phrasings.length]!], expect: { retailers: [conflict.entity], figures: [conflict.true_value], conflict: expect } });
    }
    if (conflict.kind === 'gov_growth') add({ id: `conflict-${conflict.event_id}`, category: 'conflict', turns: [`${conflict.segment} order value growth in ${conflict.entity}?`], expect: { city: conflict.entity, figures: [conflict.true_value], conflict: expect } });
  }
  return items;
}
