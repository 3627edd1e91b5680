/** Reading a packed snapshot's columns into the search index (search-index.ts): entity lists and the id order, checked before use. */
import type { CorpusSignal } from '../world/signal-types';
import { ENTITY_KINDS, type EntityKind, type PackedColumns, type Postings } from './search-types';

/** Where `id` is in an id order (its document), by binary search; `idOf` reads a document's id. */
export function findInOrder(order: Int32Array, idOf: (doc: number) => string, id: string): number | undefined {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (idOf(order[mid]!) < id) low = mid + 1;
    else high = mid;
  }
  return low < order.length && idOf(order[low]!) === id ? order[low] : undefined;
}

/** Lists joined into one, in order, documents numbered in the index (pairs [doc, tf, …]). */
export function joined(lists: Postings[]): number[] {
  const all: number[] = [];
  for (const { list, base } of lists) for (let at = 0; at < list.length; at += 2) all.push(list[at]! + base, list[at + 1]!);
  return all;
}

/** The entity lists of packed columns over `size` signals, by kind and name (views of `docs`); throws when malformed. */
export function entityListsOf(columns: PackedColumns, size: number): Record<EntityKind, Map<string, Int32Array>> {
  const { published, names, counts, docs } = columns;
  if (published.length !== size || names.length !== ENTITY_KINDS.length) throw new Error('index snapshot has malformed columns');
  const lists: Record<EntityKind, Map<string, Int32Array>> = { retailers: new Map(), segments: new Map(), cities: new Map(), states: new Map() };
  let name = 0;
  let at = 0;
  for (const [k, kind] of ENTITY_KINDS.entries()) {
    const kindNames = names[k]!;
    if (!Array.isArray(kindNames)) throw new Error('index snapshot has malformed columns');
    for (const entity of kindNames) {
      if (typeof entity !== 'string' || lists[kind].has(entity) || name >= counts.length) throw new Error('index snapshot has a malformed entity list');
      const end = at + counts[name]!;
      if (end > docs.length) throw new Error('index snapshot has a malformed entity list');
      // Each list: document numbers of this snapshot, ascending (search merges and inserts rely on it).
      for (let i = at, previous = -1; i < end; i += 1) {
        const doc = docs[i]!;
        if (doc <= previous || doc >= size) throw new Error('index snapshot has a malformed entity list');
        previous = doc;
      }
      lists[kind].set(entity, docs.subarray(at, end));
      at = end;
      name += 1;
    }
  }
  if (name !== counts.length || at !== docs.length) throw new Error('index snapshot has a malformed entity list');
  return lists;
}

/** Ids checked between two pauses of checkIdOrder (a few ms each). */
const ID_CHECK_STEP = 10_000;

/**
 * Throws unless `order` lists every one of `signals` once, by ascending id (so no id repeats), and
 * none of their ids is one of `held` (the ids the index holds); nothing changes. It yields every
 * ID_CHECK_STEP ids (a caller may give the event loop back there).
 */
export function* checkIdOrder(signals: readonly CorpusSignal[], order: Int32Array, held: Iterable<string>): Generator<void, void> {
  if (order.length !== signals.length) throw new Error('index snapshot has malformed columns');
  let previous: string | null = null;
  for (let at = 0; at < order.length; at += 1) {
    if (at % ID_CHECK_STEP === ID_CHECK_STEP - 1) yield;
    const doc = order[at]!;
    const id = doc >= 0 && doc < signals.length ? signals[doc]!.id : undefined;
    if (typeof id !== 'string') throw new Error('index snapshot has a malformed id order');
    if (previous !== null && !(previous < id)) throw new Error(previous === id ? `index snapshot repeats signal ${id}` : 'index snapshot has a malformed id order');
    previous = id;
  }
  // Strictly ascending ids, each a document number below the count: every document exactly once.
  let checked = 0;
  for (const id of held) {
    if (findInOrder(order, (doc) => signals[doc]!.id, id) !== undefined) throw new Error(`index snapshot repeats signal ${id}`);
    if (++checked % ID_CHECK_STEP === 0) yield;
  }
}
