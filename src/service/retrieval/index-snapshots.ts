/** Snapshots of the search index over some of its signals: the JSON form and the packed one with its columns (search-index.ts's snapshotOf and packedSnapshotOf). */
import type { CorpusSignal } from '../world/signal-types';
import { ENTITY_KINDS, type EntityKind, type IndexSnapshot, type PackedColumns, type PackedIndex } from './search-types';

/** What a snapshot is written from: the index's documents, their lengths and times, every term's and entity's documents (numbered in the index). */
export interface IndexContents {
  docs: readonly CorpusSignal[];
  lengths: readonly number[];
  published: readonly number[];
  postings(): Iterable<[string, ArrayLike<number>]>;
  entities(kind: EntityKind): Iterable<[string, ArrayLike<number>]>;
}

/** A snapshot over these documents (ascending), renumbered from 0 in their order. */
export function snapshotOfDocs(index: IndexContents, docs: number[]): { signals: CorpusSignal[]; snapshot: IndexSnapshot } {
  const renumbered = new Int32Array(index.docs.length).fill(-1);
  for (const [at, doc] of docs.entries()) renumbered[doc] = at;
  const postings: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  for (const [term, list] of index.postings()) {
    let kept: number[] | null = null;
    for (let at = 0; at < list.length; at += 2) {
      const doc = renumbered[list[at]!] ?? -1;
      if (doc < 0) continue;
      (kept ??= []).push(doc, list[at + 1]!);
    }
    if (kept) postings[term] = kept;
  }
  return { signals: docs.map((doc) => index.docs[doc]!), snapshot: { lengths: docs.map((doc) => index.lengths[doc]!), postings } };
}

export function packedSnapshotOfDocs(index: IndexContents, docs: number[]): { signals: CorpusSignal[]; packed: PackedIndex } {
  const { signals, snapshot } = snapshotOfDocs(index, docs);
  const terms = Object.keys(snapshot.postings);
  const counts = new Uint32Array(terms.length);
  let total = 0;
  for (const [i, term] of terms.entries()) {
    counts[i] = snapshot.postings[term]!.length / 2;
    total += snapshot.postings[term]!.length;
  }
  const pairs = new Int32Array(total);
  let at = 0;
  for (const term of terms) {
    for (const value of snapshot.postings[term]!) {
      // Documents and weighted term counts are whole numbers; anything else cannot be packed.
      if (!Number.isInteger(value)) throw new Error(`term ${term} has a posting that is not a whole number`);
      pairs[at++] = value;
    }
  }
  return { signals, packed: { lengths: Float64Array.from(snapshot.lengths), terms, counts, pairs, columns: columnsOf(index, docs) } };
}

/** The columns over these documents (ascending), numbered as in their snapshot. */
function columnsOf(index: IndexContents, docs: number[]): PackedColumns {
  const renumbered = new Int32Array(index.docs.length).fill(-1);
  for (const [at, doc] of docs.entries()) renumbered[doc] = at;
  const names: string[][] = [];
  const counts: number[] = [];
  const kept: number[] = [];
  for (const kind of ENTITY_KINDS) {
    const kindNames: string[] = [];
    for (const [name, list] of index.entities(kind)) {
      const from = kept.length;
      for (let at = 0; at < list.length; at += 1) {
        const doc = renumbered[list[at]!] ?? -1;
        if (doc >= 0) kept.push(doc);
      }
      if (kept.length === from) continue;
      kindNames.push(name);
      counts.push(kept.length - from);
    }
    names.push(kindNames);
  }
  const byId = Int32Array.from(docs.keys()).sort((a, b) => {
    const left = index.docs[docs[a]!]!.id;
    const right = index.docs[docs[b]!]!.id;
    return left < right ? -1 : left > right ? 1 : 0;
  });
  return { published: Float64Array.from(docs, (doc) => index.published[doc]!), byId, names, counts: Uint32Array.from(counts), docs: Int32Array.from(kept) };
}
