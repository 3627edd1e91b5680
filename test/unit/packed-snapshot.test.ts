/**
 * The stored signals' binary snapshot (src/service/retrieval/packed-snapshot.ts): what goes in
 * comes back exactly, and a truncated or damaged file is refused, never read as something else.
 */
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../../src/service/corpus/generator';
import { packSnapshot, unpackSnapshot } from '../../src/service/retrieval/packed-snapshot';
import { SignalSearchIndex } from '../../src/service/retrieval/search-index';

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
    expect(target.size).toBe(20);
    expect(target.get(kept[0]!.id)).toBeUndefined();
  });
});
