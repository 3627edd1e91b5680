/**
 * A forecast as a document to save and export. It is saved as an `answer` (the library's own
 * kinds, untouched): markdown that states the forecast, its interval, horizon, confidence,
 * method and cost, the history table citing each quarter's signal, every basis signal cited,
 * and the series as a fenced JSON block a reader or a script can take back out.
 */
import type { ForecastSource } from '../../../shared/bridge-contract';
import { metricLabel } from '../../../shared/metric-labels';
import type { DiscoverItem } from '../../../shared/surface-schemas';
import type { RetailSignalClient } from '../service-client/api-client';
import type { ExportDocument } from './exporter';
import { snapshotOfDiscoverItem } from '../../../shared/discover-snapshot';

/** Discover's page limit: basis ids are looked up in batches of this many. */
const LOOKUP_BATCH = 100;

const number = (value: number): string => value.toLocaleString('en-IN', { maximumFractionDigits: 2 });
const horizonWords = (horizon: string): string => (horizon === 'next_quarter' ? 'next quarter' : horizon === 'next_year' ? 'a year ahead' : horizon);

/** The basis signals as Discover has them now; ids it does not know are left out (cited by id only). */
export async function lookupSignals(client: RetailSignalClient, ids: string[]): Promise<DiscoverItem[]> {
  const found: DiscoverItem[] = [];
  for (let start = 0; start < ids.length; start += LOOKUP_BATCH) {
    const batch = ids.slice(start, start + LOOKUP_BATCH);
    const query = new URLSearchParams({ id: batch.join(','), limit: String(LOOKUP_BATCH) });
    const page = await client.call('discover', { query }, 'a Discover page');
    if (page.ok) found.push(...page.value.items);
  }
  return found;
}

export function forecastTitle({ entity, metric, forecast }: ForecastSource): string {
  return `Forecast: ${metricLabel(metric)} of ${entity}, ${forecast.forecast.period}`;
}

export function forecastMarkdown(source: ForecastSource): string {
  const { entity, metric, horizon, forecast: f } = source;
  const { value, unit, period, interval } = f.forecast;
  const level = `${Math.round(interval.level * 100)}%`;
  const history = f.history.map((h) => `| ${h.period} | ${number(h.value)} | [${h.signal}] |`);
  // The history's signals first, so the basis reads in the same numbering as the table above.
  const shown = new Set(f.history.map((h) => h.signal));
  const basis = [...f.basis.filter((id) => shown.has(id)), ...f.basis.filter((id) => !shown.has(id))].map((id) => `[${id}]`).join(' ');
  const series = { entity, metric, horizon, forecast: f.forecast, history: f.history, basis: f.basis, method: f.method, confidence: f.confidence, cost_usd: f.cost_usd };
  return [
    `**${metricLabel(metric)} of ${entity}, ${period} (${horizonWords(horizon)}): ${number(value)} ${unit}**, ${level} interval ${number(interval.low)} to ${number(interval.high)} ${unit}.`,
    '',
    `Confidence ${Math.round(f.confidence * 100)}% · cost $${f.cost_usd.toFixed(4)} · ${f.basis.length} basis signals.`,
    '',
    `**Method.** ${f.method}`,
    '',
    '| Quarter | Value | Signal |',
    '|---|---:|---|',
    ...history,
    `| ${period} (forecast) | ${number(value)} (${number(interval.low)} to ${number(interval.high)}) | |`,
    '',
    `**Basis.** ${basis}`,
    '',
    '```json',
    JSON.stringify(series, null, 2),
    '```',
  ].join('\n');
}

export async function forecastDocument(source: ForecastSource, client: RetailSignalClient | null, serviceUrl: string | null, now = new Date()): Promise<ExportDocument> {
  const at = now.toISOString();
  const ids = [...new Set([...source.forecast.history.map((h) => h.signal), ...source.forecast.basis])];
  const known = new Map((client ? await lookupSignals(client, ids) : []).map((item) => [item.id, item]));
  return {
    title: forecastTitle(source),
    kind: 'answer',
    createdAt: at,
    markdown: forecastMarkdown(source),
    citations: ids.map((id) => {
      const item = known.get(id);
      return item ? snapshotOfDiscoverItem(item, at) : { id };
    }),
    meta: { question: forecastTitle(source), confidence: source.forecast.confidence, costUsd: source.forecast.cost_usd, serviceUrl },
  };
}
