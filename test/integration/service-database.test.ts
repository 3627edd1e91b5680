/**
 * The embedded database's lifecycle: migrations forward only, a backup before migrating an
 * existing database, a newer schema refused with one sentence, one process per folder.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseStartError } from '../../src/service/store/database';
import { openEmbeddedDatabase } from '../../src/service/store/embedded';
import { migrate, MIGRATIONS, SCHEMA_VERSION } from '../../src/service/store/migrations';
import { tempDirs } from '../support/temp-dirs';

const temp = tempDirs('clarity-db-');
afterAll(() => temp.removeAll());
const tempDir = temp.make;

describe('embedded database', () => {
  it('migrates a new database without a backup, and backs an existing one up before the next migration', async () => {
    const dir = await tempDir();
    const db = await openEmbeddedDatabase(dir);
    expect(await migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION, backup: null });
    await db.query("INSERT INTO follows (id, owner, target, created_at) VALUES ('fol_1', 'usr_1', '{}', 'now')");
    const next = [...MIGRATIONS, { version: SCHEMA_VERSION + 1, name: 'test column', sql: 'ALTER TABLE follows ADD COLUMN note text' }];
    const result = await migrate(db, next);
    expect(result.from).toBe(SCHEMA_VERSION);
    expect(result.backup).toContain(join(dir, 'database-backups'));
    expect((await stat(join(result.backup!, 'PG_VERSION'))).isFile()).toBe(true);
    // The data is still there after the reopen that the backup needs, with the new column.
    expect(await db.query('SELECT id, note FROM follows')).toEqual([{ id: 'fol_1', note: null }]);
    await db.close();
  }, 120_000);

  it('refuses a database written by a newer version, naming it, and changes nothing', async () => {
    const dir = await tempDir();
    const db = await openEmbeddedDatabase(dir);
    await migrate(db);
    await db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from the future', 'later')");
    const refused = await migrate(db).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DatabaseStartError);
    expect((refused as Error).message).toBe(
      `The database at ${join(dir, 'database')} was written by a newer version of Clarity (schema 999; this version knows up to ${SCHEMA_VERSION}): upgrade Clarity, or point it at another database.`,
    );
    expect(await db.query('SELECT max(version) AS v FROM schema_migrations')).toEqual([{ v: 999 }]);
    await db.close();
  }, 120_000);

  it("holds the folder's lock (its pid) while open and releases it on close", async () => {
    const dir = await tempDir();
    const db = await openEmbeddedDatabase(dir);
    const lock = join(dir, 'database.lock');
    expect(await readFile(lock, 'utf8')).toBe(String(process.pid));
    await db.close();
    await expect(stat(lock)).rejects.toThrow();
  }, 120_000);

  it('waits for a previous service still closing the folder, then opens it (an app quit and started again at once)', async () => {
    const dir = await tempDir();
    // A live process holds the lock, as a service still closing its database does, and ends soon.
    const previous = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1500)']);
    await once(previous, 'spawn');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'database.lock'), String(previous.pid));
    const opening = openEmbeddedDatabase(dir);
    const exited = once(previous, 'exit');
    const db = await opening;
    // Opened only after the holder had gone (not taken from under a live process).
    expect(previous.exitCode ?? previous.signalCode).not.toBeNull();
    await exited;
    expect(await readFile(join(dir, 'database.lock'), 'utf8')).toBe(String(process.pid));
    await db.close();
  }, 120_000);
});
