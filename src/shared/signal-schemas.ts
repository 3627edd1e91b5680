// Signals, their sources and the sources' health snapshot as the service sends them (split from service-schemas.ts, which re-exports them).
import { z } from 'zod';

export const SIGNAL_ID_PATTERN = /^sig_[0-9a-f]{16}$/;
export const SignalId = z.string().regex(SIGNAL_ID_PATTERN).meta({ id: 'SignalId', description: '`sig_` + 16 hex.' });

// ── Signals and sources ──────────────────────────────────────────────────────────────────
export const SourceHealth = z.enum(['healthy', 'degraded', 'down']).meta({ id: 'SourceHealthState' });
export type SourceHealth = z.infer<typeof SourceHealth>;

export const SourceEntry = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    kind: z.string(),
    health: SourceHealth,
    cadence: z.string(),
    items_24h: z.number(),
    last_item_at: z.string().nullable().optional(),
    url: z.string().optional(),
  })
  .meta({ id: 'Source' });
export type SourceEntry = z.infer<typeof SourceEntry>;

/** What a signal is about, by kind: one shape for a stored signal and a Discover item. */
export const SignalEntities = z.looseObject({
  retailers: z.array(z.string()),
  segments: z.array(z.string()),
  cities: z.array(z.string()),
  states: z.array(z.string()),
});

export const Signal = z
  .looseObject({
    id: SignalId,
    slug: z.string(),
    title: z.string(),
    summary: z.string(),
    body: z.string(),
    source_id: z.string(),
    url: z.string().nullable().meta({ description: 'The item\'s own link; null for a fetched item that has none (cite it by its source and date).' }),
    published_at: z.string(),
    type: z.string(),
    entities: SignalEntities,
    metrics: z.record(z.string(), z.number()),
  })
  .meta({ id: 'Signal' });
export type Signal = z.infer<typeof Signal>;

/** A looked-up signal's source: one that is not fetched (a fixed sample) has no health now (`null`). */
export const LookedUpSource = SourceEntry.extend({ health: SourceHealth.nullable() });
export type LookedUpSource = z.infer<typeof LookedUpSource>;

export const SignalLookup = z
  .looseObject({ signal: Signal, source: LookedUpSource })
  .meta({ id: 'SignalLookup', description: 'Extension: one signal with its source and that source\'s health now.' });

// ── Health snapshot ──────────────────────────────────────────────────────────────────────
export const HealthSnapshot = z
  .looseObject({
    generated_at: z.string(),
    stats: z.looseObject({
      sources_total: z.number(),
      healthy: z.number(),
      degraded: z.number(),
      down: z.number(),
      items_per_hour: z.number(),
      signals_24h: z.number(),
    }),
    oracle: z.looseObject({ miss_rate: z.number(), window: z.string(), updated_at: z.string() }),
    sources: z.array(SourceEntry),
  })
  .meta({ id: 'HealthSnapshot' });
export type HealthSnapshot = z.infer<typeof HealthSnapshot>;
