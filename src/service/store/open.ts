/** Opens the configured database and brings its schema up to this version. */
import type { Database } from './database';
import { openEmbeddedDatabase, openMemoryDatabase } from './embedded';
import { migrate, type MigrationResult } from './migrations';

export interface DatabaseConfig {
  /** `postgres://…` for a PostgreSQL server; otherwise embedded. */
  url?: string | null;
  /** The embedded database's home; null = in memory (gone when the process ends). */
  dataDir?: string | null;
}

export async function openDatabase(config: DatabaseConfig): Promise<{ db: Database; migration: MigrationResult }> {
  // The PostgreSQL driver (pg, pg-copy-streams) is loaded only for a team server, not at every embedded start.
  const db = config.url ? await (await import('./postgres')).openPostgresDatabase(config.url) : config.dataDir ? await openEmbeddedDatabase(config.dataDir) : await openMemoryDatabase();
  try {
    return { db, migration: await migrate(db) };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
