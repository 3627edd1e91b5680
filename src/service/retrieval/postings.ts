/**
 * A term's postings, compressed (decision 0040): documents ascending, each stored as the varint gap
 * from the one before it and its weighted term count as a varint, in blocks of BLOCK postings.
 * Per block the index keeps its last document, its first byte, its largest term count and its
 * shortest document: a cursor skips a whole block without decoding it, and the ranking bounds
 * a block's best score without reading it (block-max). At 1M signals a posting takes about 2.5
 * bytes here against 16 as two numbers of a JS array (bench/notes.md).
 */

/** Postings per block: small enough that seeking decodes little, large enough that the block data stays a few percent. */
export const BLOCK = 64;
/** Numbers per block in `blocks`: last document, first byte, largest term count, shortest length. */
const STRIDE = 4;

export class PostingList {
  private bytes = new Uint8Array(8);
  private used = 0;
  private blocks = new Int32Array(STRIDE);
  private blockCount = 0;
  /** How many postings the list holds. */
  count = 0;
  /** The last document (-1 when empty). */
  last = -1;
  /** The largest term count and the shortest document length of any posting (a bound for the whole list). */
  maxTf = 0;
  minLength = Number.POSITIVE_INFINITY;

  /** A list from pairs [doc, tf, …] in ascending document order; `lengthOf` gives a document's length. */
  static from(pairs: ArrayLike<number>, lengthOf: (doc: number) => number, base = 0): PostingList {
    const list = new PostingList();
    for (let at = 0; at < pairs.length; at += 2) list.push(pairs[at]! + base, pairs[at + 1]!, lengthOf(pairs[at]! + base));
    return list;
  }

  /** Adds a posting after the last one (`doc` above `last`); `length` is the document's, for the block's bound. */
  push(doc: number, tf: number, length: number): void {
    if (!(doc > this.last) || !Number.isInteger(doc) || !Number.isInteger(tf) || tf < 0) throw new Error(`a posting out of order or not whole (${doc}, ${tf})`);
    if (this.count % BLOCK === 0) {
      if ((this.blockCount + 1) * STRIDE > this.blocks.length) {
        const grown = new Int32Array(Math.max(STRIDE * 2, Math.ceil(this.blocks.length * 1.5 / STRIDE) * STRIDE));
        grown.set(this.blocks);
        this.blocks = grown;
      }
      const at = this.blockCount * STRIDE;
      this.blocks[at + 1] = this.used;
      this.blocks[at + 2] = 0;
      this.blocks[at + 3] = 0x7fffffff;
      this.blockCount += 1;
    }
    if (this.used + 10 > this.bytes.length) {
      const grown = new Uint8Array(Math.max(16, Math.ceil(this.bytes.length * 1.5)) + 10);
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    this.writeVarint(doc - this.last);
    this.writeVarint(tf);
    const block = (this.blockCount - 1) * STRIDE;
    this.blocks[block] = doc;
    if (tf > this.blocks[block + 2]!) this.blocks[block + 2] = tf;
    const whole = Math.min(0x7fffffff, Math.max(0, Math.floor(length)));
    if (whole < this.blocks[block + 3]!) this.blocks[block + 3] = whole;
    if (tf > this.maxTf) this.maxTf = tf;
    if (whole < this.minLength) this.minLength = whole;
    this.last = doc;
    this.count += 1;
  }

  private writeVarint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.bytes[this.used++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 128);
    }
    this.bytes[this.used++] = rest;
  }

  /** Every posting as pairs [doc, tf, …] in document order. */
  toPairs(): number[] {
    const pairs: number[] = [];
    const cursor = this.cursor();
    for (; cursor.doc !== END; cursor.next()) pairs.push(cursor.doc, cursor.tf);
    return pairs;
  }

  /** Memory held (bytes), spare capacity included. */
  get byteSize(): number {
    return this.bytes.byteLength + this.blocks.byteLength;
  }

  /** Gives the spare capacity back (a list that is done growing for now, e.g. after a bulk build). */
  trim(): void {
    if (this.bytes.length > this.used) this.bytes = this.bytes.slice(0, this.used);
    if (this.blocks.length > this.blockCount * STRIDE) this.blocks = this.blocks.slice(0, this.blockCount * STRIDE);
  }

  cursor(): PostingCursor {
    return new BlockCursor(this.bytes, this.used, this.blocks, this.blockCount);
  }
}

/** The document number of a cursor that has passed its last posting. */
export const END = 0x7fffffff;

/** Walks postings in document order: `doc`/`tf` the current posting (`doc` END past the last). */
export interface PostingCursor {
  doc: number;
  tf: number;
  next(): void;
  /** Moves to the first posting whose document is `target` or later (never back). */
  seek(target: number): void;
  /** The last document of the current block: the cursor's block bounds hold up to it. */
  blockLast(): number;
  /** The largest term count and shortest length in the current block (for its score bound). */
  blockMaxTf(): number;
  blockMinLength(): number;
}

class BlockCursor implements PostingCursor {
  doc = -1;
  tf = 0;
  private block = 0;
  private at = 0;
  /** The byte where the current block ends. */
  private end = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly used: number,
    private readonly blocks: Int32Array,
    private readonly blockCount: number,
  ) {
    if (blockCount === 0 || used === 0) this.doc = END;
    else this.enter(0);
  }

  /** Decodes the first posting of block `b` (gaps in a block count from the last document of the block before). */
  private enter(b: number): void {
    this.block = b;
    this.at = this.blocks[b * STRIDE + 1]!;
    this.end = b + 1 < this.blockCount ? this.blocks[(b + 1) * STRIDE + 1]! : this.used;
    this.doc = b === 0 ? -1 : this.blocks[(b - 1) * STRIDE]!;
    this.decode();
  }

  private varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.bytes[this.at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  }

  private decode(): void {
    this.doc += this.varint();
    this.tf = this.varint();
  }

  next(): void {
    if (this.doc === END) return;
    if (this.at < this.end) this.decode();
    else if (this.block + 1 < this.blockCount) this.enter(this.block + 1);
    else this.doc = END;
  }

  seek(target: number): void {
    if (this.doc >= target) return;
    if (target > this.blocks[this.block * STRIDE]!) {
      // The first block whose last document reaches the target (binary search over the blocks after this one).
      let low = this.block + 1;
      let high = this.blockCount;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (this.blocks[mid * STRIDE]! < target) low = mid + 1;
        else high = mid;
      }
      if (low >= this.blockCount) {
        this.doc = END;
        return;
      }
      this.enter(low);
    }
    while (this.doc < target) this.next();
  }

  blockLast(): number {
    return this.doc === END ? END : this.blocks[this.block * STRIDE]!;
  }

  blockMaxTf(): number {
    return this.blocks[this.block * STRIDE + 2]!;
  }

  blockMinLength(): number {
    return this.blocks[this.block * STRIDE + 3]!;
  }
}

/**
 * A cursor over pairs [doc, tf, …] as a packed snapshot holds them (a view of the file's array),
 * documents numbered from `base`; its "block" is the whole list, with the list's bounds.
 */
export class PairsCursor implements PostingCursor {
  doc: number;
  tf = 0;
  private at = 0;

  constructor(
    private readonly pairs: ArrayLike<number>,
    private readonly base: number,
    private readonly bounds: { maxTf: number; minLength: number },
  ) {
    this.doc = pairs.length === 0 ? END : pairs[0]! + base;
    this.tf = pairs.length === 0 ? 0 : pairs[1]!;
  }

  next(): void {
    this.at += 2;
    if (this.at >= this.pairs.length) {
      this.doc = END;
      return;
    }
    this.doc = this.pairs[this.at]! + this.base;
    this.tf = this.pairs[this.at + 1]!;
  }

  seek(target: number): void {
    if (this.doc >= target) return;
    // Binary search over the pairs left (documents ascending).
    let low = this.at / 2 + 1;
    let high = this.pairs.length / 2;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.pairs[mid * 2]! + this.base < target) low = mid + 1;
      else high = mid;
    }
    this.at = low * 2;
    if (this.at >= this.pairs.length) {
      this.doc = END;
      return;
    }
    this.doc = this.pairs[this.at]! + this.base;
    this.tf = this.pairs[this.at + 1]!;
  }

  blockLast(): number {
    return this.doc === END ? END : this.pairs[this.pairs.length - 2]! + this.base;
  }

  blockMaxTf(): number {
    return this.bounds.maxTf;
  }

  blockMinLength(): number {
    return this.bounds.minLength;
  }
}

/** The largest term count and shortest document of pairs [doc, tf, …] (a list read from a snapshot). */
export function boundsOfPairs(pairs: ArrayLike<number>, base: number, lengthOf: (doc: number) => number): { maxTf: number; minLength: number } {
  let maxTf = 0;
  let minLength = Number.POSITIVE_INFINITY;
  for (let at = 0; at < pairs.length; at += 2) {
    if (pairs[at + 1]! > maxTf) maxTf = pairs[at + 1]!;
    const length = lengthOf(pairs[at]! + base);
    if (length < minLength) minLength = length;
  }
  return { maxTf, minLength: Math.max(0, minLength) };
}

/** Cursors one after another (a term's own list, then lists appended from snapshots: documents ascending across them). */
export class ChainCursor implements PostingCursor {
  doc = END;
  tf = 0;
  private current = 0;

  constructor(private readonly parts: PostingCursor[]) {
    this.settle();
  }

  private settle(): void {
    while (this.current < this.parts.length && this.parts[this.current]!.doc === END) this.current += 1;
    const part = this.parts[this.current];
    this.doc = part ? part.doc : END;
    this.tf = part ? part.tf : 0;
  }

  next(): void {
    const part = this.parts[this.current];
    if (!part) return;
    part.next();
    this.settle();
  }

  seek(target: number): void {
    while (this.current < this.parts.length) {
      const part = this.parts[this.current]!;
      part.seek(target);
      if (part.doc !== END) break;
      this.current += 1;
    }
    this.settle();
  }

  blockLast(): number {
    return this.parts[this.current]?.blockLast() ?? END;
  }

  blockMaxTf(): number {
    return this.parts[this.current]?.blockMaxTf() ?? 0;
  }

  blockMinLength(): number {
    return this.parts[this.current]?.blockMinLength() ?? 0;
  }
}
