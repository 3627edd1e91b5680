/**
 * Signals in the database (migration 3), the same queries embedded (PGlite) and on a real
 * PostgreSQL (a throw-away cluster): sample and feed signals kept field for field, replaced by
 * id, listed newest first with Discover's filters and keyset pages, and found by full-text search.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/service/store/database';
import { openMemoryDatabase } from '../../src/service/store/embedded';
import { migrate } from '../../src/service/store/migrations';
import { openPostgresDatabase } from '../../src/service/store/postgres';
import { SignalRepository, type StoredSignal } from '../../src/service/store/signal-repository';
import { postgresBinDir, sharedPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';

const sample = (n: number, overrides: Partial<StoredSignal> = {}): StoredSignal => ({
  id: `sig_${n.toString(16).padStart(16, '0')}`,
  slug: `signal-${n}`,
  title: `Signal ${n} about retail`,
  summary: `Summary ${n}.`,
  body: `Body of signal ${n}.`,
  source_id: 'src_a',
  url: `https://example.test/${n}`,
  published_at: new Date(Date.UTC(2026, 9, 1) + n * 3_600_000).toISOString(),
  type: 'results',
  entities: { retailers: ['DMart'], segments: ['grocery'], cities: [], states: [] },
  metrics: { revenue_cr: n },
  origin: 'sample',
  ...overrides,
});

const feedSignal: StoredSignal = {
  ...sample(100),
  id: 'sig_feed000000000001',
  slug: 'zudio-opens-stores-feed01',
  title: 'Zudio opens 40 stores in Pune',
  summary: 'The Tata value fashion chain expands in Maharashtra.',
  body: 'Zudio, the value fashion format of Trent, opened 40 stores across Pune this quarter.',
  source_id: 'src_feed_1',
  url: 'https://news.example.test/zudio-pune',
  type: 'store_opening',
  entities: { retailers: ['Zudio'], segments: ['fashion'], cities: ['Pune'], states: ['Maharashtra'] },
  metrics: { stores: 40 },
  origin: 'feed',
  canonical_url: 'https://news.example.test/zudio-pune',
  published_at_source: 'item',
  first_seen_at: '2026-10-06T04:10:00.000Z',
  updated_at: null,
  corroborated_by: ['sig_feed000000000002'],
  confidence: 0.5,
};

function contract(name: string, open: () => Promise<Database>): void {
  describe(`signals in the database (${name})`, () => {
    let db: Database;
    let signals: SignalRepository;
    beforeAll(async () => {
      db = await open();
      await migrate(db);
      signals = new SignalRepository(db);
      await signals.put([...Array.from({ length: 30 }, (_, i) => sample(i + 1)), feedSignal]);
    }, 120_000);
    afterAll(() => db?.close());

    it('keeps a sample and a feed signal field for field, by id and by slug', async () => {
      expect(await signals.get(sample(3).id)).toEqual(sample(3));
      expect(await signals.getBySlug(feedSignal.slug)).toEqual(feedSignal);
      expect(await signals.get('sig_ffffffffffffffff')).toBeNull();
      expect(await signals.getMany([feedSignal.id, 'sig_ffffffffffffffff', sample(2).id])).toEqual([feedSignal, sample(2)]);
      expect(await signals.count()).toBe(31);
      expect(await signals.count('feed')).toBe(1);
    });

    it('replaces a signal by id, its entities with it', async () => {
      const changed = sample(5, { title: 'Signal 5 corrected', entities: { retailers: ['Reliance Retail'], segments: [], cities: [], states: [] } });
      await signals.put([changed]);
      expect(await signals.get(changed.id)).toEqual(changed);
      expect(await signals.count()).toBe(31);
      expect((await signals.newest({ entities: ['DMart'], limit: 100 })).map((s) => s.id)).not.toContain(changed.id);
      expect((await signals.newest({ entities: ['reliance retail'] })).map((s) => s.id)).toEqual([changed.id]);
    });

    it('lists newest first with filters, and pages on without repeats or gaps', async () => {
      const all = await signals.newest({ limit: 100 });
      expect(all.map((s) => s.published_at)).toEqual([...all.map((s) => s.published_at)].sort().reverse());
      const first = await signals.newest({ limit: 10, origin: 'sample' });
      const second = await signals.newest({ limit: 10, origin: 'sample', after: first.at(-1)! });
      expect(first.concat(second).map((s) => s.id)).toEqual(all.filter((s) => s.origin === 'sample').slice(0, 20).map((s) => s.id));
      expect((await signals.newest({ type: 'store_opening' })).map((s) => s.id)).toEqual([feedSignal.id]);
      expect((await signals.newest({ sourceId: 'src_feed_1' })).map((s) => s.id)).toEqual([feedSignal.id]);
      const byCity = await signals.newest({ entities: ['pune', 'Nowhere'] });
      expect(byCity.map((s) => s.id)).toEqual([feedSignal.id]);
      const dmart = await signals.newest({ entities: ['DMart'], limit: 5 });
      const dmartNext = await signals.newest({ entities: ['DMart'], limit: 5, after: dmart.at(-1)! });
      expect(dmart.concat(dmartNext).map((s) => s.id)).toEqual(all.filter((s) => s.entities.retailers.includes('DMart')).slice(0, 10).map((s) => s.id));
      const window = await signals.newest({ since: sample(10).published_at, until: sample(12).published_at, limit: 100 });
      expect(window.map((s) => s.id)).toEqual([sample(12).id, sample(11).id, sample(10).id]);
    });

    it('finds signals by words, the title match first, and hides what was published after `until`', async () => {
      const hits = await signals.search('Which stores did Zudio open in Pune?');
      expect(hits[0]?.signal.id).toBe(feedSignal.id);
      expect(hits[0]!.rank).toBeGreaterThan(0);
      expect(await signals.search('Zudio', { until: '2026-10-01T00:00:00Z' })).toEqual([]);
      expect(await signals.search('?? !!')).toEqual([]);
    });

    it('reads every signal back in pages, oldest first', async () => {
      const seen: string[] = [];
      for await (const page of signals.scan(7)) seen.push(...page.map((s) => s.id));
      expect(seen).toHaveLength(31);
      expect(new Set(seen).size).toBe(31);
    });

    it('refuses a signal with an unreadable date and writes nothing of its batch', async () => {
      await expect(signals.put([sample(200), sample(201, { published_at: 'yesterday' })])).rejects.toThrow('not a date: yesterday');
      expect(await signals.get(sample(200).id)).toBeNull();
    });

    it('loads many at once with the indexes and keys the migrations made; a load that fails writes nothing', async () => {
      const schema = async (): Promise<unknown[]> => [
        await db.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('signals', 'signal_entities') ORDER BY indexname"),
        await db.query("SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid IN ('signals'::regclass, 'signal_entities'::regclass) ORDER BY conname"),
      ];
      const before = await schema();
      const loaded = Array.from({ length: 2_500 }, (_, i) =>
        sample(1_000 + i, {
          slug: `bulk-${i}`,
          title: i === 1_234 ? 'Tanishq raises gold jewellery prices in Surat' : `Bulk signal ${i}\twith a tab, a \\ and a newline\nin it`,
          entities: { retailers: i % 2 === 0 ? ['Tanishq'] : ['DMart'], segments: ['jewellery'], cities: i === 1_234 ? ['Surat'] : [], states: [] },
          event_id: i % 3 === 0 ? `evt_${i}` : undefined,
        }),
      );
      for (const signal of loaded) if (signal.event_id === undefined) delete signal.event_id;
      expect(await signals.bulkLoad(loaded, { batch: 1_000 })).toBe(2_500);
      expect(await schema()).toEqual(before);
      expect(await signals.count()).toBe(31 + 2_500);
      expect(await signals.get(loaded[3]!.id)).toEqual(loaded[3]);
      expect(await signals.getBySlug('bulk-1234')).toEqual(loaded[1_234]);
      expect((await signals.newest({ entities: ['surat'] })).map((s) => s.id)).toEqual([loaded[1_234]!.id]);
      expect((await signals.search('Tanishq gold prices'))[0]?.signal.id).toBe(loaded[1_234]!.id);
      // One unreadable signal: the load fails, and nothing of it is written, the indexes still there.
      await expect(signals.bulkLoad([sample(5_000, { slug: 'bulk-late' }), sample(5_001, { slug: 'bulk-later', published_at: 'yesterday' })], { batch: 1 })).rejects.toThrow('not a date: yesterday');
      expect(await signals.get(sample(5_000).id)).toBeNull();
      expect(await schema()).toEqual(before);
    });
  });
}

contract('embedded', openMemoryDatabase);

const hasPostgres = postgresBinDir() !== null;
let cluster: PostgresCluster | null = null;
afterAll(() => cluster?.destroy());
// Without Debian's server binaries (scripts/bootstrap.sh installs them) there is no cluster to start.
describe.skipIf(!hasPostgres)('on PostgreSQL', () => {
  contract('postgres', async () => {
    cluster = await sharedPostgresCluster();
    return openPostgresDatabase(await cluster.createDatabase('signals_test'));
  });
});
