/**
 * The library's full-text index: terms → posting lists in typed arrays, persisted as one binary
 * file that a later open reads as one Buffer and searches in place (no JSON to parse, no map per
 * term to rebuild). It replaces MiniSearch with the same matches and the same scores for what the
 * library asks of it (docs/decisions/0013-library-binary-index.md):
 *
 * - tokens split on spaces and punctuation and lower-cased, as MiniSearch's defaults do;
 * - every query term matches itself and, by prefix, longer terms; the last term, if longer than
 *   5 letters, also terms one edit away; all query terms must match (AND);
 * - scores are MiniSearch's BM25+ (k 1.2, b 0.7, d 0.5) with its prefix and fuzzy weights and the
 *   field boosts given, summed over fields, matched terms and query terms.
 *
 * Items added or removed after loading go to small side lists (removed ones are skipped by a flag);
 * `compact()` (done before saving) folds them into fresh arrays. Around it: library-text-terms.ts
 * (tokens and term matching), library-index-file.ts (the file's layout).
 */
import { decodeIndexFile, encodeIndexFile } from './library-index-file';
import { fuzzyFor, GrowableU32, lowerBound, oneEditApart, queryTermsOf, tokensOf } from './library-text-terms';

const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

export { fuzzyFor, queryTermsOf, tokensOf } from './library-text-terms';

/** A matched index term and its weight (1 exact, less for prefix and fuzzy matches). */
interface Expansion {
  term: number;
  weight: number;
}

export class LibraryTextIndex {
  private readonly fields: number;
  /** Document number → id; numbers are never reused before a compaction. */
  private ids: string[] = [];
  private docOf = new Map<string, number>();
  private alive = new Uint8Array(0);
  private liveDocs = 0;
  private deadDocs = 0;
  /** Unique raw tokens per document and field (MiniSearch's field length), `doc * fields + field`. */
  private readonly fieldLength = new GrowableU32();
  private readonly lengthSum: Float64Array;
  /** Sorted terms with compact postings: pairs (doc, term frequency), by `term * fields + field`. */
  private baseTerms: string[] = [];
  private baseOffsets: Uint32Array<ArrayBufferLike> = new Uint32Array(1);
  private basePostings: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  /** Terms first seen after the last compaction (ids after the base's), and their sorted order. */
  private newTerms: string[] = [];
  private newTermId = new Map<string, number>();
  /** Sorted on demand (null after a new term): inserting each of 100,000 terms of a first open in order would be quadratic. */
  private newSorted: string[] | null = [];
  /** Postings added after the last compaction, by `term * fields + field`: pairs (doc, frequency). */
  private added = new Map<number, number[]>();
  /** Base term ids by length, for fuzzy matching (built on first use). */
  private byLength: Map<number, number[]> | null = null;
  private scores = new Float64Array(0);
  private marks = new Uint32Array(0);
  private epoch = 1;

  constructor(private readonly boosts: readonly number[]) {
    this.fields = boosts.length;
    this.lengthSum = new Float64Array(this.fields);
  }

  get size(): number {
    return this.liveDocs;
  }

  has(id: string): boolean {
    return this.docOf.has(id);
  }

  /** Adds a document (or replaces the one with this id); `fieldTexts` in the order of the boosts. */
  add(id: string, fieldTexts: readonly string[]): void {
    if (this.docOf.has(id)) this.remove(id);
    const doc = this.ids.length;
    this.ids.push(id);
    this.docOf.set(id, doc);
    this.growDocs(doc + 1);
    this.alive[doc] = 1;
    this.liveDocs += 1;
    this.fieldLength.ensure((doc + 1) * this.fields);
    for (let field = 0; field < this.fields; field += 1) {
      const tokens = tokensOf(fieldTexts[field] ?? '');
      const length = new Set(tokens).size;
      this.fieldLength.data[doc * this.fields + field] = length;
      this.lengthSum[field]! += length;
      const counts = new Map<string, number>();
      for (const token of tokens) {
        const term = token.toLowerCase();
        if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      for (const [term, count] of counts) {
        const key = this.termIdOf(term, true) * this.fields + field;
        let list = this.added.get(key);
        if (!list) this.added.set(key, (list = []));
        list.push(doc, count);
      }
    }
  }

  remove(id: string): void {
    const doc = this.docOf.get(id);
    if (doc === undefined) return;
    this.docOf.delete(id);
    this.alive[doc] = 0;
    this.liveDocs -= 1;
    this.deadDocs += 1;
    for (let field = 0; field < this.fields; field += 1) this.lengthSum[field]! -= this.fieldLength.data[doc * this.fields + field]!;
  }

  clear(): void {
    this.ids = [];
    this.docOf = new Map();
    this.alive = new Uint8Array(0);
    this.liveDocs = 0;
    this.deadDocs = 0;
    this.lengthSum.fill(0);
    this.baseTerms = [];
    this.baseOffsets = new Uint32Array(1);
    this.basePostings = new Uint32Array(0);
    this.newTerms = [];
    this.newTermId = new Map();
    this.newSorted = [];
    this.added = new Map();
    this.byLength = null;
  }

  private growDocs(count: number): void {
    if (count <= this.alive.length) return;
    const capacity = Math.max(count, this.alive.length * 2, 64);
    const alive = new Uint8Array(capacity);
    alive.set(this.alive);
    this.alive = alive;
    this.scores = new Float64Array(capacity);
    this.marks = new Uint32Array(capacity);
    this.epoch = 1;
  }

  /** A term's id, or -1; with `create`, a new term gets one. */
  private termIdOf(term: string, create = false): number {
    const at = lowerBound(this.baseTerms, term);
    if (at < this.baseTerms.length && this.baseTerms[at] === term) return at;
    const known = this.newTermId.get(term);
    if (known !== undefined) return known;
    if (!create) return -1;
    const id = this.baseTerms.length + this.newTerms.length;
    this.newTerms.push(term);
    this.newTermId.set(term, id);
    this.newSorted = null;
    return id;
  }

  private termText(id: number): string {
    return id < this.baseTerms.length ? this.baseTerms[id]! : this.newTerms[id - this.baseTerms.length]!;
  }

  /** The index terms a query term matches, with MiniSearch's weights (exact 1, prefix, then fuzzy). */
  private expand(query: string, fuzzy: number): Expansion[] {
    const out: Expansion[] = [];
    const exact = this.termIdOf(query);
    if (exact >= 0) out.push({ term: exact, weight: 1 });
    const prefixed = (term: string): void => {
      const distance = term.length - query.length;
      if (distance > 0) out.push({ term: this.termIdOf(term), weight: (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance) });
    };
    for (let i = lowerBound(this.baseTerms, query); i < this.baseTerms.length && this.baseTerms[i]!.startsWith(query); i += 1) prefixed(this.baseTerms[i]!);
    const newSorted = (this.newSorted ??= [...this.newTerms].sort());
    for (let i = lowerBound(newSorted, query); i < newSorted.length && newSorted[i]!.startsWith(query); i += 1) prefixed(newSorted[i]!);
    if (fuzzy > 0) {
      // One edit away and not a prefix match (those are scored as prefix matches above).
      const fuzzyMatch = (id: number): void => {
        const term = this.termText(id);
        if (!term.startsWith(query) && oneEditApart(query, term)) out.push({ term: id, weight: (FUZZY_WEIGHT * term.length) / (term.length + 1) });
      };
      const byLength = this.termsByLength();
      for (let length = query.length - 1; length <= query.length + 1; length += 1) for (const id of byLength.get(length) ?? []) fuzzyMatch(id);
      for (let i = 0; i < this.newTerms.length; i += 1) if (Math.abs(this.newTerms[i]!.length - query.length) <= 1) fuzzyMatch(this.baseTerms.length + i);
    }
    return out;
  }

  /**
   * Builds now what the first typo-tolerant search would otherwise build on the analyst's
   * keystroke (the terms grouped by length: about 20 ms at 10,000 items).
   */
  warm(): void {
    this.termsByLength();
  }

  private termsByLength(): Map<number, number[]> {
    if (this.byLength) return this.byLength;
    const byLength = new Map<number, number[]>();
    this.baseTerms.forEach((term, id) => {
      let list = byLength.get(term.length);
      if (!list) byLength.set(term.length, (list = []));
      list.push(id);
    });
    return (this.byLength = byLength);
  }

  /** How many postings a list of expansions holds (to score the rarest query term first). */
  private postingCount(expansions: Expansion[]): number {
    let n = 0;
    for (const { term } of expansions) {
      for (let field = 0; field < this.fields; field += 1) {
        const key = term * this.fields + field;
        if (term < this.baseTerms.length) n += this.baseOffsets[key + 1]! - this.baseOffsets[key]!;
        n += (this.added.get(key)?.length ?? 0) / 2;
      }
    }
    return n;
  }

  /**
   * Every live document matching all terms of `text`, with its score. The query term held by the
   * fewest postings is scored first; each further one only for the documents still in.
   */
  search(text: string): Array<{ id: string; score: number }> {
    const terms = queryTermsOf(text);
    if (terms.length === 0 || this.liveDocs === 0) return [];
    const plans = terms.map((term, i) => this.expand(term, fuzzyFor(term, i, terms)));
    const counts = plans.map((plan) => this.postingCount(plan));
    const order = plans.map((_, i) => i).sort((a, b) => counts[a]! - counts[b]!);
    if (this.epoch + terms.length + 2 >= 0xffff_fff0) {
      this.marks.fill(0);
      this.epoch = 1;
    }
    const start = this.epoch;
    this.epoch += terms.length + 1;
    const { marks, scores, alive } = this;
    const touched: number[] = [];
    const documents = this.liveDocs;
    for (let step = 0; step < order.length; step += 1) {
      const needed = start + step; // a document still in carries this mark before this term
      let any = false;
      for (const { term, weight } of plans[order[step]!]!) {
        for (let field = 0; field < this.fields; field += 1) {
          const key = term * this.fields + field;
          const fromBase = term < this.baseTerms.length;
          const lo = fromBase ? this.baseOffsets[key]! : 0;
          const hi = fromBase ? this.baseOffsets[key + 1]! : 0;
          const extra = this.added.get(key);
          if (hi === lo && !extra) continue;
          // Documents holding the term in this field (MiniSearch's "matching fields"), live ones only.
          let matching = (hi - lo) / 2 + (extra ? extra.length / 2 : 0);
          if (this.deadDocs > 0) {
            matching = 0;
            for (let p = lo; p < hi; p += 2) matching += alive[this.basePostings[p]!]!;
            if (extra) for (let p = 0; p < extra.length; p += 2) matching += alive[extra[p]!]!;
          }
          if (matching === 0) continue;
          const idf = Math.log(1 + (documents - matching + 0.5) / (matching + 0.5));
          const factor = weight * this.boosts[field]! * idf;
          const average = this.lengthSum[field]! / documents;
          const score = (doc: number, frequency: number): void => {
            if (!alive[doc]) return;
            const mark = marks[doc]!;
            if (step === 0) {
              if (mark !== start + 1) {
                marks[doc] = start + 1;
                scores[doc] = 0;
                touched.push(doc);
              }
            } else if (mark === needed) marks[doc] = needed + 1;
            else if (mark !== needed + 1) return;
            const length = this.fieldLength.data[doc * this.fields + field]!;
            scores[doc]! += factor * (BM25.d + (frequency * (BM25.k + 1)) / (frequency + BM25.k * (1 - BM25.b + (BM25.b * length) / average)));
            any = true;
          };
          for (let p = lo; p < hi; p += 2) score(this.basePostings[p]!, this.basePostings[p + 1]!);
          if (extra) for (let p = 0; p < extra.length; p += 2) score(extra[p]!, extra[p + 1]!);
        }
      }
      if (!any) return [];
    }
    const final = start + order.length;
    const out: Array<{ id: string; score: number }> = [];
    for (const doc of touched) if (marks[doc] === final) out.push({ id: this.ids[doc]!, score: scores[doc]! });
    return out;
  }

  /** Folds added and removed documents into fresh sorted arrays (documents renumbered). */
  compact(): void {
    if (this.added.size === 0 && this.deadDocs === 0 && this.newTerms.length === 0) return;
    const fields = this.fields;
    const renumber = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    for (let doc = 0; doc < this.ids.length; doc += 1) if (this.alive[doc]) renumber[doc] = ids.push(this.ids[doc]!) - 1;
    const lengths = new Uint32Array(Math.max(ids.length * fields, 1));
    for (let doc = 0; doc < this.ids.length; doc += 1) if (renumber[doc]! >= 0) lengths.set(this.fieldLength.data.subarray(doc * fields, doc * fields + fields), renumber[doc]! * fields);
    // Every term with a live posting, sorted; its postings per field in document order.
    const allTerms = [...this.baseTerms, ...this.newTerms];
    const lists = new Map<number, number[]>();
    const collect = (key: number, doc: number, frequency: number): void => {
      const to = renumber[doc]!;
      if (to < 0) return;
      let list = lists.get(key);
      if (!list) lists.set(key, (list = []));
      list.push(to, frequency);
    };
    for (let key = 0; key < this.baseTerms.length * fields; key += 1) for (let p = this.baseOffsets[key]!; p < this.baseOffsets[key + 1]!; p += 2) collect(key, this.basePostings[p]!, this.basePostings[p + 1]!);
    for (const [key, list] of this.added) for (let p = 0; p < list.length; p += 2) collect(key, list[p]!, list[p + 1]!);
    const liveTerms = new Set<number>();
    for (const key of lists.keys()) liveTerms.add(Math.floor(key / fields));
    const sortedIds = [...liveTerms].sort((a, b) => (allTerms[a]! < allTerms[b]! ? -1 : 1));
    const offsets = new Uint32Array(sortedIds.length * fields + 1);
    let total = 0;
    for (const list of lists.values()) total += list.length;
    const postings = new Uint32Array(total);
    let at = 0;
    sortedIds.forEach((term, i) => {
      for (let field = 0; field < fields; field += 1) {
        offsets[i * fields + field] = at;
        const list = lists.get(term * fields + field);
        if (!list) continue;
        const pairs: Array<[number, number]> = [];
        for (let p = 0; p < list.length; p += 2) pairs.push([list[p]!, list[p + 1]!]);
        pairs.sort((a, b) => a[0] - b[0]);
        for (const [doc, frequency] of pairs) {
          postings[at++] = doc;
          postings[at++] = frequency;
        }
      }
    });
    offsets[sortedIds.length * fields] = at;
    this.adopt(
      ids,
      lengths,
      sortedIds.map((id) => allTerms[id]!),
      offsets,
      postings,
    );
  }

  private adopt(ids: string[], lengths: Uint32Array<ArrayBufferLike>, terms: string[], offsets: Uint32Array<ArrayBufferLike>, postings: Uint32Array<ArrayBufferLike>): void {
    this.ids = ids;
    this.docOf = new Map(ids.map((id, doc) => [id, doc]));
    this.alive = new Uint8Array(0);
    this.growDocs(ids.length);
    this.alive.fill(1, 0, ids.length);
    this.liveDocs = ids.length;
    this.deadDocs = 0;
    this.fieldLength.data = lengths;
    this.lengthSum.fill(0);
    for (let doc = 0; doc < ids.length; doc += 1) for (let field = 0; field < this.fields; field += 1) this.lengthSum[field]! += lengths[doc * this.fields + field]!;
    this.baseTerms = terms;
    this.baseOffsets = offsets;
    this.basePostings = postings;
    this.newTerms = [];
    this.newTermId = new Map();
    this.newSorted = [];
    this.added = new Map();
    this.byLength = null;
  }

  /**
   * The index as one file: a header (magic, format version, CRC-32 of the body, body length), then
   * the key, the ids, the sorted terms, field lengths, offsets and postings (little-endian u32s).
   */
  serialize(key: string): Buffer {
    this.compact();
    return encodeIndexFile(key, { fields: this.fields, ids: this.ids, terms: this.baseTerms, lengths: this.fieldLength.data.subarray(0, this.ids.length * this.fields), offsets: this.baseOffsets, postings: this.basePostings });
  }

  /**
   * An index read back from `serialize`'s bytes, or null if they are not one for `key` (another
   * format, another key, torn, or inconsistent): the caller then rebuilds from the library files.
   */
  static deserialize(file: Buffer, key: string, boosts: readonly number[]): LibraryTextIndex | null {
    const read = decodeIndexFile(file, key, boosts.length);
    if (!read) return null;
    const index = new LibraryTextIndex(boosts);
    index.adopt(read.ids, read.lengths, read.terms, read.offsets, read.postings);
    return index;
  }
}
