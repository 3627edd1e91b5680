/** Opens the configured database and brings its schema up to this version. */
import { createHash } from 'node:crypto';
import type { Database } from './database';
import { EmbeddedDatabase, migratedTemplateFolder, openEmbeddedDatabase, openMemoryDatabase } from './embedded';
import { migrate, MIGRATIONS, type MigrationResult } from './migrations';

export interface DatabaseConfig {
  /** `postgres://…` for a PostgreSQL server; otherwise embedded. */
  url?: string | null;
  /** The embedded database's home; null = in memory (gone when the process ends). */
  dataDir?: string | null;
}

/** Names the schema these migrations make (their versions and SQL): a migrated template is only ever this schema's. */
export function schemaKey(migrations = MIGRATIONS): string {
  const hash = createHash('sha256').update(JSON.stringify(migrations.map(({ version, sql }) => [version, sql])));
  return `${migrations.at(-1)?.version ?? 0}-${hash.digest('hex').slice(0, 16)}`;
}

export async function openDatabase(config: DatabaseConfig): Promise<{ db: Database; migration: MigrationResult }> {
  // A new embedded database is copied from a cluster already migrated to this schema, when the user's cache holds one (embedded.ts).
  const template = config.dataDir && !config.url ? migratedTemplateFolder(schemaKey()) : null;
  // The PostgreSQL driver (pg, pg-copy-streams) is loaded only for a team server, not at every embedded start.
  const db = config.url ? await (await import('./postgres')).openPostgresDatabase(config.url) : config.dataDir ? await openEmbeddedDatabase(config.dataDir, { migratedTemplate: template }) : await openMemoryDatabase();
  try {
    const migration = await migrate(db);
    // A database new from PGlite's pristine cluster and now migrated, nothing else in it yet: the next new one is a copy of it.
    if (template && db instanceof EmbeddedDatabase && db.made === 'created' && migration.from === 0) await db.keepAsTemplate(template);
    return { db, migration };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
