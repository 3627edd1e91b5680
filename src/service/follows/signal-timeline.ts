/**
 * Every signal newest first, kept in order as live signals arrive, so Discover can page
 * through the corpus by walking from a position instead of sorting it per request.
 */
import type { CorpusSignal } from '../corpus/generator';
import type { SignalStore } from '../signal-store';
import { newestFirst } from './signal-query';

export class SignalTimeline {
  private readonly ordered: CorpusSignal[];
  private readonly unsubscribe: () => void;

  constructor(store: SignalStore) {
    this.ordered = [...store.allSignals()].sort(newestFirst);
    this.unsubscribe = store.onSignalAdded((signal) => this.ordered.splice(this.firstAfter(signal), 0, signal));
  }

  close(): void {
    this.unsubscribe();
  }

  /** Index of the first signal that sorts after `reference` (binary search). */
  firstAfter(reference: Pick<CorpusSignal, 'published_at' | 'id'>): number {
    let low = 0;
    let high = this.ordered.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (newestFirst(this.ordered[mid]!, reference as CorpusSignal) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Up to `count` signals after `from` (or from the newest) that `keep` accepts and are published by `untilIso`. */
  take(count: number, keep: (signal: CorpusSignal) => boolean, untilIso: string, from: Pick<CorpusSignal, 'published_at' | 'id'> | null): CorpusSignal[] {
    const found: CorpusSignal[] = [];
    let index = from ? this.firstAfter(from) : this.firstAfter({ published_at: untilIso, id: '\uffff' });
    for (; index < this.ordered.length && found.length < count; index += 1) {
      const signal = this.ordered[index]!;
      if (keep(signal)) found.push(signal);
    }
    return found;
  }
}
