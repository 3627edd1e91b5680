/**
 * The shapes of the corpus: its sources and its signals. Apart from the generator so the modules
 * it calls (app-rank conflicts, fact signals) can name them without importing it back.
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
  url: string;
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
