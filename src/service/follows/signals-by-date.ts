/**
 * The store's signals in publication order, for a new follow's backfill: the signals published
 * in its window are found by binary search, not by a walk over every signal the store holds (a
 * team caller may make 1,000 follows; the walk over 20,000 signals was most of each follow's
 * cost, profiled). Built at the first backfill, then kept in order as signals arrive or are
 * replaced by a new version; rebuilt if it ever holds a different number of signals than the store.
 */
import type { CorpusSignal } from '../world/signal-types';
import type { SignalStore } from '../signal-store';

/** Oldest first; ties by id. */
function oldestFirst(a: Pick<CorpusSignal, 'published_at' | 'id'>, b: Pick<CorpusSignal, 'published_at' | 'id'>): number {
  if (a.published_at !== b.published_at) return a.published_at < b.published_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Index of the first signal in an oldest-first list that does not sort before `reference`. */
function firstNotBefore(list: readonly CorpusSignal[], reference: Pick<CorpusSignal, 'published_at' | 'id'>): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (oldestFirst(list[mid]!, reference) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

export class SignalsByDate {
  private list: CorpusSignal[] | null = null;
  private readonly unsubscribe: Array<() => void>;

  constructor(private readonly store: SignalStore) {
    this.unsubscribe = [
      // Not built yet: the build reads every signal the store then holds, this one included.
      store.onSignalHeld((signal) => {
        if (this.list) this.insert(this.list, signal);
      }),
      store.onSignalReplaced((previous, next) => {
        if (!this.list) return;
        const at = this.list.indexOf(previous, firstNotBefore(this.list, previous));
        if (at >= 0) this.list.splice(at, 1);
        this.insert(this.list, next);
      }),
    ];
  }

  close(): void {
    for (const undo of this.unsubscribe) undo();
  }

  /** The signals published from `sinceIso` to `untilIso`, both included, oldest first. */
  between(sinceIso: string, untilIso: string): CorpusSignal[] {
    const list = this.ordered();
    const found: CorpusSignal[] = [];
    // An empty id sorts before every id: the first signal published at `sinceIso` or later.
    for (let index = firstNotBefore(list, { published_at: sinceIso, id: '' }); index < list.length; index += 1) {
      const signal = list[index]!;
      if (signal.published_at > untilIso) break;
      found.push(signal);
    }
    return found;
  }

  private ordered(): CorpusSignal[] {
    // A signal the store took in without telling its listeners (a snapshot read at start) makes
    // the counts differ: everything is read again, so the list is never short of a signal.
    if (!this.list || this.list.length !== this.store.signalCount) this.list = [...this.store.allSignals()].sort(oldestFirst);
    return this.list;
  }

  private insert(list: CorpusSignal[], signal: CorpusSignal): void {
    list.splice(firstNotBefore(list, signal), 0, signal);
  }
}
