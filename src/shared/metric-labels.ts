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
};

export const metricLabel = (key: string): string => METRIC_LABELS[key] ?? key.replace(/_/g, ' ');

/**
 * Issue 47: the metrics a forecast is offered for: levels and rates a retailer reports period
 * after period, so a quarterly history can carry a trend. One-off figures (money raised, days to
 * comply, a pilot's outlets, a change in rank, cities or pin codes added in one announcement) have
 * no series to extend; the service would refuse them (422) or extend noise.
 */
export const FORECAST_METRICS: ReadonlySet<string> = new Set([
  'store_count_national',
  'store_count_state',
  'stores_opened',
  'avg_delivery_min',
  'order_growth_qoq_pct',
  'gov_growth_yoy_pct',
  'share_of_spend_pct',
  'open_roles',
  'revenue_cr',
  'revenue_growth_yoy_pct',
  'ebitda_margin_pct',
  'rank',
]);

/** A forecast's unit as the analyst reads it beside a value: `count` says nothing, so it is left out. */
export const unitWords = (unit: string): string => (unit === 'count' ? '' : unit);
