/**
 * Learned entities in the service's database (migration 10): they survive a restart, and the
 * processes of a team server share them (each reads what the others wrote since its cursor).
 * Two processes learning the same name merge: aliases are the union, co-occurrence counts the
 * larger of the two, the kind the more specific.
 */
import type { Database } from '../store/database';
import type { LearnedEntity } from './entity-learning';
import { entityKey } from './entity-learning';

export interface LearnedEntityStore {
  save(entities: LearnedEntity[]): Promise<void>;
  /** Entities written at or after `sinceMs` (all of them from 0), and the cursor to read from next. */
  since(sinceMs: number): Promise<LearnedEntity[]>;
}

/** Without a database (tests that build a FeedService by hand): nothing to share, nothing kept. */
export class InMemoryLearnedEntityStore implements LearnedEntityStore {
  private readonly rows = new Map<string, { entity: LearnedEntity; at: number }>();
  async save(entities: LearnedEntity[]): Promise<void> {
    for (const entity of entities) this.rows.set(entityKey(entity.name), { entity, at: Date.now() });
  }
  async since(sinceMs: number): Promise<LearnedEntity[]> {
    return [...this.rows.values()].filter((row) => row.at >= sinceMs).map((row) => row.entity);
  }
}

interface Row {
  name: string;
  kind: LearnedEntity['kind'];
  aliases: string[];
  segments: Record<string, number>;
  cities: Record<string, number>;
  signals: number;
  first_seen_at: string;
  updated_at: string;
}

const KINDS = ['organisation', 'brand', 'retailer', 'person'];

export class DatabaseLearnedEntityStore implements LearnedEntityStore {
  constructor(private readonly db: Database) {}

  async save(entities: LearnedEntity[]): Promise<void> {
    if (entities.length === 0) return;
    const now = Date.now();
    await this.db.transaction(async (tx) => {
      for (const entity of entities) {
        await tx.query(
          `INSERT INTO learned_entities (key, name, kind, aliases, segments, cities, signals, first_seen_at, updated_at, changed_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           ON CONFLICT (key) DO UPDATE SET
             kind = CASE WHEN array_position($11::text[], EXCLUDED.kind) > array_position($11::text[], learned_entities.kind) THEN EXCLUDED.kind ELSE learned_entities.kind END,
             aliases = (SELECT coalesce(jsonb_agg(DISTINCT value), '[]'::jsonb) FROM jsonb_array_elements(learned_entities.aliases || EXCLUDED.aliases)),
             segments = learned_entities.segments || EXCLUDED.segments,
             cities = learned_entities.cities || EXCLUDED.cities,
             signals = GREATEST(learned_entities.signals, EXCLUDED.signals),
             updated_at = GREATEST(learned_entities.updated_at, EXCLUDED.updated_at),
             changed_ms = EXCLUDED.changed_ms`,
          [entityKey(entity.name), entity.name, entity.kind, JSON.stringify(entity.aliases), JSON.stringify(entity.segments), JSON.stringify(entity.cities), entity.signals, entity.first_seen_at, entity.updated_at, now, KINDS],
        );
      }
    });
  }

  async since(sinceMs: number): Promise<LearnedEntity[]> {
    const rows = await this.db.query<Row>('SELECT name, kind, aliases, segments, cities, signals, first_seen_at, updated_at FROM learned_entities WHERE changed_ms >= $1 ORDER BY first_seen_at, key', [sinceMs]);
    return rows.map((row) => ({ ...row, signals: Number(row.signals) }));
  }
}
