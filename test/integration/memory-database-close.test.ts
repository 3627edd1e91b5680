/**
 * The process's shared in-memory database (services without a data directory) can be closed, so
 * a script or benchmark that ran in-process services ends by itself; never under a service that
 * still uses it.
 */
import { describe, expect, it } from 'vitest';
import { closeMemoryDatabase, openMemoryDatabase } from '../../src/service/store/embedded';

describe('closeMemoryDatabase', () => {
  it('is refused while a service database is open, closes once none is, and a later open starts afresh', async () => {
    const first = await openMemoryDatabase();
    await first.query('CREATE TABLE kept (n int)');
    await first.query('INSERT INTO kept VALUES (1)');
    await expect(closeMemoryDatabase()).rejects.toThrow(/still open/);
    // Refused means untouched: the open one keeps working and keeps its rows.
    expect(await first.query<{ n: number }>('SELECT n FROM kept')).toEqual([{ n: 1 }]);
    await first.close();
    await closeMemoryDatabase();
    const second = await openMemoryDatabase();
    expect(await second.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await second.close();
    await closeMemoryDatabase();
  }, 120_000);
});
