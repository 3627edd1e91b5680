/**
 * Discover's newest-first pages walk a per-filter list (follows/signal-timeline.ts): every filter
 * gives exactly the page a walk over all signals gives, paged on, with live arrivals.
 */
import { describe, expect, it } from 'vitest';
import { newestFirst, signalPredicate, type SignalFilter } from '../../src/service/follows/signal-query';
import { SignalTimeline } from '../../src/service/follows/signal-timeline';
import { SignalStore } from '../../src/service/signal-store';

describe('signal timeline', () => {
  it('gives each filter the page a full walk gives, paging on and after live arrivals', () => {
    const store = new SignalStore({ signalCount: 3_000, seed: 5, anchor: new Date('2026-11-01T00:00:00Z') });
    const timeline = new SignalTimeline(store);
    for (let i = 0; i < 30; i += 1) store.addLiveSignal(new Date(Date.parse('2026-10-20T00:00:00Z') + i * 3_600_000));
    const source = store.sources[3]!;
    const filters: SignalFilter[] = [
      {},
      { entity: 'DMart' },
      { entity: 'reliance retail' },
      { city: 'Maharashtra' },
      { city: 'pune' },
      { segment: 'fashion' },
      { kind: 'funding' },
      { kind: source.kind },
      { source: source.id },
      { source: source.name },
      { entity: 'Zudio', city: 'Bengaluru' },
      { ids: [...store.allSignals()].slice(0, 40).map((signal) => signal.id) },
      { entity: 'DMart', sinceMs: Date.parse('2026-06-01T00:00:00Z') },
    ];
    const all = [...store.allSignals()].sort(newestFirst);
    const until = '2026-11-01T00:00:00.000Z';
    for (const filter of filters) {
      const keep = signalPredicate(store, filter);
      const expected = all.filter((signal) => signal.published_at <= until && keep(signal)).map((signal) => signal.id);
      const first = timeline.take(25, keep, until, null, filter);
      expect(first.map((signal) => signal.id), JSON.stringify(filter)).toEqual(expected.slice(0, 25));
      const last = first.at(-1);
      if (last) expect(timeline.take(25, keep, until, last, filter).map((signal) => signal.id)).toEqual(expected.slice(25, 50));
    }
    timeline.close();
  });
});
