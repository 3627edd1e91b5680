/**
 * Over 450 lines on purpose: one index class whose postings, columns and recency bounds every method
 * shares; its separable parts already live beside it.
 * Full-text retrieval over signals: BM25 on title (weighted), summary, body and entities, boosted by recency and by entities the question names (docs/decisions/design.md §2). Indexing is
 * incremental so live signals are retrievable the moment they arrive. Postings are compressed
 * (postings.ts) and the top-k is pruned (top-k.ts; decision 0040); the words are search-tokens.ts's,
 * the shapes search-types.ts's, a packed snapshot's columns are read by index-columns.ts.
 */
import type { CorpusSignal } from '../world/signal-types';
import { checkIdOrder, entityListsOf, findInOrder, joined } from './index-columns';
import { finishSteps } from './packed-snapshot';
import { boundsOfPairs, ChainCursor, PairsCursor, PostingList, type PostingCursor } from './postings';
import { extractEntities, STOPWORDS, termCounts, tokenize } from './search-tokens';
import {
  ENTITY_KINDS,
  type EntityKind,
  type IndexSnapshot,
  type PackedIndex,
  type Postings,
  type SearchHit,
  type SearchOptions,
} from './search-types';
import { packedSnapshotOfDocs, snapshotOfDocs, type IndexContents } from './index-snapshots';
import { NEWEST_RUN, rankTopK, type RankedTerm } from './top-k';

export { extractEntities, tokenize } from './search-tokens';
export { ENTITY_KINDS } from './search-types';
export type { IndexSnapshot, PackedColumns, PackedIndex, QueryEntities, SearchHit, SearchOptions } from './search-types';

export class SignalSearchIndex {
  private readonly docs: CorpusSignal[] = [];
  private readonly lengths: number[] = [];
  /** Publication times (ms), parsed once rather than at every search. */
  private readonly published: number[] = [];
  private matchScratch = new Uint8Array(0);
  /** The latest publication time in each run of NEWEST_RUN documents, over the first `newestCounted` (the ranking's recency bound; top-k.ts). */
  private readonly newest: number[] = [];
  private newestCounted = 0;
  /** The documents naming each entity (kind and name): entity matches are counted from these. */
  private readonly entityDocs: Record<EntityKind, Map<string, number[]>> = { retailers: new Map(), segments: new Map(), cities: new Map(), states: new Map() };
  /**
   * Entity lists appended from packed snapshots' columns, as `appended` is for postings: views of
   * the file's array, documents numbered from `base`; an entity's documents are its list in
   * `entityDocs` then its list in each of these, and the first change to it merges them.
   */
  private readonly appendedEntities: { base: number; lists: Record<EntityKind, Map<string, Int32Array>> }[] = [];
  /** Each term's own postings, compressed (postings.ts: about 2.5 bytes a posting, skippable by block). */
  private readonly postings = new Map<string, PostingList>();
  /** The bounds (largest count, shortest document) of lists appended from snapshots, worked out at their first search. */
  private readonly appendedBounds = new WeakMap<Int32Array, { maxTf: number; minLength: number }>();
  /**
   * Postings appended from packed snapshots (the stored signals after the sample), one per append:
   * each list a view of the snapshot's own array, its documents numbered from `base` (neither
   * copied nor renumbered at start: O(terms), not O(postings)). A term's postings are its list in
   * `postings` then its list in each of these, in document order; the first change to a term
   * merges them into one growable list.
   */
  private readonly appended: { base: number; lists: Map<string, Int32Array> }[] = [];
  private readonly byId = new Map<string, number>();
  /**
   * Documents appended with columns are found by id through their stored id order (binary
   * search), not in `byId`: a map of 100,000 freshly read ids (hashing each) was a tenth of a restart's
   * main-thread work (bench/notes.md, issue 27 round 7). Ids never change under a document.
   */
  private readonly idSegments: { base: number; order: Int32Array }[] = [];
  private totalLength = 0;

  constructor(signals: Iterable<CorpusSignal> = []) {
    for (const signal of signals) this.add(signal);
    this.trimLists();
  }

  /** After a bulk build (here, or added in steps by a warming store): the lists give back their spare capacity (a third of it, growing by half). */
  trimLists(): void {
    for (const list of this.postings.values()) list.trim();
  }

  /** The index over `signals` (in that order) from a snapshot of it, without tokenizing again. */
  static fromSnapshot(signals: CorpusSignal[], snapshot: IndexSnapshot): SignalSearchIndex {
    if (snapshot.lengths.length !== signals.length) throw new Error('index snapshot does not match its signals');
    const index = new SignalSearchIndex();
    for (const [doc, signal] of signals.entries()) {
      index.docs.push(signal);
      index.byId.set(signal.id, doc);
      index.published.push(Date.parse(signal.published_at));
      const length = snapshot.lengths[doc]!;
      index.lengths.push(length);
      index.totalLength += length;
      index.addEntities(signal, doc);
    }
    for (const [term, list] of Object.entries(snapshot.postings)) {
      if (!Array.isArray(list) || list.length % 2 !== 0) throw new Error('index snapshot has a malformed posting list');
      for (let at = 0; at < list.length; at += 2) {
        const doc = list[at]!;
        if (!(doc >= 0 && doc < signals.length && list[at + 1]! > 0)) throw new Error('index snapshot names a missing document');
        if (at > 0 && !(doc > list[at - 2]!)) throw new Error('index snapshot has a malformed posting list');
      }
      index.postings.set(term, PostingList.from(list, index.lengthOf));
    }
    return index;
  }

  /** The index over `signals` (in that order) from a packed snapshot of it (the corpus cache), without tokenizing again. */
  static fromPacked(signals: CorpusSignal[], packed: PackedIndex): SignalSearchIndex {
    const index = new SignalSearchIndex();
    index.appendPacked(signals, packed);
    return index;
  }

  /**
   * Appends `signals` (none indexed yet) from a packed snapshot of an index over them alone,
   * without tokenizing again: their documents follow the ones already here (stored signals after
   * the sample). Checked whole before anything changes: a malformed one throws, the index untouched.
   */
  appendPacked(signals: CorpusSignal[], packed: PackedIndex): void {
    finishSteps(this.appendPackedSteps(signals, packed));
  }

  /**
   * appendPacked in steps: its checks (nothing changed yet) yield every ID_CHECK_STEP ids, so a
   * warming service answers asks between them; the append itself (array pushes) is one step.
   */
  *appendPackedSteps(signals: CorpusSignal[], packed: PackedIndex): Generator<void, void> {
    const { lengths, terms, counts, pairs } = packed;
    if (lengths.length !== signals.length || counts.length !== terms.length) throw new Error('index snapshot does not match its signals');
    const offset = this.docs.length;
    // Its shape is checked before anything here changes. The numbers in the lists are not walked
    // (12 million of them at 100,000 signals took a second): the file's checksum vouches for them
    // being what packedSnapshotOf wrote, and a search skips a document number it does not hold.
    const lists = new Map<string, Int32Array>();
    let at = 0;
    for (let i = 0; i < terms.length; i += 1) {
      const term = terms[i]!;
      const end = at + counts[i]! * 2;
      if (end > pairs.length || lists.has(term)) throw new Error('index snapshot has a malformed posting list');
      if (end > at) lists.set(term, pairs.subarray(at, end));
      at = end;
    }
    if (at !== pairs.length) throw new Error('index snapshot has a malformed posting list');
    for (const length of lengths) if (!(length >= 0)) throw new Error('index snapshot has a malformed length');
    const columns = packed.columns;
    const entityLists = columns ? entityListsOf(columns, signals.length) : null;
    if (columns) yield* checkIdOrder(signals, columns.byId, this.heldIds());
    // Ids go in first, each checked as it goes (no second set of 100,000); a repeated one takes them out again.
    for (let doc = 0; !columns && doc < signals.length; doc += 1) {
      const id = signals[doc]!.id;
      if (this.docOf(id) !== undefined) {
        for (let added = 0; added < doc; added += 1) this.byId.delete(signals[added]!.id);
        throw new Error(`index snapshot repeats signal ${id}`);
      }
      this.byId.set(id, offset + doc);
    }
    if (columns && entityLists) {
      this.idSegments.push({ base: offset, order: columns.byId });
      // The columns: no date parsed, no entity list walked per signal (the file's checksum vouches
      // for them being what packedSnapshotOf wrote from these very signals).
      const published = columns.published;
      for (let doc = 0; doc < signals.length; doc += 1) {
        this.docs.push(signals[doc]!);
        this.published.push(published[doc]!);
        const length = lengths[doc]!;
        this.lengths.push(length);
        this.totalLength += length;
      }
      this.appendedEntities.push({ base: offset, lists: entityLists });
    } else {
      for (const [doc, signal] of signals.entries()) {
        this.docs.push(signal);
        this.published.push(Date.parse(signal.published_at));
        const length = lengths[doc]!;
        this.lengths.push(length);
        this.totalLength += length;
        this.addEntities(signal, offset + doc);
      }
    }
    if (lists.size > 0) this.appended.push({ base: offset, lists });
  }

  /** Every id the index holds. */
  private *heldIds(): IterableIterator<string> {
    yield* this.byId.keys();
    for (const { base, order } of this.idSegments) for (let at = 0; at < order.length; at += 1) yield this.docs[base + order[at]!]!.id;
  }

  /** The document of an id, if the index holds it. */
  private docOf(id: string): number | undefined {
    const doc = this.byId.get(id);
    if (doc !== undefined) return doc;
    for (const { base, order } of this.idSegments) {
      const found = findInOrder(order, (at) => this.docs[base + at]!.id, id);
      if (found !== undefined) return base + found;
    }
    return undefined;
  }

  /** An entity's documents, in document order: its own list (base 0), then those appended from snapshots' columns. */
  private entityListsFor(kind: EntityKind, name: string): Postings[] {
    const lists: Postings[] = [];
    const own = this.entityDocs[kind].get(name);
    if (own) lists.push({ list: own, base: 0 });
    for (const { base, lists: appended } of this.appendedEntities) {
      const list = appended[kind].get(name);
      if (list) lists.push({ list, base });
    }
    return lists;
  }

  /** An entity's documents as one growable list (lists from a snapshot copied into it once); made when missing. */
  private writableEntity(kind: EntityKind, name: string): number[] {
    const own = this.entityDocs[kind].get(name);
    if (own && !this.appendedEntities.some(({ lists }) => lists[kind].has(name))) return own;
    const merged: number[] = [];
    for (const { list, base } of this.entityListsFor(kind, name)) for (let at = 0; at < list.length; at += 1) merged.push(list[at]! + base);
    for (const { lists } of this.appendedEntities) lists[kind].delete(name);
    this.entityDocs[kind].set(name, merged);
    return merged;
  }

  /** Every entity of a kind with its documents in document order (numbered in the index). */
  private *allEntities(kind: EntityKind): IterableIterator<[string, ArrayLike<number>]> {
    const seen = new Set<string>();
    const names = [...this.entityDocs[kind].keys()];
    for (const { lists } of this.appendedEntities) names.push(...lists[kind].keys());
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      const lists = this.entityListsFor(kind, name);
      if (lists.length === 1 && lists[0]!.base === 0) {
        yield [name, lists[0]!.list];
        continue;
      }
      const all: number[] = [];
      for (const { list, base } of lists) for (let at = 0; at < list.length; at += 1) all.push(list[at]! + base);
      yield [name, all];
    }
  }

  /** A document's length (for a posting list's bounds). */
  private readonly lengthOf = (doc: number): number => this.lengths[doc] ?? 0;

  /** A term's postings, in document order, as pairs: its own list (base 0), then those appended from snapshots. */
  private listsOf(term: string): Postings[] {
    const lists: Postings[] = [];
    const own = this.postings.get(term);
    if (own) lists.push({ list: own.toPairs(), base: 0 });
    for (const { base, lists: appended } of this.appended) {
      const list = appended.get(term);
      if (list) lists.push({ list, base });
    }
    return lists;
  }

  /** A term for the ranking: its idf over `count` documents, a cursor over all its lists and their bounds; null when no signal has it. */
  private rankedTerm(term: string, count: number): RankedTerm | null {
    const cursors: PostingCursor[] = [];
    let documents = 0;
    let maxTf = 0;
    let minLength = Number.POSITIVE_INFINITY;
    const own = this.postings.get(term);
    if (own && own.count > 0) {
      cursors.push(own.cursor());
      documents += own.count;
      maxTf = own.maxTf;
      minLength = own.minLength;
    }
    for (const { base, lists } of this.appended) {
      const list = lists.get(term);
      if (!list || list.length === 0) continue;
      let bounds = this.appendedBounds.get(list);
      if (!bounds) {
        bounds = boundsOfPairs(list, base, this.lengthOf);
        this.appendedBounds.set(list, bounds);
      }
      cursors.push(new PairsCursor(list, base, bounds));
      documents += list.length / 2;
      maxTf = Math.max(maxTf, bounds.maxTf);
      minLength = Math.min(minLength, bounds.minLength);
    }
    if (cursors.length === 0) return null;
    const idf = Math.log(1 + (count - documents + 0.5) / (documents + 0.5));
    return { idf, cursor: cursors.length === 1 ? cursors[0]! : new ChainCursor(cursors), maxTf, minLength };
  }

  private hasPostings(term: string): boolean {
    return this.postings.has(term) || this.appended.some(({ lists }) => lists.has(term));
  }

  /** Every term with its postings in document order (its lists joined, documents numbered in the index). */
  private *allPostings(): IterableIterator<[string, ArrayLike<number>]> {
    for (const term of this.postings.keys()) yield [term, joined(this.listsOf(term))];
    for (const [at, { lists }] of this.appended.entries()) {
      for (const term of lists.keys()) {
        // Each term once: where it first appears.
        if (this.postings.has(term) || this.appended.slice(0, at).some((before) => before.lists.has(term))) continue;
        yield [term, joined(this.listsOf(term))];
      }
    }
  }

  /** A term's own list, with the lists appended from snapshots moved into it first (once). */
  private writable(term: string): PostingList {
    const own = this.postings.get(term);
    if (own && !this.appended.some(({ lists }) => lists.has(term))) return own;
    const merged = PostingList.from(joined(this.listsOf(term)), this.lengthOf);
    for (const { lists: appended } of this.appended) appended.delete(term);
    this.postings.set(term, merged);
    return merged;
  }

  /** Rewrites a term's list as pairs [doc, tf, …] (a replaced signal: rare, so a whole list rebuilt is fine). */
  private rewrite(term: string, edit: (pairs: number[]) => void): void {
    const pairs = this.writable(term).toPairs();
    edit(pairs);
    this.postings.set(term, PostingList.from(pairs, this.lengthOf));
  }

  /** The packed form of snapshotOf (the stored signals' binary snapshot). */
  packedSnapshotOf(ids: Iterable<string>): { signals: CorpusSignal[]; packed: PackedIndex } {
    return packedSnapshotOfDocs(this.contents(), this.docsOf(ids));
  }

  /**
   * A snapshot of the index over these signals alone (those indexed; in the index's own order,
   * returned with it), for appendSnapshot at a later start.
   */
  snapshotOf(ids: Iterable<string>): { signals: CorpusSignal[]; snapshot: IndexSnapshot } {
    return snapshotOfDocs(this.contents(), this.docsOf(ids));
  }

  /** The documents of these ids that the index holds, ascending. */
  private docsOf(ids: Iterable<string>): number[] {
    return [...new Set(ids)].flatMap((id) => this.docOf(id) ?? []).sort((a, b) => a - b);
  }

  /** What the snapshot writers read (index-snapshots.ts). */
  private contents(): IndexContents {
    return { docs: this.docs, lengths: this.lengths, published: this.published, postings: () => this.allPostings(), entities: (kind) => this.allEntities(kind) };
  }

  snapshot(): IndexSnapshot {
    const postings: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
    for (const [term, list] of this.allPostings()) postings[term] = Array.from(list);
    return { lengths: [...this.lengths], postings };
  }

  get size(): number {
    return this.docs.length;
  }

  /** Whether any signal uses this word (stop words count as known): tells typos and unknown names from words. */
  hasTerm(word: string): boolean {
    const lower = word.toLowerCase();
    if (STOPWORDS.has(lower)) return true;
    const [token] = tokenize(lower);
    return token !== undefined && this.hasPostings(token);
  }

  get(id: string): CorpusSignal | undefined {
    const doc = this.docOf(id);
    return doc === undefined ? undefined : this.docs[doc];
  }

  add(signal: CorpusSignal): void {
    if (this.docOf(signal.id) !== undefined) return;
    const doc = this.docs.length;
    this.docs.push(signal);
    this.byId.set(signal.id, doc);
    this.published.push(Date.parse(signal.published_at));
    const { counts, length } = termCounts(signal);
    this.lengths.push(length);
    for (const [token, tf] of counts) this.writable(token).push(doc, tf, length);
    this.totalLength += length;
    this.addEntities(signal, doc);
  }

  /** Replaces a signal's content under the same id: its old terms and entities are taken out first. */
  replace(signal: CorpusSignal): void {
    const doc = this.docOf(signal.id);
    if (doc === undefined) return this.add(signal);
    const old = this.docs[doc]!;
    const dropDoc = (list: number[] | undefined, stride: number): void => {
      if (!list) return;
      for (let at = list.length - stride; at >= 0; at -= stride) if (list[at] === doc) list.splice(at, stride);
    };
    for (const token of new Set(tokenize(`${old.title} ${old.body} ${[...old.entities.retailers, ...old.entities.segments, ...old.entities.cities, ...old.entities.states].join(' ')}`))) {
      if (this.hasPostings(token)) this.rewrite(token, (pairs) => dropDoc(pairs, 2));
    }
    for (const kind of ENTITY_KINDS) for (const name of new Set(old.entities[kind])) dropDoc(this.entityListsFor(kind, name).length > 0 ? this.writableEntity(kind, name) : undefined, 1);
    this.totalLength -= this.lengths[doc]!;
    this.docs[doc] = signal;
    this.published[doc] = Date.parse(signal.published_at);
    if (doc < this.newestCounted) this.noteNewest(doc);
    const { counts, length } = termCounts(signal);
    const entities = signal.entities;
    // The new length first: the lists rebuilt below bound their blocks by it.
    this.lengths[doc] = length;
    this.totalLength += length;
    for (const [token, tf] of counts) {
      this.rewrite(token, (list) => {
        // Postings stay in document order for the search's merge.
        let at = list.length;
        while (at >= 2 && list[at - 2]! > doc) at -= 2;
        list.splice(at, 0, doc, tf);
      });
    }
    for (const kind of ENTITY_KINDS) {
      for (const name of new Set(entities[kind])) {
        const list = this.writableEntity(kind, name);
        let at = list.length;
        while (at >= 1 && list[at - 1]! > doc) at -= 1;
        list.splice(at, 0, doc);
      }
    }
  }

  private addEntities(signal: CorpusSignal, doc: number): void {
    for (const kind of ENTITY_KINDS) {
      const names = signal.entities[kind];
      const lists = this.entityDocs[kind];
      for (let i = 0; i < names.length; i += 1) {
        const name = names[i]!;
        // Each name once per document (no Set per signal: this runs for every stored signal at start).
        if (names.indexOf(name) !== i) continue;
        let list = this.appendedEntities.length > 0 ? this.writableEntity(kind, name) : lists.get(name);
        if (!list) {
          list = [];
          lists.set(name, list);
        }
        list.push(doc);
      }
    }
  }

  /** Raises its run's latest time to this document's (a time that is not a number bounds as the newest possible). */
  private noteNewest(doc: number): void {
    const run = Math.floor(doc / NEWEST_RUN);
    const time = this.published[doc]!;
    const bound = Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
    if (!(this.newest[run]! >= bound)) this.newest[run] = bound;
  }

  /** For each run of documents, the latest publication time from it to the end (documents added since the last search counted first). */
  private newestFrom(count: number): Float64Array {
    for (; this.newestCounted < count; this.newestCounted += 1) this.noteNewest(this.newestCounted);
    const runs = Math.ceil(count / NEWEST_RUN);
    const from = new Float64Array(runs);
    let latest = Number.NEGATIVE_INFINITY;
    for (let run = runs - 1; run >= 0; run -= 1) {
      if (this.newest[run]! > latest) latest = this.newest[run]!;
      from[run] = latest;
    }
    return from;
  }

  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const limit = options.limit ?? 8;
    const now = options.now ?? Date.now();
    const terms = [...new Set(tokenize(query))];
    const count = this.docs.length;
    if (terms.length === 0 || count === 0) return [];
    const entities = extractEntities(query);
    const avgLength = this.totalLength / count;
    const ranked: RankedTerm[] = [];
    for (const term of terms) {
      const found = this.rankedTerm(term, count);
      if (found) ranked.push(found);
    }
    if (ranked.length === 0) return [];
    const wanted = entities.retailers.length + entities.segments.length + entities.cities.length + entities.states.length;
    // How many of the named entities each document names, counted from the entity lists.
    const entityLists = ENTITY_KINDS.flatMap((kind) => entities[kind].flatMap((name) => this.entityListsFor(kind, name)));
    if (this.matchScratch.length < count) this.matchScratch = new Uint8Array(count + 1_024);
    const matches = this.matchScratch;
    for (const { list, base } of entityLists) {
      for (let at = 0; at < list.length; at += 1) {
        const doc = list[at]! + base;
        // A document number it does not hold (only a faulty snapshot could give one) is skipped.
        if (doc >= 0 && doc < count) matches[doc] = matches[doc]! + 1;
      }
    }
    try {
      const view = { count, avgLength, lengths: this.lengths, published: this.published, docs: this.docs, matches, wanted, newestFrom: this.newestFrom(count) };
      return rankTopK(ranked, view, { limit, now, ...(options.until === undefined ? {} : { until: options.until }) });
    } finally {
      for (const { list, base } of entityLists) for (let at = 0; at < list.length; at += 1) matches[list[at]! + base] = 0;
    }
  }
}
