/**
 * A new embedded database is a copy of a cluster already migrated to this version's schema, kept
 * in the user's cache (store/embedded.ts, open.ts; decision 0040 round 8): the first new database
 * made the old way (PGlite's pristine cluster, then every migration) is kept as that template once
 * migrated and before anything else is written in it; the next new database is copied from it,
 * at this schema with nothing of the first one's rows, and keeps what is written in it; a damaged
 * template is dropped and the database made as before.
 */
import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase } from '../../src/service/store/embedded';
import { migrate, SCHEMA_VERSION } from '../../src/service/store/migrations';
import { schemaKey } from '../../src/service/store/open';
import { tempDirs } from '../support/temp-dirs';

const temp = tempDirs('clarity-db-template-');
afterAll(() => temp.removeAll());

const tables = async (db: { query<T>(sql: string): Promise<T[]> }): Promise<string[]> =>
  (await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")).map((row) => row.name);

describe('the migrated template of a new embedded database', () => {
  it('is kept from the first new database once migrated, and the next new one is a copy at this schema holding none of its rows', async () => {
    // The template's own folder (a test's, not the user cache's, so nothing else here copies it meanwhile).
    const template = join(await temp.make(), `template-${schemaKey()}`);

    const first = await openEmbeddedDatabase(await temp.make(), { migratedTemplate: template });
    expect(first.made).toBe('created');
    expect(await migrate(first)).toEqual({ from: 0, to: SCHEMA_VERSION, backup: null });
    await first.keepAsTemplate(template);
    expect((await stat(join(template, 'PG_VERSION'))).isFile()).toBe(true);
    expect(await readdir(template)).not.toContain('postmaster.pid');
    // Written after the template was kept: not in the next new database.
    await first.query("INSERT INTO follows (id, owner, target, created_at) VALUES ('fol_first', 'usr_1', '{}', 'now')");
    const schema = await tables(first);
    await first.close();

    const dir = await temp.make();
    const second = await openEmbeddedDatabase(dir, { migratedTemplate: template });
    expect(second.made).toBe('copied');
    // Already at this schema: nothing to migrate, no backup taken.
    expect(await migrate(second)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION, backup: null });
    expect(await tables(second)).toEqual(schema);
    expect(await second.query('SELECT id FROM follows')).toEqual([]);
    expect(await second.query('SELECT count(*)::int AS n FROM identity_keys')).toEqual([{ n: 0 }]);
    await second.query("INSERT INTO follows (id, owner, target, created_at) VALUES ('fol_second', 'usr_2', '{}', 'now')");
    await second.close();
    // The copy is this database's own: what was written is there after a restart, the template unchanged.
    const reopened = await openEmbeddedDatabase(dir, { migratedTemplate: template });
    expect(reopened.made).toBe('existing');
    expect(await reopened.query('SELECT id FROM follows')).toEqual([{ id: 'fol_second' }]);
    await reopened.close();
    const fromTemplateAgain = await openEmbeddedDatabase(await temp.make(), { migratedTemplate: template });
    expect(await fromTemplateAgain.query('SELECT id FROM follows')).toEqual([]);
    await fromTemplateAgain.close();
  }, 240_000);

  it('a damaged template is dropped and the new database made as before', async () => {
    const template = join(await temp.make(), `template-${schemaKey()}`);
    const first = await openEmbeddedDatabase(await temp.make(), { migratedTemplate: template });
    await migrate(first);
    await first.keepAsTemplate(template);
    await first.close();
    // The cluster's control file overwritten: PostgreSQL cannot start on a copy.
    await writeFile(join(template, 'global', 'pg_control'), 'not a control file');

    const db = await openEmbeddedDatabase(await temp.make(), { migratedTemplate: template });
    expect(db.made).toBe('created');
    expect(await migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION, backup: null });
    await db.close();
    await expect(stat(template)).rejects.toThrow();
    await rm(template, { recursive: true, force: true });
  }, 240_000);
});
