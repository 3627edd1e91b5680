/**
 * The shapes of the service's world: its sources and the signals they publish. Every producer
 * of signals (the live feed, the generated sample in corpus/) writes these; answers, retrieval,
 * follows and the store read them. (The names keep their first producer's prefix, "Corpus".)
 */
import type { SourceHealth } from '../../shared/service-schemas';

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
  /** The item's own link; null for a fetched item that has none (issue 44: cited by source and date). */
  url: string | null;
  published_at: string;
  type: SignalType;
  entities: { retailers: string[]; segments: string[]; cities: string[]; states: string[] };
  metrics: Record<string, number>;
  /** Signals that report the same fact share it (several sources covering one event). */
  event_id?: string;
  /** The fiscal quarter or festive season a reported figure belongs to ("Q2 FY27", "Diwali 2026"). */
  period?: string;
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

const SOURCE_PRIORITY: SourceKind[] = ['exchange_filing', 'company_newsroom', 'store_locator', 'industry_body', 'government_release', 'price_tracker', 'app_store_rank', 'job_board', 'business_press'];

/** How authoritative a kind of source is for a figure it reports (lower is better). */
export function sourceAuthority(kind: SourceKind | undefined): number {
  const at = kind ? SOURCE_PRIORITY.indexOf(kind) : -1;
  return at < 0 ? SOURCE_PRIORITY.length : at;
}
