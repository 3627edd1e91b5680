/**
 * Time-ordered library item ids (library-files.ts, docs/decisions/0015): still `lib_<16 hex>`,
 * sorting by `createdAt`, telling a time the item's `createdAt` never exceeds; ids from before
 * (random, or made by hand) are seldom taken for one, and then only change which files a first
 * open reads first (library-glance.ts).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ITEM_FILE, createdAtBoundOfId, libraryItemId } from '../../src/main/services/library/library-files';
import { glanceNames } from '../../src/main/services/library/library-glance';
import { LibraryItemSchema } from '../../src/shared/library';

const NOW = Date.parse('2026-11-26T18:00:00.000Z');

describe('time-ordered library item ids', () => {
  it('are ids of the format, and sort by createdAt', () => {
    const times = Array.from({ length: 400 }, (_, i) => new Date(Date.UTC(2021, 0, 1) + i * 7_777_777 + (i % 3) * 999).toISOString());
    const ids = times.map((time) => libraryItemId(time));
    for (const id of ids) {
      expect(ITEM_FILE.test(`${id}.json`)).toBe(true);
      expect(LibraryItemSchema.shape.id.safeParse(id).success).toBe(true);
    }
    // Times more than a second apart: their ids sort as the times do.
    expect([...ids].sort()).toEqual(ids);
  });

  it('tell a time the createdAt never exceeds, within a second', () => {
    for (const createdAt of ['2026-11-26T17:59:59.999Z', '2026-11-26T17:59:59Z', '2026-11-26T17:59:59.5Z', '2026-11-26T17:59:59.123456Z', '2020-01-01T00:00:00.000Z']) {
      const bound = createdAtBoundOfId(libraryItemId(createdAt), NOW)!;
      expect(bound > createdAt, createdAt).toBe(true);
      expect(Date.parse(bound) - Date.parse(createdAt)).toBeLessThanOrEqual(1000);
    }
    // Two items of one second differ in their random part.
    const same = new Set(Array.from({ length: 1_000 }, () => libraryItemId('2026-11-26T17:00:00.000Z')));
    expect(same.size).toBeGreaterThan(995);
  });

  it('are all random for a createdAt that is not a plain UTC time from 2020 on', () => {
    for (const createdAt of ['2026-11-26T23:29:59+05:30', '26 Nov 2026', '', '2019-12-31T23:59:59.999Z', '２０２６-11-26T00:00:00Z']) {
      const ids = Array.from({ length: 50 }, () => libraryItemId(createdAt));
      for (const id of ids) expect(ITEM_FILE.test(`${id}.json`)).toBe(true);
      // A random id reads as a time-ordered one about once in 80,000.
      expect(ids.filter((id) => createdAtBoundOfId(id, NOW) !== null).length, createdAt).toBeLessThanOrEqual(1);
    }
  });

  it('seldom take an id from before for one, and never one made by hand with leading zeros', () => {
    const bytes = randomBytes(8 * 100_000).toString('hex');
    const random = Array.from({ length: 100_000 }, (_, i) => `lib_${bytes.slice(i * 16, i * 16 + 16)}`);
    // Expected about 1.2 (5 % of random ids say a time from 2020 to now, 1 in 4,096 passes the check).
    expect(random.filter((id) => createdAtBoundOfId(id, NOW) !== null).length).toBeLessThan(15);
    const byHand = Array.from({ length: 5_000 }, (_, i) => `lib_${i.toString(16).padStart(16, '0')}`);
    expect(byHand.filter((id) => createdAtBoundOfId(id, NOW) !== null)).toEqual([]);
  });

  it('are not taken for one when they say a time more than a day ahead, or their check is wrong', () => {
    const ahead = libraryItemId(new Date(NOW + 2 * 24 * 3600_000).toISOString());
    expect(createdAtBoundOfId(ahead, NOW)).toBeNull();
    expect(createdAtBoundOfId(libraryItemId(new Date(NOW + 3600_000).toISOString()), NOW)).not.toBeNull();
    const id = libraryItemId('2026-11-01T00:00:00.000Z');
    const wrongCheck = `${id.slice(0, 19)}${id[19] === '0' ? '1' : '0'}`;
    expect(createdAtBoundOfId(wrongCheck, NOW)).toBeNull();
  });

  it('let a first open estimate from names alone; the other item files are glanced at', () => {
    const named = libraryItemId('2026-11-20T10:00:00.000Z');
    const names = [`${named}.json`, `${named}.md`, 'lib_00000000000000aa.json', `${named} (Ann's conflicted copy 2026-11-23).json`, `${named}.json.1234`, '.clarity-write-test-1'];
    const { glances, unnamed } = glanceNames(names, NOW);
    expect(glances).toEqual([{ name: `${named}.json`, newest: '2026-11-20T10:00:01.000Z', maybeLive: true }]);
    expect(unnamed).toEqual(['lib_00000000000000aa.json']);
  });
});
