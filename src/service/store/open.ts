/** Opens the configured database and brings its schema up to this version. */
import type { Database } from './database';
import { openEmbeddedDatabase, openMemoryDatabase } from './embedded';
import { migrate, type MigrationResult } from './migrations';
import { openPostgresDatabase } from './postgres';

export interface DatabaseConfig {
  /** `postgres://…` for a PostgreSQL server; otherwise embedded. */
  url?: string | null;
  /** The embedded database's home; null = in memory (gone when the process ends). */
  dataDir?: string | null;
}

export async function openDatabase(config: DatabaseConfig): Promise<{ db: Database; migration: MigrationResult }> {
  const db = config.url ? await openPostgresDatabase(config.url) : config.dataDir ? await openEmbeddedDatabase(config.dataDir) : await openMemoryDatabase();
  try {
    return { db, migration: await migrate(db) };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
