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

  it('built in steps between requests, it gives the same pages, also when a request or an arrival comes mid-build', async () => {
    const anchor = new Date('2026-11-01T00:00:00Z');
    const until = '2026-11-01T00:00:00.000Z';
    const filters: SignalFilter[] = [{}, { entity: 'DMart' }, { city: 'pune' }, { kind: 'funding' }];
    const pages = (store: SignalStore, timeline: SignalTimeline) => filters.map((filter) => timeline.take(30, signalPredicate(store, filter), until, null, filter).map((signal) => signal.id));
    const expected = (store: SignalStore) => {
      const all = [...store.allSignals()].sort(newestFirst);
      return filters.map((filter) => {
        const keep = signalPredicate(store, filter);
        return all.filter((signal) => signal.published_at <= until && keep(signal)).slice(0, 30).map((signal) => signal.id);
      });
    };

    // Warmed in steps to the end: the pages a walk over every signal gives.
    const store = new SignalStore({ signalCount: 4_500, seed: 5, anchor });
    const warmed = new SignalTimeline(store);
    let pauses = 0;
    await warmed.warm(async () => void (pauses += 1));
    expect(pauses).toBeGreaterThan(2);
    expect(pages(store, warmed)).toEqual(expected(store));

    // A request after the first pause finishes the build at once; the warm then has nothing left.
    const asked = new SignalTimeline(store);
    let askedPages: string[][] | null = null;
    await asked.warm(async () => void (askedPages ??= pages(store, asked)));
    expect(askedPages).toEqual(expected(store));

    // An arrival mid-build (after the order was taken): the build begins again and holds it.
    const arriving = new SignalTimeline(store);
    let arrived = false;
    await arriving.warm(async () => {
      if (!arrived) store.addLiveSignal(new Date('2026-10-31T12:00:00Z'));
      arrived = true;
    });
    expect(pages(store, arriving)).toEqual(expected(store));
    expect(pages(store, arriving)[0]![0]).toBe([...store.allSignals()].sort(newestFirst).find((signal) => signal.published_at <= until)!.id);
    for (const timeline of [warmed, asked, arriving]) timeline.close();
  });
});
