/**
 * The words of the signals that report a ground-truth fact. Every source covering a fact
 * states the same figure, except a planted conflict, which states its own (and only that).
 */
import type { FactDraft, MarketFact } from './ground-truth';
import type { TextDraft } from './filler';
import { possessive } from './filler';
import type { SeededRandom } from './random';
import { CITIES, SEGMENTS, type Retailer, type Segment } from './vocabulary';

export const formatInr = (crore: number): string => `₹${crore.toLocaleString('en-IN')} crore`;
export const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const pct = (value: number): string => `${value.toFixed(1)}%`;
const signed = (value: number): string => (value > 0 ? `+${value.toFixed(1)}` : value.toFixed(1));

/** "1 store", "12 stores" (units given in the plural). */
export function count(n: number, plural: string): string {
  if (n !== 1) return `${n.toLocaleString('en-IN')} ${plural}`;
  return `1 ${plural.replace(/ies$/, 'y').replace(/s$/, '')}`;
}

/** "DMart (Avenue Supermarts)": the listed company as filings name it. */
export function companyLabel(retailer: Retailer): string {
  return retailer.parent && retailer.listed ? `${retailer.name} (${retailer.parent})` : retailer.name;
}

export function sharesSentence(shares: MarketFact['shares']): string {
  return shares
    .map((share) => `${share.retailer} ${pct(share.share_pct)} (${share.change_pts === 0 ? 'unchanged' : `${signed(share.change_pts)} pts`})`)
    .join(', ');
}

/** The signal drafts of one fact: one per coverage entry. */
export function draftFactSignals(random: SeededRandom, fact: FactDraft): TextDraft[] {
  return fact.coverage.map((coverage, variant) => {
    const conflict = coverage.conflict?.value;
    switch (fact.kind) {
      case 'store':
        return storeText(random, fact, variant, conflict, coverage.sourceKinds);
      case 'results':
        return resultsText(random, fact, variant, conflict, coverage.sourceKinds);
      case 'market':
        return marketText(fact, variant, conflict, coverage.sourceKinds);
      case 'festive':
        return festiveText(fact, variant, coverage.sourceKinds);
      case 'funding':
        return fundingText(fact, variant, coverage.sourceKinds);
    }
  });
}

function storeText(random: SeededRandom, fact: FactDraft, variant: number, conflict: number | undefined, sourceKinds: string[]): TextDraft {
  const retailer = fact.retailer!;
  const city = fact.city!;
  const { change, total } = fact.data as { change: number; total: number };
  const unit = retailer.segment === 'quick commerce' ? 'dark stores' : 'stores';
  const n = Math.abs(change);
  const base = { retailers: [retailer.name], segments: [retailer.segment], cities: [city], sourceKinds };
  const detail = `The ${change > 0 ? 'openings are' : 'closures are'} in ${city.city}, ${city.state}; management said new ${unit} there break even in ${random.int(5, 18)} months on average.`;
  if (change < 0) {
    return {
      ...base,
      title: `${retailer.name} shuts ${count(n, `underperforming ${unit}`)} in ${city.city}`,
      summary: `${retailer.name} closed ${count(n, unit)} in ${city.city} after a portfolio review, bringing its network to ${total.toLocaleString('en-IN')} ${unit}.`,
      detail,
      metrics: { stores_closed: n, store_count_national: total },
    };
  }
  if (conflict !== undefined) {
    return {
      ...base,
      title: `${retailer.name} adds ${count(n, unit)} in ${city.city}, network near ${conflict.toLocaleString('en-IN')}`,
      summary: `${retailer.name} added ${count(n, unit)} in ${city.city}; market trackers put its network at ${conflict.toLocaleString('en-IN')} ${unit}.`,
      detail: `The tracker counts ${unit} from delivery listings in ${city.city} and other cities.`,
      metrics: { stores_opened: n, store_count_national: conflict },
    };
  }
  return {
    ...base,
    title: `${retailer.name} opens ${count(n, unit)} in ${city.city}`,
    summary:
      variant === 0
        ? `${retailer.name} opened ${count(n, `new ${unit}`)} in ${city.city}, taking its network to ${total.toLocaleString('en-IN')} ${unit} nationwide.`
        : `${retailer.name} has opened ${count(n, unit)} in ${city.city}, the company said; its network now stands at ${total.toLocaleString('en-IN')} ${unit}.`,
    detail,
    metrics: { stores_opened: n, store_count_national: total },
  };
}

function resultsText(random: SeededRandom, fact: FactDraft, variant: number, conflict: number | undefined, sourceKinds: string[]): TextDraft {
  const retailer = fact.retailer!;
  const { revenue, growth, margin } = fact.data as { revenue: number; growth: number; margin: number };
  const label = companyLabel(retailer);
  const base = { retailers: [retailer.name], segments: [retailer.segment], cities: [] as typeof CITIES, sourceKinds };
  const driver = random.pick(['store additions', 'higher average order values', 'private labels', 'festive demand', 'lower discounting']);
  if (conflict !== undefined) {
    return {
      ...base,
      title: `${retailer.name} ${fact.period} revenue estimated at ${formatInr(conflict)}`,
      summary: `${possessive(retailer.name)} ${fact.period} revenue was about ${formatInr(conflict)}, according to people familiar with the numbers.`,
      detail: `The estimate was published before the company's own statement.`,
      metrics: { revenue_cr: conflict },
    };
  }
  const direction = growth >= 0 ? 'up' : 'down';
  return {
    ...base,
    title: `${label} ${fact.period} results: revenue ${formatInr(revenue)}, ${direction} ${Math.abs(growth)}% YoY`,
    summary:
      variant === 0
        ? `${label} reported ${fact.period} revenue of ${formatInr(revenue)}, ${direction} ${Math.abs(growth)}% year on year, with an EBITDA margin of ${margin}%.`
        : `${possessive(retailer.name)} ${fact.period} revenue came in at ${formatInr(revenue)} (${growth >= 0 ? '+' : ''}${growth}% YoY); the EBITDA margin was ${margin}%.`,
    detail: `Management pointed to ${driver} as the driver of the quarter.`,
    metrics: { revenue_cr: revenue, revenue_growth_yoy_pct: growth, ebitda_margin_pct: margin },
  };
}

function marketText(fact: FactDraft, variant: number, conflict: number | undefined, sourceKinds: string[]): TextDraft {
  const city = fact.city!;
  const segment = fact.segment;
  const { gov, shares } = fact.data as { gov: number; shares: MarketFact['shares'] };
  const label = capitalise(segment);
  const base = { retailers: shares.map((share) => share.retailer), segments: [segment], cities: [city], sourceKinds };
  if (conflict !== undefined) {
    return {
      ...base,
      retailers: [],
      title: `${label} order value in ${city.city} up ${pct(conflict)} in ${fact.period}, survey says`,
      summary: `${label} gross order value in ${city.city} grew ${pct(conflict)} year on year in ${fact.period}, according to a survey of brands.`,
      detail: `The survey covers brands selling through ${segment} channels in ${city.state}.`,
      metrics: { gov_growth_yoy_pct: conflict },
    };
  }
  const leader = shares[0]!;
  // Shares stay in the text (one sentence, with their changes); as metrics they would make six
  // short, drifting series per city that the predict backtest cannot hold to its interval.
  const metrics: Record<string, number> = { gov_growth_yoy_pct: gov };
  return {
    ...base,
    title: `${label} in ${city.city}, ${fact.period}: order value up ${pct(gov)} YoY; ${leader.retailer} leads with ${pct(leader.share_pct)}`,
    summary: `${label} gross order value in ${city.city} grew ${pct(gov)} year on year in ${fact.period}. Shares of order value (change on the previous quarter): ${sharesSentence(shares)}.`,
    detail: variant === 0 ? `Figures come from the body's quarterly panel of ${segment} operators in ${city.state}.` : `The figures were presented at an industry briefing in ${city.city}.`,
    metrics,
  };
}

function festiveText(fact: FactDraft, variant: number, sourceKinds: string[]): TextDraft {
  const { year, growth } = fact.data as { year: number; growth: Record<Segment, number> };
  const ranked = [...SEGMENTS].sort((a, b) => growth[b] - growth[a]);
  const list = ranked.map((segment) => `${segment} ${signed(growth[segment])}%`).join(', ');
  const metrics = Object.fromEntries(SEGMENTS.map((segment) => [`festive_growth_${segment.replace(' ', '_')}_pct`, growth[segment]]));
  return {
    title: variant === 0 ? `Diwali ${year} festive sales: ${ranked[0]} leads with ${pct(growth[ranked[0]!])} growth` : `Festive season ${year}: sales growth by category`,
    summary: `Festive-season sales around Diwali ${year} grew year on year in every category: ${list}.`,
    detail: variant === 0 ? 'The estimates cover the three weeks before Diwali and the week after, across organised retail and online.' : 'Retailers credited wedding-season demand and heavier discounting online.',
    metrics,
    retailers: [],
    segments: [...SEGMENTS],
    cities: [],
    sourceKinds,
  };
}

function fundingText(fact: FactDraft, variant: number, sourceKinds: string[]): TextDraft {
  const retailer = fact.retailer!;
  const { amount_cr: amount, valuation_cr: valuation, investor } = fact.data as { amount_cr: number; valuation_cr: number; investor: string };
  return {
    title: variant === 0 ? `${retailer.name} raises ${formatInr(amount)} led by ${investor}` : `${investor} leads ${formatInr(amount)} round in ${retailer.name}`,
    summary:
      variant === 0
        ? `${retailer.name} raised ${formatInr(amount)} in a round led by ${investor}, at a valuation of about ${formatInr(valuation)}.`
        : `${investor} led a ${formatInr(amount)} round in ${retailer.name}, valuing the company at about ${formatInr(valuation)}.`,
    detail: `Proceeds go to supply chain, technology and new ${retailer.segment} markets.`,
    metrics: { amount_cr: amount, valuation_cr: valuation },
    retailers: [retailer.name],
    segments: [retailer.segment],
    cities: [],
    sourceKinds,
  };
}
