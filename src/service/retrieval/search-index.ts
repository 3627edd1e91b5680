/**
 * Full-text retrieval over signals: BM25 on title (weighted), summary, body and entities,
 * boosted by recency and by entities the question names (docs/decisions/design.md §2). Indexing is
 * incremental so live signals are retrievable the moment they arrive.
 */
import type { CorpusSignal } from '../world/signal-types';
import type { Segment } from '../world/gazetteer';
import { resolveEntities } from './entity-resolver';

const STOPWORDS = new Set(
  'a an and are as at be by did do does for from has have how in is it its of on or that the their this to was were what when where which who why will with about across over than into vs versus fast much many latest recent tell me show give'.split(
    ' ',
  ),
);

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.toLowerCase().normalize('NFKD').split(/[^a-z0-9]+/)) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    tokens.push(stem(raw));
  }
  return tokens;
}

/** A light suffix stemmer: enough to match growing/grows/growth and stores/store. */
function stem(token: string): string {
  if (token.length > 5 && token.endsWith('ing')) return token.slice(0, -3);
  if (token.length > 4 && token.endsWith('ies')) return `${token.slice(0, -3)}y`;
  if (token.length > 4 && token.endsWith('th') && token.startsWith('grow')) return 'grow';
  if (token.length > 3 && token.endsWith('s') && !token.endsWith('ss')) return token.slice(0, -1);
  return token;
}

export interface QueryEntities {
  retailers: string[];
  segments: Segment[];
  cities: string[];
  states: string[];
}

/** Finds the retailers, segments, cities and states a question names (aliases and parents included). */
export function extractEntities(question: string): QueryEntities {
  const { retailers, segments, cities, states } = resolveEntities(question);
  return { retailers, segments, cities, states };
}

export interface SearchHit {
  signal: CorpusSignal;
  score: number;
  /** BM25 alone, before boosts: how well the words matched. */
  textScore: number;
  entityMatches: number;
}

export interface SearchOptions {
  limit?: number;
  now?: number;
  /** Only signals published at or before this time (ms). */
  until?: number;
}

export const ENTITY_KINDS = ['retailers', 'segments', 'cities', 'states'] as const;
type EntityKind = (typeof ENTITY_KINDS)[number];
const K1 = 1.2;
const B = 0.75;
const TITLE_WEIGHT = 3;
const RECENCY_HALF_LIFE_DAYS = 45;
/** The recency factor of a signal published now (written as the factor is, so it rounds alike). */
const MAX_RECENCY = 1 + 0.6 * 0.5 ** 0;

/**
 * The index as plain JSON (the corpus cache): each term's postings as the index keeps them,
 * [doc, tf, doc, tf, …], docs numbered in the order of the signals it was built from.
 */
export interface IndexSnapshot {
  lengths: number[];
  postings: Record<string, number[]>;
}

/**
 * An index snapshot in typed arrays (the binary snapshot, retrieval/packed-snapshot.ts):
 * `terms[i]`'s postings are the next `counts[i]` pairs [doc, tf] of `pairs`.
 */
export interface PackedIndex {
  lengths: Float64Array;
  terms: string[];
  counts: Uint32Array;
  pairs: Int32Array;
  /** Columns the index takes as they are, when the snapshot has them (files written before them do not). */
  columns?: PackedColumns;
}

/**
 * What the index otherwise works out per signal when it is added, stored beside the postings so
 * that appending 100,000 stored signals parses no date and walks no entity list (bench/notes.md,
 * issue 27 round 7): each document's publication time, and the documents naming each entity.
 */
export interface PackedColumns {
  /** Each document's `Date.parse(published_at)` (NaN kept). */
  published: Float64Array;
  /** The documents in the order of their ids (ascending by `<`): a signal is found by id with a binary search, no map of every id. */
  byId: Int32Array;
  /** Per entity kind (ENTITY_KINDS' order), its names; the documents of each name follow in `docs`, kinds one after another. */
  names: string[][];
  /** How many documents each name has (names of every kind, in that order). */
  counts: Uint32Array;
  /** Every name's documents, ascending, numbered in the snapshot. */
  docs: Int32Array;
}

/** Postings [doc, tf, …] whose documents are numbered from `base`. */
interface Postings {
  list: number[] | Int32Array;
  base: number;
}

/** Where `id` is in an id order (its document), by binary search; `idOf` reads a document's id. */
function findInOrder(order: Int32Array, idOf: (doc: number) => string, id: string): number | undefined {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (idOf(order[mid]!) < id) low = mid + 1;
    else high = mid;
  }
  return low < order.length && idOf(order[low]!) === id ? order[low] : undefined;
}

/** Lists joined into one, in order, documents numbered in the index. */
function joined(lists: Postings[]): number[] {
  const all: number[] = [];
  for (const { list, base } of lists) for (let at = 0; at < list.length; at += 2) all.push(list[at]! + base, list[at + 1]!);
  return all;
}

export class SignalSearchIndex {
  private readonly docs: CorpusSignal[] = [];
  private readonly lengths: number[] = [];
  /** Publication times (ms), parsed once rather than at every search. */
  private readonly published: number[] = [];
  private scratch = new Float64Array(0);
  private matchScratch = new Uint8Array(0);
  /** The documents naming each entity (kind and name): entity matches are counted from these. */
  private readonly entityDocs: Record<EntityKind, Map<string, number[]>> = { retailers: new Map(), segments: new Map(), cities: new Map(), states: new Map() };
  /**
   * Entity lists appended from packed snapshots' columns, as `appended` is for postings: views of
   * the file's array, documents numbered from `base`; an entity's documents are its list in
   * `entityDocs` then its list in each of these, and the first change to it merges them.
   */
  private readonly appendedEntities: { base: number; lists: Record<EntityKind, Map<string, Int32Array>> }[] = [];
  /**
   * Each term's postings, flat: [doc, tf, doc, tf, …] (no object per posting to build or read).
   * Lists read from a packed snapshot stay typed arrays until a change needs them growable.
   */
  private readonly postings = new Map<string, number[] | Int32Array>();
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
      }
      index.postings.set(term, list);
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
    const entityLists = columns ? SignalSearchIndex.entityListsOf(columns, signals.length) : null;
    if (columns) this.checkIdOrder(signals, columns.byId);
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

  /**
   * Throws unless `order` lists every one of `signals` once, by ascending id (so no id repeats), and
   * none of their ids is one the index holds; nothing changes here.
   */
  private checkIdOrder(signals: readonly CorpusSignal[], order: Int32Array): void {
    if (order.length !== signals.length) throw new Error('index snapshot has malformed columns');
    let previous: string | null = null;
    for (let at = 0; at < order.length; at += 1) {
      const doc = order[at]!;
      const id = doc >= 0 && doc < signals.length ? signals[doc]!.id : undefined;
      if (typeof id !== 'string') throw new Error('index snapshot has a malformed id order');
      if (previous !== null && !(previous < id)) throw new Error(previous === id ? `index snapshot repeats signal ${id}` : 'index snapshot has a malformed id order');
      previous = id;
    }
    // Strictly ascending ids, each a document number below the count: every document exactly once.
    const held = (id: string): boolean => findInOrder(order, (doc) => signals[doc]!.id, id) !== undefined;
    for (const id of this.byId.keys()) if (held(id)) throw new Error(`index snapshot repeats signal ${id}`);
    for (const { base, order: before } of this.idSegments) {
      for (let at = 0; at < before.length; at += 1) {
        const id = this.docs[base + before[at]!]!.id;
        if (held(id)) throw new Error(`index snapshot repeats signal ${id}`);
      }
    }
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

  /** The entity lists of packed columns over `size` signals, by kind and name (views of `docs`); throws when malformed. */
  private static entityListsOf(columns: PackedColumns, size: number): Record<EntityKind, Map<string, Int32Array>> {
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

  /** A term's postings, in document order: its own list (base 0), then those appended from snapshots. */
  private listsOf(term: string): Postings[] {
    const lists: Postings[] = [];
    const own = this.postings.get(term);
    if (own) lists.push({ list: own, base: 0 });
    for (const { base, lists: appended } of this.appended) {
      const list = appended.get(term);
      if (list) lists.push({ list, base });
    }
    return lists;
  }

  private hasPostings(term: string): boolean {
    return this.postings.has(term) || this.appended.some(({ lists }) => lists.has(term));
  }

  /** Every term with its postings in document order (its lists joined, documents numbered in the index). */
  private *allPostings(): IterableIterator<[string, ArrayLike<number>]> {
    for (const [term, list] of this.postings) {
      const lists = this.listsOf(term);
      yield [term, lists.length === 1 ? list : joined(lists)];
    }
    for (const [at, { lists }] of this.appended.entries()) {
      for (const term of lists.keys()) {
        // Each term once: where it first appears.
        if (this.postings.has(term) || this.appended.slice(0, at).some((before) => before.lists.has(term))) continue;
        yield [term, joined(this.listsOf(term))];
      }
    }
  }

  /** A term's postings as one growable list (lists from a snapshot are copied into it once). */
  private writable(term: string): number[] {
    const lists = this.listsOf(term);
    for (const { lists: appended } of this.appended) appended.delete(term);
    if (lists.length === 1 && Array.isArray(lists[0]!.list)) return lists[0]!.list;
    const growable = joined(lists);
    this.postings.set(term, growable);
    return growable;
  }

  /** The packed form of snapshotOf (the stored signals' binary snapshot). */
  packedSnapshotOf(ids: Iterable<string>): { signals: CorpusSignal[]; packed: PackedIndex } {
    const docs = this.docsOf(ids);
    const { signals, snapshot } = this.snapshotOfDocs(docs);
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
    return { signals, packed: { lengths: Float64Array.from(snapshot.lengths), terms, counts, pairs, columns: this.columnsOf(docs) } };
  }

  /** The columns over these documents (ascending), numbered as in their snapshot. */
  private columnsOf(docs: number[]): PackedColumns {
    const renumbered = new Int32Array(this.docs.length).fill(-1);
    for (const [at, doc] of docs.entries()) renumbered[doc] = at;
    const names: string[][] = [];
    const counts: number[] = [];
    const kept: number[] = [];
    for (const kind of ENTITY_KINDS) {
      const kindNames: string[] = [];
      for (const [name, list] of this.allEntities(kind)) {
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
      const left = this.docs[docs[a]!]!.id;
      const right = this.docs[docs[b]!]!.id;
      return left < right ? -1 : left > right ? 1 : 0;
    });
    return { published: Float64Array.from(docs, (doc) => this.published[doc]!), byId, names, counts: Uint32Array.from(counts), docs: Int32Array.from(kept) };
  }

  /** The documents of these ids that the index holds, ascending. */
  private docsOf(ids: Iterable<string>): number[] {
    return [...new Set(ids)].flatMap((id) => this.docOf(id) ?? []).sort((a, b) => a - b);
  }

  /**
   * A snapshot of the index over these signals alone (those indexed; in the index's own order,
   * returned with it), for appendSnapshot at a later start.
   */
  snapshotOf(ids: Iterable<string>): { signals: CorpusSignal[]; snapshot: IndexSnapshot } {
    return this.snapshotOfDocs(this.docsOf(ids));
  }

  private snapshotOfDocs(docs: number[]): { signals: CorpusSignal[]; snapshot: IndexSnapshot } {
    const renumbered = new Int32Array(this.docs.length).fill(-1);
    for (const [at, doc] of docs.entries()) renumbered[doc] = at;
    const postings: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
    for (const [term, list] of this.allPostings()) {
      let kept: number[] | null = null;
      for (let at = 0; at < list.length; at += 2) {
        const doc = renumbered[list[at]!] ?? -1;
        if (doc < 0) continue;
        (kept ??= []).push(doc, list[at + 1]!);
      }
      if (kept) postings[term] = kept;
    }
    return { signals: docs.map((doc) => this.docs[doc]!), snapshot: { lengths: docs.map((doc) => this.lengths[doc]!), postings } };
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
    const counts = new Map<string, number>();
    const addTokens = (text: string, weight: number): number => {
      const tokens = tokenize(text);
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + weight);
      return tokens.length * weight;
    };
    const entities = signal.entities;
    const length =
      addTokens(signal.title, TITLE_WEIGHT) +
      addTokens(signal.body, 1) +
      addTokens([...entities.retailers, ...entities.segments, ...entities.cities, ...entities.states].join(' '), 1);
    for (const [token, tf] of counts) this.writable(token).push(doc, tf);
    this.lengths.push(length);
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
    for (const token of new Set(tokenize(`${old.title} ${old.body} ${[...old.entities.retailers, ...old.entities.segments, ...old.entities.cities, ...old.entities.states].join(' ')}`))) dropDoc(this.hasPostings(token) ? this.writable(token) : undefined, 2);
    for (const kind of ENTITY_KINDS) for (const name of new Set(old.entities[kind])) dropDoc(this.entityListsFor(kind, name).length > 0 ? this.writableEntity(kind, name) : undefined, 1);
    this.totalLength -= this.lengths[doc]!;
    this.docs[doc] = signal;
    this.published[doc] = Date.parse(signal.published_at);
    const counts = new Map<string, number>();
    const addTokens = (text: string, weight: number): number => {
      const tokens = tokenize(text);
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + weight);
      return tokens.length * weight;
    };
    const entities = signal.entities;
    const length = addTokens(signal.title, TITLE_WEIGHT) + addTokens(signal.body, 1) + addTokens([...entities.retailers, ...entities.segments, ...entities.cities, ...entities.states].join(' '), 1);
    for (const [token, tf] of counts) {
      const list = this.writable(token);
      // Postings stay in document order for the search's merge.
      let at = list.length;
      while (at >= 2 && list[at - 2]! > doc) at -= 2;
      list.splice(at, 0, doc, tf);
    }
    this.lengths[doc] = length;
    this.totalLength += length;
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

  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const limit = options.limit ?? 8;
    const now = options.now ?? Date.now();
    const terms = [...new Set(tokenize(query))];
    const count = this.docs.length;
    if (terms.length === 0 || count === 0) return [];
    const entities = extractEntities(query);
    const avgLength = this.totalLength / count;
    // Scores in a reused array, with the documents in the order first scored (the order ties
    // keep); a search runs synchronously, so one scratch array serves them all.
    if (this.scratch.length < count) this.scratch = new Float64Array(count + 1_024);
    const scores = this.scratch;
    const scored: number[] = [];
    for (const term of terms) {
      const lists = this.listsOf(term);
      if (lists.length === 0) continue;
      let documents = 0;
      for (const { list } of lists) documents += list.length / 2;
      const idf = Math.log(1 + (count - documents + 0.5) / (documents + 0.5));
      for (const { list, base } of lists) {
        for (let at = 0; at < list.length; at += 2) {
          const doc = list[at]! + base;
          const tf = list[at + 1]!;
          // A document number it does not hold (only a faulty snapshot could give one) is skipped.
          if (!(doc >= 0 && doc < count && tf > 0)) continue;
          const norm = tf * (K1 + 1) / (tf + K1 * (1 - B + (B * (this.lengths[doc] ?? avgLength)) / avgLength));
          // Every term's share is above 0, so 0 means "not scored yet".
          if (scores[doc] === 0) scored.push(doc);
          scores[doc] = scores[doc]! + idf * norm;
        }
      }
    }
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
    // The most any boost can multiply a text score by: the newest signal naming every entity.
    const maxBoost = wanted === 0 ? 1 : 1 + 0.5 * wanted;
    // A bounded top-K kept sorted as we go: no sort of every scored document.
    const top: SearchHit[] = [];
    const better = (a: SearchHit, b: SearchHit): boolean =>
      a.score > b.score || (a.score === b.score && a.signal.published_at > b.signal.published_at);
    for (const doc of scored) {
      const textScore = scores[doc]!;
      scores[doc] = 0;
      const signal = this.docs[doc];
      if (!signal) continue;
      // A document that cannot beat the last of a full top-K even with every boost is skipped
      // before its recency and entities are worked out (the ranking is the same).
      if (top.length === limit && textScore * MAX_RECENCY * maxBoost < top[limit - 1]!.score) continue;
      const published = this.published[doc]!;
      if (options.until !== undefined && published > options.until) continue;
      const ageDays = Math.max(0, (now - published) / 86_400_000);
      const recency = 1 + 0.6 * 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
      const entityMatches = matches[doc]!;
      // A signal missing an entity the question names ranks well below one that has it.
      const entityBoost = wanted === 0 ? 1 : ((1 + entityMatches) / (1 + wanted)) * (1 + 0.5 * entityMatches);
      const score = textScore * recency * entityBoost;
      const last = top.length === limit ? top[limit - 1]! : null;
      if (last && !(score > last.score || (score === last.score && signal.published_at > last.signal.published_at))) continue;
      const hit: SearchHit = { signal, textScore, score, entityMatches };
      // Where it goes: after every hit it does not beat (binary search; Discover keeps 1,000).
      let low = 0;
      let high = top.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (better(hit, top[mid]!)) high = mid;
        else low = mid + 1;
      }
      top.splice(low, 0, hit);
      if (top.length > limit) top.pop();
    }
    for (const { list, base } of entityLists) for (let at = 0; at < list.length; at += 1) matches[list[at]! + base] = 0;
    return top;
  }
}
