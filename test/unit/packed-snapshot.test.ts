/**
 * The stored signals' binary snapshot (src/service/retrieval/packed-snapshot.ts): what goes in
 * comes back exactly, and a truncated or damaged file is refused, never read as something else.
 */
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../../src/service/corpus/generator';
import { LONG_MIN, packSnapshot, unpackSnapshot, unpackSnapshotSteps } from '../../src/service/retrieval/packed-snapshot';
import { SignalSearchIndex } from '../../src/service/retrieval/search-index';
import { lastItemsOf, SignalStore } from '../../src/service/signal-store';

const NOW = Date.parse('2026-11-01T00:00:00Z');

function sample() {
  const signals = generateCorpus({ signalCount: 300, seed: 5 }).signals.map((signal, i) => ({
    ...signal,
    id: `sig_pk${i.toString(16).padStart(14, '0')}`,
    origin: 'feed' as const,
    // The shapes stored signals have: null, booleans, nested arrays, non-ASCII text, a missing key.
    confidence: i % 3 === 0 ? null : 0.25 * (i % 4),
    corroborated_by: i % 2 === 0 ? [] : [`sig_other${i}`],
    published_at_source: i % 5 === 0 ? undefined : 'item',
    flags: { pinned: i % 2 === 0, tags: [['a', 1], [null, true]] },
    ...(i === 7 ? { title: 'Reliance Retail’s ₹1,200 crore bet — कोलकाता stores, 🛒 and “quotes”' } : {}),
  }));
  const index = new SignalSearchIndex();
  const other = new SignalSearchIndex(generateCorpus({ signalCount: 50, seed: 9 }).signals);
  for (const signal of signals) index.add(signal);
  return { signals, index, other };
}

describe('packed snapshot', () => {
  it('gives back the signals and an index that ranks as the one it was taken from', () => {
    const { signals, index, other } = sample();
    const { signals: kept, packed } = index.packedSnapshotOf(signals.map((signal) => signal.id));
    const file = packSnapshot({ format: 2, changeSeq: 41 }, kept, packed);
    const read = unpackSnapshot(file);

    expect(read.meta).toEqual({ format: 2, changeSeq: 41 });
    // Exactly what JSON would keep (a key whose value is undefined is left out, as JSON.stringify does).
    expect(read.records).toStrictEqual(JSON.parse(JSON.stringify(kept)));
    expect((read.records[7] as { title: string }).title).toBe('Reliance Retail’s ₹1,200 crore bet — कोलकाता stores, 🛒 and “quotes”');

    // Appended after other signals (as stored signals follow the sample), search finds the same.
    const rebuilt = new SignalSearchIndex(generateCorpus({ signalCount: 50, seed: 9 }).signals);
    rebuilt.appendPacked(read.records as typeof signals, read.index);
    for (const signal of signals) other.add(signal);
    // The appended lists (views of the file's postings) read as one list per term, in document order.
    expect(rebuilt.snapshot()).toEqual(other.snapshot());
    for (const question of ['How fast is DMart growing?', 'Zudio store openings in Pune', 'quick commerce funding', 'Reliance Retail crore bet']) {
      const ids = (hits: ReturnType<SignalSearchIndex['search']>) => hits.map((hit) => [hit.signal.id, hit.score.toFixed(9)]);
      expect(ids(rebuilt.search(question, { now: NOW, limit: 20 }))).toEqual(ids(other.search(question, { now: NOW, limit: 20 })));
    }
    // The lists read from the file still take changes: a new signal and an edited one.
    const added = { ...signals[0]!, id: 'sig_pk_new', title: 'Quokka opens a store in Nagpur' };
    rebuilt.add(added);
    rebuilt.replace({ ...signals[1]!, title: 'Wombat raises funding in Indore' });
    expect(rebuilt.search('Quokka', { now: NOW, limit: 3 })[0]?.signal.id).toBe('sig_pk_new');
    expect(rebuilt.search('Wombat', { now: NOW, limit: 3 })[0]?.signal.id).toBe(signals[1]!.id);
  });

  it('refuses a truncated or damaged file, and anything that is not one', () => {
    const { signals, index } = sample();
    const { signals: kept, packed } = index.packedSnapshotOf(signals.map((signal) => signal.id));
    const file = packSnapshot({ format: 2 }, kept, packed);

    for (const length of [0, 10, 100, Math.floor(file.length / 2), file.length - 1]) {
      expect(() => unpackSnapshot(file.subarray(0, length)), `cut to ${length} bytes`).toThrow();
    }
    for (const at of [9, 20, Math.floor(file.length / 3), Math.floor(file.length * 0.9), file.length - 1]) {
      const damaged = Buffer.from(file);
      damaged[at] = damaged[at]! ^ 0x5a;
      expect(() => unpackSnapshot(damaged), `byte ${at} changed`).toThrow();
    }
    expect(() => unpackSnapshot(Buffer.from('{"format":1,"code":'))).toThrow(/not a packed snapshot/);
  });

  it('an index snapshot that does not fit its signals leaves the index untouched', () => {
    const { signals, index } = sample();
    const { signals: kept, packed } = index.packedSnapshotOf(signals.map((signal) => signal.id));
    const target = new SignalSearchIndex(generateCorpus({ signalCount: 20, seed: 3 }).signals);
    expect(() => target.appendPacked(kept.slice(1), packed)).toThrow(/does not match/);
    expect(() => target.appendPacked(kept, { ...packed, pairs: packed.pairs.subarray(2) })).toThrow(/malformed|missing/);
    // A repeated signal: refused, and the ids taken in before it are taken out again (without
    // columns; with them the signals no longer fit the stored id order).
    expect(() => target.appendPacked([...kept.slice(0, -1), kept[0]!], { ...packed, columns: undefined })).toThrow(/repeats/);
    expect(() => target.appendPacked([...kept.slice(0, -1), kept[0]!], packed)).toThrow(/repeats|id order/);
    expect(target.size).toBe(20);
    expect(target.get(kept[0]!.id)).toBeUndefined();
  });

  it('keeps long texts as bytes until read, and reads them back exactly', () => {
    const { signals } = sample();
    const long = `Reliance Retail’s ₹1,200 crore bet — कोलकाता stores, 🛒 and “quotes”. ${'x'.repeat(LONG_MIN)}`;
    const records = signals.slice(0, 40).map((signal, i) => ({
      ...signal,
      ...(i === 3 ? { body: long } : {}),
      // Long strings in a nested object (with a key its parent also has) and in an array.
      nested: { body: `nested ${i} ${'n'.repeat(LONG_MIN)}`, note: 'short' },
      quotes: [`quoted ${i} ${'q'.repeat(LONG_MIN)}`],
    }));
    const { packed } = new SignalSearchIndex(records).packedSnapshotOf(records.map((record) => record.id));
    const read = unpackSnapshot(packSnapshot({}, records, packed)).records as typeof records;

    const body = Object.getOwnPropertyDescriptor(read[3], 'body')!;
    expect(body.get, 'a long text is a getter over the file').toBeTypeOf('function');
    expect(Object.getOwnPropertyDescriptor(read[3], 'id')!.value, 'a short one is a plain string').toBe(records[3]!.id);
    expect(read[3]!.body).toBe(long);
    expect(read[3]!.nested.body).toBe(records[3]!.nested.body);
    expect(read).toStrictEqual(JSON.parse(JSON.stringify(records)));
    // Keys in the same order (JSON and answers built from them come out the same), and copies are plain.
    expect(JSON.stringify(read)).toBe(JSON.stringify(records));
    expect({ ...read[5] }).toEqual(records[5]);
    expect(Object.keys(read[5]!)).toEqual(Object.keys(JSON.parse(JSON.stringify(records[5])) as object));
    // A written long text is a plain value from then on.
    read[5]!.summary = 'edited';
    expect(read[5]!.summary).toBe('edited');
    expect(JSON.parse(JSON.stringify(read[5])).summary).toBe('edited');
  });

  it('a damaged byte in a long text, never decoded at start, is caught by the checksum', () => {
    const { signals, index } = sample();
    const { signals: kept, packed } = index.packedSnapshotOf(signals.map((signal) => signal.id));
    // Every text from 64 characters on left in the file (the generated bodies are shorter than LONG_MIN).
    const file = packSnapshot({}, kept, packed, { longMin: 64 });
    const body = Buffer.from(kept[100]!.body, 'utf8');
    expect(body.length).toBeGreaterThanOrEqual(64);
    const at = file.indexOf(body);
    expect(at).toBeGreaterThan(0);
    const damaged = Buffer.from(file);
    damaged[at + 10] = damaged[at + 10]! ^ 0x01;
    expect(() => unpackSnapshot(damaged)).toThrow(/checksum/);
    expect((unpackSnapshot(file).records[100] as { body: string }).body).toBe(kept[100]!.body);
  });

  it('packs records of the stored row shape without their keys (CLRPACK3) and gives every field back exactly', () => {
    const corpus = generateCorpus({ signalCount: 400, seed: 11 }).signals;
    // As signal-repository.ts `fromRow` builds them: the row's key order, optional keys only when set.
    const rows = corpus.map((signal, i) => {
      const feed = i % 4 !== 0;
      const entities =
        i % 2 === 0
          ? { cities: signal.entities.cities, states: signal.entities.states, segments: signal.entities.segments, retailers: signal.entities.retailers }
          : { ...signal.entities };
      const row: Record<string, unknown> = {
        id: `sig_row${i.toString(16).padStart(10, '0')}`,
        slug: `${signal.slug}-row`,
        title: i === 9 ? 'Reliance Retail’s ₹1,200 crore bet — कोलकाता stores, 🛒 and “quotes”' : signal.title,
        summary: i === 10 ? '' : signal.summary,
        body: signal.body,
        source_id: signal.source_id,
        url: i === 11 ? 'https://example.in/समाचार?q=ü' : signal.url,
        published_at: signal.published_at,
        type: signal.type,
        entities,
        metrics: i === 12 ? { growth_pct: 12.5, rank: -3, tiny: 1e-9, big: 1e21, zero: 0, minusZero: -0 } : signal.metrics,
        origin: feed ? 'feed' : 'sample',
      };
      if (signal.event_id) row.event_id = signal.event_id;
      if (signal.period) row.period = signal.period;
      if (feed) {
        row.canonical_url = i % 3 === 0 ? null : `https://example.in/c/${i}`;
        row.published_at_source = i % 5 === 0 ? null : 'item';
        row.first_seen_at = i % 7 === 0 ? null : signal.published_at;
        row.updated_at = i % 2 === 0 ? null : signal.published_at;
        row.corroborated_by = i % 3 === 1 ? [] : Array.from({ length: i % 6 }, (_, k) => `sig_other${i}_${k}`);
        row.confidence = i % 3 === 0 ? null : 0.1 * (i % 10);
      }
      return row;
    });
    // Beside them, records that are not of that shape (read by the generic walk, in the same file).
    const odd = [
      { ...rows[1]!, extra: true },
      { ...rows[2]!, event_id: undefined },
      { ...rows[3]!, body: `long ${'b'.repeat(LONG_MIN)}` },
      { title: rows[5]!.title, ...rows[5]! },
      { ...rows[6]!, entities: { segments: [], retailers: ['Zudio'], states: [], cities: ['Pune'] } },
    ];
    const records = [...rows, ...odd.map((record, i) => ({ ...record, id: `sig_odd${i}` }))] as unknown as Parameters<SignalSearchIndex['add']>[0][];
    const index = new SignalSearchIndex(records);
    const { signals: kept, packed } = index.packedSnapshotOf(records.map((record) => record.id));
    const file = packSnapshot({ format: 4 }, kept, packed, { storedSignals: true });
    expect(file.toString('latin1', 0, 8)).toBe('CLRPACK3');
    // Smaller than the generic walk's file: no keys per record.
    expect(file.length).toBeLessThan(packSnapshot({ format: 4 }, kept, packed).length);

    const read = unpackSnapshot(file);
    expect(read.meta).toEqual({ format: 4 });
    // Every value and every key order as JSON keeps them, and -0 too (numbers are kept as numbers).
    expect(JSON.stringify(read.records)).toBe(JSON.stringify(kept));
    const withoutUndefined = kept.map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));
    expect(read.records).toStrictEqual(withoutUndefined);
    for (const [i, record] of (read.records as Record<string, unknown>[]).entries()) {
      expect(Object.keys(record), `record ${i}`).toEqual(Object.keys(JSON.parse(JSON.stringify(kept[i])) as object));
      expect(Object.keys(record.entities as object), `record ${i}'s entities`).toEqual(Object.keys((kept[i] as unknown as { entities: object }).entities));
    }
    expect(Object.is((read.records[12] as { metrics: Record<string, number> }).metrics.minusZero, -0)).toBe(true);
    expect((read.records[9] as { title: string }).title).toBe('Reliance Retail’s ₹1,200 crore bet — कोलकाता stores, 🛒 and “quotes”');
    expect((read.records[10] as { summary: string }).summary).toBe('');
    // The record with a long body went the generic way: its body stays bytes in the file until read.
    const long = read.records.find((record) => (record as { id: string }).id === 'sig_odd2')!;
    expect(Object.getOwnPropertyDescriptor(long, 'body')!.get).toBeTypeOf('function');
    // Lists read back are ordinary arrays: they take a push like any other.
    const first = read.records[1] as { entities: { retailers: string[] }; corroborated_by: string[] };
    first.corroborated_by.push('sig_new');
    first.entities.retailers.push('Zudio');
    expect((read.records[3] as { corroborated_by: string[] }).corroborated_by).not.toContain('sig_new');

    // Appended after other signals, search finds what the index it was taken from finds.
    const rebuilt = new SignalSearchIndex(generateCorpus({ signalCount: 30, seed: 9 }).signals);
    const other = new SignalSearchIndex(generateCorpus({ signalCount: 30, seed: 9 }).signals);
    rebuilt.appendPacked(unpackSnapshot(file).records as typeof records, read.index);
    for (const record of records) other.add(record);
    for (const question of ['How fast is DMart growing?', 'Zudio store openings in Pune', 'Reliance Retail crore bet']) {
      const ids = (hits: ReturnType<SignalSearchIndex['search']>) => hits.map((hit) => [hit.signal.id, hit.score.toFixed(9)]);
      expect(ids(rebuilt.search(question, { now: NOW, limit: 20 }))).toEqual(ids(other.search(question, { now: NOW, limit: 20 })));
    }

    // A damaged or cut file of this layout is refused, never read as something else.
    for (const at of [9, 20, Math.floor(file.length / 3), Math.floor(file.length / 2), file.length - 1]) {
      const damaged = Buffer.from(file);
      damaged[at] = damaged[at]! ^ 0x20;
      expect(() => unpackSnapshot(damaged), `byte ${at} changed`).toThrow();
    }
    for (const length of [12, Math.floor(file.length / 2), file.length - 1]) expect(() => unpackSnapshot(file.subarray(0, length)), `cut to ${length}`).toThrow();
    // The record tag means nothing in a CLRPACK2 file (the corpus cache's layout): refused, not guessed.
    const relabelled = Buffer.from(file);
    relabelled.write('CLRPACK2', 0, 'latin1');
    expect(() => unpackSnapshot(relabelled, { checksum: relabelled.readUInt32LE(12) })).toThrow(/unknown value tag/);
  });

  it('the index takes its columns (publication times, entity lists) from the file and ranks exactly as before', () => {
    const { signals } = sample();
    // Signals naming entities several times, an unparseable date, and one naming nothing.
    signals[3] = { ...signals[3]!, entities: { ...signals[3]!.entities, retailers: ['DMart', 'Zudio', 'DMart'] } };
    signals[4] = { ...signals[4]!, published_at: 'not a date' };
    signals[5] = { ...signals[5]!, entities: { retailers: [], segments: [], cities: [], states: [] } };
    const fresh = new SignalSearchIndex();
    for (const signal of signals) fresh.add(signal);
    const { signals: kept, packed } = fresh.packedSnapshotOf(signals.map((signal) => signal.id));
    expect(packed.columns).toBeDefined();
    const read = unpackSnapshot(packSnapshot({ format: 5 }, kept, packed, { storedSignals: true }));
    expect(read.index.columns!.published).toEqual(packed.columns!.published);
    expect(Number.isNaN(read.index.columns!.published[4])).toBe(true);
    expect(read.index.columns!.names).toEqual(packed.columns!.names);

    const base = () => new SignalSearchIndex(generateCorpus({ signalCount: 50, seed: 9 }).signals);
    // The old path: every signal added and tokenized (the ranking the service had before the columns).
    const old = base();
    for (const signal of signals) old.add(signal);
    const fromColumns = base();
    fromColumns.appendPacked(read.records as typeof signals, read.index);
    // A file without columns (written before them) is read the old way, per signal.
    const withoutColumns = base();
    withoutColumns.appendPacked(unpackSnapshot(packSnapshot({ format: 4 }, kept, { ...packed, columns: undefined }, { storedSignals: true })).records as typeof signals, { ...read.index, columns: undefined });

    const hits = (target: SignalSearchIndex, question: string, until?: number) =>
      target.search(question, { now: NOW, limit: 40, ...(until === undefined ? {} : { until }) }).map((hit) => [hit.signal.id, hit.score.toFixed(9), hit.textScore.toFixed(9), hit.entityMatches]);
    const questions = ['How fast is DMart growing?', 'Zudio store openings in Pune', 'DMart and Zudio in Maharashtra', 'quick commerce funding in Bengaluru, Karnataka', 'Reliance Retail crore bet', 'grocery stores'];
    const compare = () => {
      for (const question of questions) {
        for (const until of [undefined, NOW - 30 * 86_400_000]) {
          const expected = hits(old, question, until);
          expect(hits(fromColumns, question, until), question).toEqual(expected);
          expect(hits(withoutColumns, question, until), question).toEqual(expected);
        }
      }
      // Every signal found by its id (through the stored id order), the very object the index holds.
      for (const signal of signals) expect(fromColumns.get(signal.id)?.id).toBe(signal.id);
      expect(fromColumns.get('sig_pk_missing')).toBeUndefined();
      expect(fromColumns.get('')).toBeUndefined();
      // The same postings and the same columns written again (entity lists in document order).
      const ids = [...signals.map((signal) => signal.id), 'sig_pk_new'];
      expect(fromColumns.snapshot()).toEqual(old.snapshot());
      expect(fromColumns.packedSnapshotOf(ids).packed.columns).toEqual(old.packedSnapshotOf(ids).packed.columns);
    };
    compare();
    expect(hits(fromColumns, 'DMart').some(([, , , matches]) => (matches as number) > 0)).toBe(true);

    // Changes after the columns were taken: a new signal naming an entity, an edited one losing and gaining some.
    for (const target of [old, fromColumns, withoutColumns]) {
      target.add({ ...signals[0]!, id: 'sig_pk_new', title: 'Quokka opens a store in Nagpur', entities: { retailers: ['DMart'], segments: [], cities: ['Pune'], states: [] } });
      target.replace({ ...signals[3]!, title: 'Wombat raises funding in Indore', entities: { retailers: ['Zudio'], segments: [], cities: ['Indore', 'Pune'], states: [] } });
      target.replace({ ...signals[1]!, published_at: '2026-10-30T00:00:00Z' });
    }
    compare();
  });

  it('read and taken in by a store in steps (a warming service answers between them), it gives the same signals and ranking as at once', () => {
    const { signals, index } = sample();
    const { signals: kept, packed } = index.packedSnapshotOf(signals.map((signal) => signal.id));
    const file = packSnapshot({ format: 5 }, kept, packed, { storedSignals: true });
    const whole = unpackSnapshot(file);
    const steps = unpackSnapshotSteps(file, undefined, 32);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses += 1;
    // 300 records, a pause after every 32 of them.
    expect(pauses).toBe(Math.floor(signals.length / 32));
    expect(step.value.records).toStrictEqual(whole.records);
    expect(step.value.index).toEqual(whole.index);

    const atOnce = new SignalStore({ signalCount: 50, seed: 9 });
    atOnce.addStoredSnapshot(whole.records as typeof signals, whole.index);
    const stepped = new SignalStore({ signalCount: 50, seed: 9 });
    const adding = stepped.addStoredSnapshotSteps(step.value.records as typeof signals, step.value.index);
    while (!adding.next().done);
    for (const question of ['How fast is DMart growing?', 'Zudio store openings in Pune', 'Reliance Retail crore bet']) {
      const ranked = (store: SignalStore) => store.index.search(question, { now: NOW, limit: 40 }).map((hit) => [hit.signal.id, hit.score]);
      expect(ranked(stepped), question).toEqual(ranked(atOnce));
    }
    // The facts an answer reads its figures from: the same groups.
    expect(stepped.facts).toEqual(atOnce.facts);
    // A damaged file is refused by its first step, before any record is read.
    const damaged = Buffer.from(file);
    damaged[damaged.length - 9] = damaged[damaged.length - 9]! ^ 0x20;
    expect(() => unpackSnapshotSteps(damaged).next()).toThrow(/checksum/);
  });

  it('refuses columns that do not fit their signals, the index untouched', () => {
    const { signals, index } = sample();
    const { signals: kept, packed } = index.packedSnapshotOf(signals.map((signal) => signal.id));
    const columns = packed.columns!;
    const target = new SignalSearchIndex(generateCorpus({ signalCount: 20, seed: 3 }).signals);
    const before = target.snapshot();
    const broken = [
      { ...columns, published: columns.published.subarray(1) },
      { ...columns, counts: columns.counts.subarray(1) },
      { ...columns, docs: columns.docs.subarray(1) },
      { ...columns, names: columns.names.slice(1) },
      { ...columns, names: [columns.names[0]!, columns.names[1]!, [...columns.names[2]!.slice(0, -1), columns.names[2]![0]!], columns.names[3]!] },
    ];
    const swapped = Int32Array.from(columns.byId);
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    broken.push({ ...columns, byId: columns.byId.subarray(1) }, { ...columns, byId: swapped }, { ...columns, byId: Int32Array.from(columns.byId, (doc, at) => (at === 5 ? columns.byId[4]! : doc)) }, { ...columns, byId: Int32Array.from(columns.byId, (doc, at) => (at === 0 ? kept.length : doc)) });
    // An entity list naming a document past the snapshot's, or out of order.
    broken.push({ ...columns, docs: Int32Array.from(columns.docs, (doc, at) => (at === 0 ? kept.length : doc)) });
    const firstLong = columns.counts.findIndex((count) => count >= 2);
    const start = columns.counts.subarray(0, firstLong).reduce((sum, count) => sum + count, 0);
    broken.push({ ...columns, docs: Int32Array.from(columns.docs, (doc, at) => (at === start ? columns.docs[start + 1]! : at === start + 1 ? columns.docs[start]! : doc)) });
    for (const [at, bad] of broken.entries()) expect(() => target.appendPacked(kept, { ...packed, columns: bad }), `case ${at}`).toThrow(/columns|entity list|id order|repeats/);
    // Ids in the right order that repeat one, or one the index already holds (its own or appended before): refused.
    const sortedById = (list: typeof kept) => Int32Array.from(list.keys()).sort((a, b) => (list[a]!.id < list[b]!.id ? -1 : list[a]!.id > list[b]!.id ? 1 : 0));
    const repeated = [...kept.slice(0, -1), { ...kept.at(-1)!, id: kept[0]!.id }];
    expect(() => target.appendPacked(repeated, { ...packed, columns: { ...columns, byId: sortedById(repeated) } })).toThrow(/repeats/);
    const clashing = [...kept.slice(0, -1), { ...kept.at(-1)!, id: generateCorpus({ signalCount: 20, seed: 3 }).signals[7]!.id }];
    expect(() => target.appendPacked(clashing, { ...packed, columns: { ...columns, byId: sortedById(clashing) } })).toThrow(/repeats/);
    const segmented = new SignalSearchIndex();
    segmented.appendPacked(kept, packed);
    // Against a segment appended before: with columns and without.
    const renamed = kept.map((signal, at) => (at === 2 ? signal : { ...signal, id: `${signal.id}_b` }));
    expect(() => segmented.appendPacked(renamed, { ...packed, columns: { ...columns, byId: sortedById(renamed) } })).toThrow(/repeats/);
    expect(() => segmented.appendPacked(renamed, { ...packed, columns: undefined })).toThrow(/repeats/);
    expect(segmented.size).toBe(kept.length);
    expect(segmented.get(renamed[0]!.id)).toBeUndefined();
    expect(segmented.get(kept[2]!.id)).toBe(kept[2]);
    expect(target.size).toBe(20);
    expect(target.get(kept[0]!.id)).toBeUndefined();
    expect(target.snapshot()).toEqual(before);
    // And in the file: the columns' sections cut off are refused.
    const file = packSnapshot({ format: 5 }, kept, packed, { storedSignals: true });
    expect(() => unpackSnapshot(file.subarray(0, file.length - 8))).toThrow();
  });

  it('a store given each source\'s last-item time from the snapshot reports what it worked out per signal', () => {
    const { signals } = sample();
    // Some stored signals newer than the sample's, some older, and two sources only stored signals name.
    const stored = signals.map((signal, i) => ({ ...signal, published_at: i % 7 === 0 ? '2027-01-0' + ((i % 9) + 1) + 'T00:00:00Z' : signal.published_at, source_id: i % 50 === 0 ? `src_stored_${i % 100}` : signal.source_id }));
    const fresh = new SignalSearchIndex();
    for (const signal of stored) fresh.add(signal);
    const { signals: kept, packed } = fresh.packedSnapshotOf(stored.map((signal) => signal.id));
    const perSignal = new SignalStore({ signalCount: 40, seed: 9 });
    const fromSnapshot = new SignalStore({ signalCount: 40, seed: 9 });
    perSignal.addStoredSnapshot(kept, packed);
    fromSnapshot.addStoredSnapshot(kept, packed, lastItemsOf(kept));
    const sources = [...perSignal.sources, ...['src_stored_0', 'src_stored_50'].map((id) => ({ ...perSignal.sources[0]!, id }))];
    const lastItems = (store: SignalStore) => sources.map((source) => store.sourceEntry(source, NOW).last_item_at);
    expect(lastItems(fromSnapshot)).toEqual(lastItems(perSignal));
    expect(lastItems(perSignal)).toContain('2027-01-09T00:00:00Z');
    expect(lastItems(perSignal).filter((at) => at !== null).length).toBeGreaterThan(2);
  });
});
