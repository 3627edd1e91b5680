/**
 * The database is the source of truth for fetched signals (src/service/stored-signals.ts): a
 * restart answers with every signal stored before it — read row by row the first time, then
 * from the index snapshot kept beside the database plus the rows changed since — and a snapshot
 * that no longer fits the table (a crash after more rows were stored, a damaged file) is set
 * aside, never trusted. A service killed with kill -9 right after a fetch was acknowledged
 * finds that fetch's signals after its restart.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DevIdentityProvider } from '../../src/service/auth';
import { generateCorpus } from '../../src/service/corpus/generator';
import { packSnapshot, unpackSnapshot } from '../../src/service/retrieval/packed-snapshot';
import { startService, type RunningService } from '../../src/service/server';
import { SIGNAL_SNAPSHOT_FILE } from '../../src/service/stored-signals';
import { SignalRepository, type StoredSignal } from '../../src/service/store/signal-repository';
import { processTestBed } from '../support/process-test-bed';
import { FAST_ARGS, startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

const bed = processTestBed('clarity-stored-signals-');

const codeDir = fileURLToPath(new URL('../../src/service/', import.meta.url));
const start = (dataDir: string): Promise<RunningService> =>
  startService({ dataDir, corpusCache: { dir: dataDir, codeDir }, signalCount: 2_000, liveFeed: false, paceMs: 0, sample: 'snapshot' });

/** Fetched-looking signals (origin feed), with ids and slugs of their own so they never meet the sample's. */
function feedSignals(count: number, seed: number, prefix: string): StoredSignal[] {
  return generateCorpus({ signalCount: count, seed }).signals.map((signal, i) => ({
    ...signal,
    id: `sig_${prefix}${i.toString(16).padStart(14, '0')}`,
    slug: `${signal.slug}-${prefix}`,
    origin: 'feed',
    canonical_url: `https://news.example/${prefix}/${i}`,
    published_at_source: 'item',
    first_seen_at: signal.published_at,
    updated_at: null,
    corroborated_by: [],
    confidence: 0.5,
  }));
}

interface DiscoverPage { items: Array<{ id: string; origin: string; title: string }> }
const discoverIds = async (url: string, ids: string[]): Promise<string[]> =>
  ((await (await fetch(`${url}/api/v1/discover?limit=100&id=${ids.join(',')}`)).json()) as DiscoverPage).items.map((item) => item.id).sort();
const spread = (signals: StoredSignal[], n: number): string[] => signals.filter((_, i) => i % Math.ceil(signals.length / n) === 0).map((signal) => signal.id).sort();

describe('stored signals at start', () => {
  it('are read from the rows, then from the snapshot plus the rows changed since; a snapshot that does not fit is set aside', { timeout: 600_000 }, async () => {
    // The migrated empty database a first start leaves (the suite's copy; its sample is this test's own, 2,000 signals).
    const dataDir = await bed.preparedDir({ corpus: false });
    const first = feedSignals(2_500, 11, 'aa');
    // One story only a stored signal tells, for ask to find.
    Object.assign(first[7]!, {
      title: 'DMart opens 12 Quokka pilot stores in Nagpur',
      summary: 'DMart said its Quokka pilot stores in Nagpur beat their sales plan in the first month.',
      body: 'DMart said its Quokka pilot stores in Nagpur beat their sales plan in the first month, and that more Quokka stores would follow.',
      entities: { retailers: ['DMart'], segments: [], cities: ['Nagpur'], states: [] },
    });
    const later = feedSignals(40, 12, 'bb');

    // Stored by a first run (as its fetches store them), then a restart reads every row.
    let service = await start(dataDir);
    expect(service.storedSignals.from).toBe('none');
    await new SignalRepository(service.db).put(first, { timeoutMs: 300_000 });
    await service.close();
    service = await start(dataDir);
    try {
      expect(service.storedSignals).toMatchObject({ from: 'rows', rowsRead: first.length });
      expect(await discoverIds(service.url, spread(first, 100))).toEqual(spread(first, 100));
    } finally {
      await service.close();
    }

    // The next start reads the snapshot written as it closed, and no row.
    service = await start(dataDir);
    try {
      expect(service.storedSignals).toMatchObject({ from: 'snapshot', rowsRead: 0 });
      expect(await discoverIds(service.url, spread(first, 100))).toEqual(spread(first, 100));
      // A stored signal is answerable: asked about its own title, the answer cites it.
      const target = first[7]!;
      const answer = (await (await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'What did DMart say about its Quokka pilot stores?' }] }) })).json()) as { citations: string[] };
      expect(answer.citations).toContain(target.id);
      // Its long texts, kept as bytes in the snapshot and decoded when served, are the stored ones.
      const served = ((await (await fetch(`${service.url}/api/v1/discover?limit=5&id=${target.id}`)).json()) as { items: Array<{ summary: string; url: string }> }).items[0]!;
      expect(served).toMatchObject({ summary: target.summary, url: target.url });
      // Rows stored after the snapshot, one of them an update of a snapshotted signal.
      await new SignalRepository(service.db).put([...later, { ...first[0]!, title: 'Zudio opens its 900th store in Pune, a record for Trent' }], { timeoutMs: 300_000 });
    } finally {
      // What a crash leaves: a snapshot older than the table (close would write a fresh one).
      await service.db.close();
      await service.close().catch(() => undefined);
    }
    await rm(join(dataDir, 'database.lock'), { force: true });
    service = await start(dataDir);
    try {
      expect(service.storedSignals.from).toBe('snapshot');
      expect(service.storedSignals.rowsRead).toBeGreaterThanOrEqual(later.length + 1);
      expect(await discoverIds(service.url, [...spread(first, 60), ...later.map((signal) => signal.id)].sort())).toEqual([...spread(first, 60), ...later.map((signal) => signal.id)].sort());
      const updated = ((await (await fetch(`${service.url}/api/v1/discover?limit=5&id=${first[0]!.id}`)).json()) as DiscoverPage).items[0]!;
      expect(updated.title).toBe('Zudio opens its 900th store in Pune, a record for Trent');
    } finally {
      await service.close();
    }

    // A damaged snapshot: every row is read, nothing is lost.
    await writeFile(join(dataDir, SIGNAL_SNAPSHOT_FILE), '{"format":1,"code":');
    // Beside it, the JSON snapshot an older version kept: left unread, removed once a new one is written.
    await writeFile(join(dataDir, 'signal-index-snapshot.json'), '{"format":1,"code":"older","changeSeq":0,"signals":[]}');
    service = await start(dataDir);
    try {
      expect(service.storedSignals).toMatchObject({ from: 'rows', rowsRead: first.length + later.length });
      expect(await discoverIds(service.url, later.map((signal) => signal.id).sort())).toEqual(later.map((signal) => signal.id).sort());
    } finally {
      await service.close();
    }

    // The snapshot written as that start closed is the binary one, of the stored signals' own layout (CLRPACK3; the older JSON one is gone).
    const written = await readFile(join(dataDir, SIGNAL_SNAPSHOT_FILE));
    expect(written.subarray(0, 8).toString('latin1')).toBe('CLRPACK3');
    expect(await stat(join(dataDir, 'signal-index-snapshot.json')).then(() => true, () => false)).toBe(false);
    // A truncated one (a disk that filled up, a copy cut short) is set aside too: every row is read.
    await writeFile(join(dataDir, SIGNAL_SNAPSHOT_FILE), written.subarray(0, Math.floor(written.length * 0.6)));
    service = await start(dataDir);
    try {
      expect(service.storedSignals).toMatchObject({ from: 'rows', rowsRead: first.length + later.length });
      expect(await discoverIds(service.url, [...spread(first, 60), ...later.map((signal) => signal.id)].sort())).toEqual([...spread(first, 60), ...later.map((signal) => signal.id)].sort());
    } finally {
      await service.close();
    }
    // One changed byte near its end (the index columns): refused by the checksum, never served as a different story.
    const damaged = Buffer.from(await readFile(join(dataDir, SIGNAL_SNAPSHOT_FILE)));
    damaged[damaged.length - 100] = damaged[damaged.length - 100]! ^ 0x20;
    await writeFile(join(dataDir, SIGNAL_SNAPSHOT_FILE), damaged);
    service = await start(dataDir);
    try {
      expect(service.storedSignals).toMatchObject({ from: 'rows', rowsRead: first.length + later.length });
      const updated = ((await (await fetch(`${service.url}/api/v1/discover?limit=5&id=${first[0]!.id}`)).json()) as DiscoverPage).items[0]!;
      expect(updated.title).toBe('Zudio opens its 900th store in Pune, a record for Trent');
    } finally {
      await service.close();
    }
    // Whole again, it is read: snapshot, no row.
    service = await start(dataDir);
    try {
      expect(service.storedSignals).toMatchObject({ from: 'snapshot', rowsRead: 0 });
      expect(await discoverIds(service.url, later.map((signal) => signal.id).sort())).toEqual(later.map((signal) => signal.id).sort());
    } finally {
      await service.close();
    }

    // The same snapshot as format 4 wrote it (no index columns): refused by its number, every row read
    // once, and the snapshot written as that start closes has the columns again.
    const current = unpackSnapshot(await readFile(join(dataDir, SIGNAL_SNAPSHOT_FILE)));
    expect(current.index.columns?.published.length).toBe(first.length + later.length);
    await writeFile(join(dataDir, SIGNAL_SNAPSHOT_FILE), packSnapshot({ ...(current.meta as object), format: 4 }, current.records, { ...current.index, columns: undefined }, { storedSignals: true }));
    service = await start(dataDir);
    try {
      expect(service.storedSignals).toMatchObject({ from: 'rows', rowsRead: first.length + later.length });
    } finally {
      await service.close();
    }
    service = await start(dataDir);
    try {
      expect(service.storedSignals).toMatchObject({ from: 'snapshot', rowsRead: 0 });
      expect(await discoverIds(service.url, [...spread(first, 60), ...later.map((signal) => signal.id)].sort())).toEqual([...spread(first, 60), ...later.map((signal) => signal.id)].sort());
    } finally {
      await service.close();
    }
  });

  it('a kill -9 right after a fetch was acknowledged loses none of its signals', { timeout: 300_000 }, async () => {
    const dataDir = await bed.preparedDir();
    const token = await (await DevIdentityProvider.open(dataDir)).issueToken('admin@example.com', 3_600, Date.now(), { role: 'admin' });
    const args = [...FAST_ARGS, '--allow-private-sources', '--health-max-age', '0', '--data-dir', dataDir];
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const before = await startServiceProcess(args);
    bed.track(before);
    expect((await fetch(`${before.url}/api/v1/sources`, { method: 'POST', headers: auth, body: JSON.stringify({ id: 'desk', name: 'Retail Desk', kind: 'rss', url: `${bed.web.url}/rss.xml`, cadence_s: 3_600 }) })).status).toBe(201);
    // Acknowledged: the source's fetch is recorded as done (its signals were stored before that record).
    await waitFor(async () => ((await (await fetch(`${before.url}/api/v1/sources/desk`, { headers: auth })).json()) as { source: { last_success_at: string | null } }).source.last_success_at, { timeout: 60_000, interval: 100, what: 'the first fetch' });
    const page = (await (await fetch(`${before.url}/api/v1/discover?limit=50&source=desk`)).json()) as DiscoverPage;
    const ids = page.items.map((item) => item.id).sort();
    expect(ids).toHaveLength(4);
    await before.kill9();
    bed.forget(before);

    const after = await startServiceProcess(args);
    bed.track(after);
    try {
      expect(await discoverIds(after.url, ids)).toEqual(ids);
      const answer = (await (await fetch(`${after.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'What was Avenue Supermarts revenue in Q2?' }] }) })).json()) as { citations: string[] };
      expect(answer.citations.some((id) => ids.includes(id))).toBe(true);
    } finally {
      await after.stop();
      bed.forget(after);
    }
  });
});
