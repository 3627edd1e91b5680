/** Human names of the metrics signals carry (the service's answers and the app's panels). */
export const METRIC_LABELS: Record<string, string> = {
  stores_opened: 'Stores opened',
  store_count_state: 'Stores in state',
  stores_closed: 'Stores closed',
  pin_codes_added: 'Pin codes added',
  new_cities: 'New cities',
  store_count_national: 'Stores nationwide',
  avg_delivery_min: 'Avg delivery (min)',
  order_growth_qoq_pct: 'Order growth QoQ (%)',
  gov_growth_yoy_pct: 'Order value growth YoY (%)',
  share_of_spend_pct: 'Share of spend (%)',
  avg_price_change_pct: 'Avg price change (%)',
  open_roles: 'Open roles',
  revenue_cr: 'Revenue (₹ crore)',
  revenue_growth_yoy_pct: 'Revenue growth YoY (%)',
  ebitda_margin_pct: 'EBITDA margin (%)',
  amount_cr: 'Raised (₹ crore)',
  outlets_in_pilot: 'Outlets in pilot',
  rank: 'App rank',
  rank_change: 'Rank change',
  compliance_days: 'Days to comply',
  valuation_cr: 'Valuation (₹ crore)',
  pct: 'Percentage',
};

/**
 * A metric's name for people: its label, or, for a metric no label names (one a feed's figures
 * gave, such as `growth_yoy_pct`), the key in words with its unit: "Growth YoY (%)".
 */
export const metricLabel = (key: string): string => METRIC_LABELS[key] ?? inWords(key);

function inWords(key: string): string {
  const unit = /_pct$/.test(key) ? ' (%)' : /_cr$/.test(key) ? ' (₹ crore)' : '';
  const words = key
    .replace(/_(pct|cr)$/, '')
    .split('_')
    .filter(Boolean)
    .map((word) => (word === 'yoy' || word === 'qoq' ? word.toUpperCase().replace('O', 'o') : word));
  if (words.length === 0) return unit ? unit.slice(2, -1) : key;
  const text = words.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}${unit}`;
}

/** A forecast's unit as the analyst reads it beside a value: `count` says nothing, so it is left out. */
export const unitWords = (unit: string): string => (unit === 'count' ? '' : unit);
