/**
 * The embedded database on its own thread (store/pglite-thread.ts, decision 17): PostgreSQL's
 * errors keep their fields across the thread, a transaction commits or rolls back whole, and an
 * open started early by the process entry is the one the service then takes. Closing ends the
 * thread by itself: terminate() on a thread that has run WebAssembly can crash the whole process
 * (nodejs/node#47748; a test worker died of SIGSEGV in service-database.test.ts that way).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseStartError, isUniqueViolation } from '../../src/service/store/database';
import { openEmbeddedDatabase, openEmbeddedDatabaseEarly } from '../../src/service/store/embedded';
import { openPgliteThread } from '../../src/service/store/pglite-thread';
import { tempDirs } from '../support/temp-dirs';

const temp = tempDirs('clarity-thread-');
afterAll(() => temp.removeAll());
const tempDir = temp.make;

describe('the embedded database on its own thread', () => {
  it("keeps PostgreSQL's error fields, commits or rolls back a transaction whole, and keeps rows across a reopen", async () => {
    const dir = await tempDir();
    const db = await openEmbeddedDatabase(dir);
    await db.query('CREATE TABLE notes (id text PRIMARY KEY, body jsonb NOT NULL, n bigint)');
    expect(await db.query('INSERT INTO notes VALUES ($1, $2, $3) RETURNING id', ['a', { words: ['x'] }, 7])).toEqual([{ id: 'a' }]);
    const duplicate = await db.query('INSERT INTO notes VALUES ($1, $2, $3)', ['a', {}, 1]).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect((duplicate as Error).message).toMatch(/duplicate key/);

    const failed = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO notes VALUES ($1, $2, $3)', ['b', {}, 2]);
        throw new Error('changed my mind');
      })
      .catch((error: unknown) => error);
    expect((failed as Error).message).toBe('changed my mind');
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO notes VALUES ($1, $2, $3)', ['c', {}, 3]);
      await tx.query('UPDATE notes SET n = n + 1 WHERE id = $1', ['a']);
    });
    // A transaction's handle kept past its COMMIT is refused, not run outside the queue.
    let kept: { query(sql: string): Promise<unknown[]> } | null = null;
    await db.transaction(async (tx) => {
      kept = tx;
      await tx.query('SELECT 1');
    });
    await expect(kept!.query("DELETE FROM notes WHERE id = 'c'")).rejects.toThrow(/transaction has ended/);
    // A parameter that cannot be copied to the thread fails its query; the next one is served.
    await expect(db.query('SELECT $1::text AS x', [() => 1])).rejects.toThrow();
    expect(await db.query('SELECT $1::text AS x', ['next'])).toEqual([{ x: 'next' }]);
    // A script of several statements (as migrations run) answers with its last statement's rows.
    expect(await db.query("UPDATE notes SET n = 0 WHERE id = 'zz'; SELECT count(*)::int AS n FROM notes")).toEqual([{ n: 2 }]);
    await db.close();

    const reopened = await openEmbeddedDatabase(dir);
    expect(await reopened.query('SELECT id, body, n FROM notes ORDER BY id')).toEqual([
      { id: 'a', body: { words: ['x'] }, n: 8 },
      { id: 'c', body: {}, n: 3 },
    ]);
    await reopened.close();
  }, 120_000);

  it('ends the thread by itself on close, not by terminate()', async () => {
    const dir = await tempDir();
    const thread = await openPgliteThread({ folder: `${dir}/database`, existed: false, template: `${dir}/template.tar.gz`, extraStartParams: [] });
    expect(await thread.run('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await thread.close();
    // A terminated thread exits with 1; one whose loop ran empty after close, with 0.
    expect(await thread.exited).toBe(0);
    await expect(thread.run('SELECT 1')).rejects.toThrow(/thread ended/);
  }, 120_000);

  it('an open started early is the one the service takes, holding the lock meanwhile', async () => {
    const dir = await tempDir();
    openEmbeddedDatabaseEarly(dir);
    const db = await openEmbeddedDatabase(dir);
    // The early open already holds the folder: a second open in this process is refused.
    await expect(openEmbeddedDatabase(dir)).rejects.toBeInstanceOf(DatabaseStartError);
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await db.close();
  }, 120_000);
});
