/**
 * Signals and their search index in one compact binary file, read back in a fraction of the
 * time JSON takes (100,000 fetched signals: a 113 MB JSON snapshot took seconds to parse;
 * bench/notes.md). What makes it fast:
 * - the index's postings are typed arrays, used as they lie in the file (no number parsing);
 * - the short texts of every signal are one run of UTF-8, decoded in one call and cut into the
 *   signals' strings by length (V8 slices share the decoded text instead of copying it);
 * - long texts (a fetched article's body) stay bytes in the file until they are read: an object's
 *   long string is a getter that decodes its bytes at each read (decoding 100,000 signals' texts
 *   at every start cost seconds, bench/notes.md). The file stays in memory as one Buffer, which
 *   was checked whole (CRC-32) before anything is read from it;
 * - keys and short strings that repeat (types, entity names, source ids) are written once.
 * Any other JSON value (numbers, booleans, null, arrays, objects) keeps its shape exactly.
 *
 * The layout: 8 bytes magic, u32 header length, u32 CRC-32 of everything after it, the header
 * (JSON: the caller's `meta` and the sections' sizes), then the sections, each 8-byte aligned.
 * A file that is truncated, damaged (checksum), of another layout or of a big-endian machine
 * is refused with an error; the caller then reads its source of truth instead.
 */
import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import type { PackedIndex } from './search-index';

/** 2: long texts in their own region, decoded on use. */
const MAGIC = 'CLRPACK2';
const PREFIX_BYTES = 16;
/** Strings up to this long that occur more than once go in the dictionary. */
const WORD_MAX = 48;
/**
 * Strings at least this long stay bytes in the file until read (the shorter ones are decoded at
 * start, in one run). A getter costs about as much to define as decoding 150–200 bytes (measured
 * on 100,000 signals, bench/notes.md): at 64 characters the generated signals' summaries, bodies
 * and URLs went lazy and the start was no faster, so only texts well past that (a fetched
 * article's body) are left in the file.
 */
export const LONG_MIN = 512;
/** A run of text is cut before it passes this many bytes (V8's longest string is about 512 M characters). */
const PIECE_BYTES = 128 * 2 ** 20;

/** What each value is, one byte per value in the tags section. */
const Tag = {
  Null: 0,
  False: 1,
  True: 2,
  Number: 3,
  /** The next string of the text runs; its length (UTF-16 units) in the u32 stream. */
  Text: 4,
  /** A dictionary string; its index in the u32 stream. */
  Word: 5,
  /** An array; its length in the u32 stream, then its items. */
  Array: 6,
  /** An object; its key count in the u32 stream, then per key its dictionary index and value. */
  Object: 7,
  /** As Text, from the runs of ASCII text (decoded as one-byte strings, a copy of the bytes). */
  Ascii: 8,
  /** A long ASCII string: its byte length in the u32 stream, its bytes the next of the long region. */
  LongAscii: 9,
  /** A long string with other characters, as LongAscii (UTF-8). */
  LongText: 10,
} as const;


/** Runs of text being written: whole strings, a new run before one would pass PIECE_BYTES. */
class TextRuns {
  readonly pieces: string[][] = [[]];
  private bytes = 0;
  add(text: string, bytes: number): void {
    if (this.bytes + bytes > PIECE_BYTES && this.bytes > 0) {
      this.pieces.push([]);
      this.bytes = 0;
    }
    this.pieces.at(-1)!.push(text);
    this.bytes += bytes;
  }
}

/** Runs of text being read: each string cut from the current run by its length. */
class TextReader {
  private piece = 0;
  private at = 0;
  private text: string;
  constructor(private readonly pieces: string[]) {
    this.text = pieces[0] ?? '';
  }
  next(length: number): string {
    // A string never spans runs: one that does not fit starts the next run.
    while (this.at + length > this.text.length && this.at === this.text.length && this.piece + 1 < this.pieces.length) {
      this.piece += 1;
      this.text = this.pieces[this.piece]!;
      this.at = 0;
    }
    if (this.at + length > this.text.length) throw new Error('its text is shorter than its strings');
    const string = this.text.slice(this.at, this.at + length);
    this.at += length;
    return string;
  }
  get done(): boolean {
    return this.piece === Math.max(0, this.pieces.length - 1) && this.at === this.text.length;
  }
}

interface Header {
  meta: unknown;
  records: number;
  tags: number;
  u32: number;
  f64: number;
  /** Byte length of each run of ASCII text, then of each run of other text. */
  ascii: number[];
  pieces: number[];
  /** How many long strings, and the byte length of each run of them (back to back in the file). */
  longs: number;
  long: number[];
  /** Dictionary strings, in order. */
  words: string[];
  terms: string[];
  pairs: number;
}

class Streams {
  tags: number[] = [];
  u32: number[] = [];
  f64: number[] = [];
  readonly ascii = new TextRuns();
  readonly utf8 = new TextRuns();
  readonly long = new TextRuns();
  longs = 0;
  readonly words = new Map<string, number>();
  constructor(
    private readonly repeated: Set<string>,
    private readonly longMin: number,
  ) {}

  word(text: string): number {
    let at = this.words.get(text);
    if (at === undefined) {
      at = this.words.size;
      this.words.set(text, at);
    }
    return at;
  }

  value(value: unknown): void {
    if (value === null || value === undefined) this.tags.push(Tag.Null);
    else if (value === true) this.tags.push(Tag.True);
    else if (value === false) this.tags.push(Tag.False);
    else if (typeof value === 'number') {
      this.tags.push(Tag.Number);
      this.f64.push(value);
    } else if (typeof value === 'string') {
      if (value.length <= WORD_MAX && this.repeated.has(value)) {
        this.tags.push(Tag.Word);
        this.u32.push(this.word(value));
      } else if (value.length >= this.longMin) {
        const bytes = Buffer.byteLength(value);
        this.tags.push(bytes === value.length ? Tag.LongAscii : Tag.LongText);
        this.u32.push(bytes);
        this.long.add(value, bytes);
        this.longs += 1;
      } else {
        this.u32.push(value.length);
        // As many UTF-8 bytes as characters: every one below 128 (ASCII).
        const bytes = Buffer.byteLength(value);
        if (bytes === value.length) {
          this.tags.push(Tag.Ascii);
          this.ascii.add(value, bytes);
        } else {
          this.tags.push(Tag.Text);
          this.utf8.add(value, bytes);
        }
      }
    } else if (Array.isArray(value)) {
      this.tags.push(Tag.Array);
      this.u32.push(value.length);
      for (const item of value) this.value(item);
    } else if (typeof value === 'object') {
      // As JSON would: keys whose value is undefined are left out.
      const record = value as Record<string, unknown>;
      this.tags.push(Tag.Object);
      const countAt = this.u32.length;
      this.u32.push(0);
      let count = 0;
      for (const key of Object.keys(record)) {
        const item = record[key];
        if (item === undefined) continue;
        count += 1;
        this.u32.push(this.word(key));
        this.value(item);
      }
      this.u32[countAt] = count;
    } else {
      throw new Error(`a ${typeof value} cannot be packed`);
    }
  }
}

/** Short strings seen more than once (worth a dictionary entry). */
function repeatedStrings(records: readonly unknown[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.length > WORD_MAX) return;
      if (seen.has(value)) repeated.add(value);
      else seen.add(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (value !== null && typeof value === 'object') {
      for (const item of Object.values(value)) visit(item);
    }
  };
  for (const record of records) visit(record);
  return repeated;
}

const align = (at: number): number => (at + 7) & ~7;
/** The checksum covers the header length (these bytes) and everything from CHECKSUM_FROM on (early-reads.ts computes it off the main thread). */
export const CHECKSUM_SEED = [8, 12] as const;
export const CHECKSUM_FROM = PREFIX_BYTES;
/** CRC-32 of the header length and of everything after the checksum's own place. */
const checksum = (file: Buffer): number => crc32(file.subarray(CHECKSUM_FROM), crc32(file.subarray(...CHECKSUM_SEED)));

/** The file's bytes: `meta` (JSON), the records (JSON values) and the index over them. */
export function packSnapshot(meta: unknown, records: readonly unknown[], index: PackedIndex, options: { longMin?: number } = {}): Buffer {
  if (index.counts.length !== index.terms.length) throw new Error('the index has a count per term');
  const streams = new Streams(repeatedStrings(records), options.longMin ?? LONG_MIN);
  for (const record of records) streams.value(record);
  const ascii = streams.ascii.pieces.map((strings) => Buffer.from(strings.join(''), 'latin1'));
  const pieces = streams.utf8.pieces.map((strings) => Buffer.from(strings.join(''), 'utf8'));
  const long = streams.long.pieces.map((strings) => Buffer.from(strings.join(''), 'utf8'));
  const header: Header = {
    meta,
    records: records.length,
    tags: streams.tags.length,
    u32: streams.u32.length,
    f64: streams.f64.length,
    ascii: ascii.map((piece) => piece.length),
    pieces: pieces.map((piece) => piece.length),
    longs: streams.longs,
    long: long.map((piece) => piece.length),
    words: [...streams.words.keys()],
    terms: index.terms,
    pairs: index.pairs.length,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const sections: Uint8Array[] = [
    new Uint8Array(new Float64Array(streams.f64).buffer),
    index.lengths.byteLength > 0 ? new Uint8Array(index.lengths.buffer, index.lengths.byteOffset, index.lengths.byteLength) : new Uint8Array(0),
    new Uint8Array(new Uint32Array(streams.u32).buffer),
    new Uint8Array(index.counts.buffer, index.counts.byteOffset, index.counts.byteLength),
    new Uint8Array(index.pairs.buffer, index.pairs.byteOffset, index.pairs.byteLength),
    Uint8Array.from(streams.tags),
    ...ascii,
    ...pieces,
    // One region: a long string's place is the sum of the lengths before it.
    Buffer.concat(long),
  ];
  let size = align(PREFIX_BYTES + headerBytes.length);
  for (const section of sections) size = align(size + section.byteLength);
  const file = Buffer.alloc(size);
  file.write(MAGIC, 0, 'latin1');
  file.writeUInt32LE(headerBytes.length, 8);
  headerBytes.copy(file, PREFIX_BYTES);
  let at = align(PREFIX_BYTES + headerBytes.length);
  for (const section of sections) {
    file.set(section, at);
    at = align(at + section.byteLength);
  }
  file.writeUInt32LE(checksum(file), 12);
  return file;
}

/** Where an object keeps the first of its long strings' entries in LazyTexts (not enumerable: JSON, spread and equality skip it). */
const FIRST_LONG = Symbol('first long text');

/**
 * The long strings of a snapshot's objects, read from the file's bytes at each read of the
 * property (a getter; nothing decoded is kept, so memory holds the file once). Writing the
 * property makes it a plain value. An object's entries lie together (its nested objects' entries
 * are added when those close, before it), so a getter finds its own key from the object's first
 * entry on.
 */
class LazyTexts {
  private readonly starts: Float64Array;
  private readonly ends: Float64Array;
  /** The key's dictionary index, negative (-1 - index) for a string of other text than ASCII. */
  private readonly keys: Int32Array;
  private count = 0;
  /** Entries of the objects still being read (start, end, key), innermost last. */
  private readonly pending: number[] = [];
  private readonly accessors = new Map<number, PropertyDescriptor>();

  constructor(
    private readonly file: Buffer,
    size: number,
    private readonly words: string[],
  ) {
    this.starts = new Float64Array(size);
    this.ends = new Float64Array(size);
    this.keys = new Int32Array(size);
  }

  open(): number {
    return this.pending.length;
  }

  define(object: object, key: string, keyAt: number, start: number, end: number, ascii: boolean): void {
    this.pending.push(start, end, ascii ? keyAt : -1 - keyAt);
    // One getter and setter per key for every object: V8 keeps the objects' shapes shared.
    Object.defineProperty(object, key, this.accessor(keyAt));
  }

  close(object: object, from: number): void {
    if (this.pending.length === from) return;
    if (this.count + (this.pending.length - from) / 3 > this.keys.length) throw new Error('it has more long texts than it says');
    Object.defineProperty(object, FIRST_LONG, { value: this.count });
    for (let at = from; at < this.pending.length; at += 3) {
      this.starts[this.count] = this.pending[at]!;
      this.ends[this.count] = this.pending[at + 1]!;
      this.keys[this.count] = this.pending[at + 2]!;
      this.count += 1;
    }
    this.pending.length = from;
  }

  private accessor(keyAt: number): PropertyDescriptor {
    let accessor = this.accessors.get(keyAt);
    if (accessor) return accessor;
    const { file, starts, ends, keys } = this;
    const key = this.words[keyAt]!;
    accessor = {
      get(this: Record<symbol, number>): string {
        let at = this[FIRST_LONG]!;
        while (keys[at] !== keyAt && keys[at] !== -1 - keyAt) at += 1;
        return file.toString(keys[at]! >= 0 ? 'latin1' : 'utf8', starts[at]!, ends[at]!);
      },
      set(this: object, value: unknown): void {
        Object.defineProperty(this, key, { value, writable: true, enumerable: true, configurable: true });
      },
      enumerable: true,
      configurable: true,
    };
    this.accessors.set(keyAt, accessor);
    return accessor;
  }
}

export interface UnpackedSnapshot {
  meta: unknown;
  records: unknown[];
  index: PackedIndex;
}

/** A typed array over the file's bytes (copied only when they are not aligned for it). */
function view<T extends Float64Array | Uint32Array | Int32Array>(make: new (buffer: ArrayBuffer, offset: number, length: number) => T, file: Buffer, at: number, length: number, bytesPer: number): T {
  if (at + length * bytesPer > file.length) throw new Error('it is truncated');
  const offset = file.byteOffset + at;
  if (offset % bytesPer === 0) return new make(file.buffer as ArrayBuffer, offset, length);
  const copy = new Uint8Array(length * bytesPer);
  copy.set(file.subarray(at, at + length * bytesPer));
  return new make(copy.buffer, 0, length);
}

/**
 * Reads a file packSnapshot wrote; throws (saying why) on anything else. `computed`: the file's
 * checksum as already computed over these very bytes (early-reads.ts, on a worker thread).
 */
export function unpackSnapshot(file: Buffer, computed?: { checksum: number }): UnpackedSnapshot {
  if (endianness() !== 'LE') throw new Error('it is read only on little-endian machines');
  if (file.length < PREFIX_BYTES || file.toString('latin1', 0, 8) !== MAGIC) throw new Error('it is not a packed snapshot');
  const headerLength = file.readUInt32LE(8);
  if (PREFIX_BYTES + headerLength > file.length) throw new Error('it is truncated');
  if ((computed?.checksum ?? checksum(file)) !== file.readUInt32LE(12)) throw new Error('its checksum does not match (damaged or truncated)');
  const header = JSON.parse(file.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerLength)) as Header;
  let at = align(PREFIX_BYTES + headerLength);
  const next = <T extends Float64Array | Uint32Array | Int32Array>(make: new (buffer: ArrayBuffer, offset: number, length: number) => T, length: number, bytesPer: number): T => {
    const array = view(make, file, at, length, bytesPer);
    at = align(at + length * bytesPer);
    return array;
  };
  const f64 = next(Float64Array, header.f64, 8);
  const lengths = next(Float64Array, header.records, 8);
  const u32 = next(Uint32Array, header.u32, 4);
  const counts = next(Uint32Array, header.terms.length, 4);
  const pairs = next(Int32Array, header.pairs, 4);
  if (at + header.tags > file.length) throw new Error('it is truncated');
  const tags = file.subarray(at, at + header.tags);
  at = align(at + header.tags);
  const run = (lengths: number[], encoding: 'latin1' | 'utf8'): TextReader => {
    const pieces: string[] = [];
    for (const bytes of lengths) {
      if (at + bytes > file.length) throw new Error('it is truncated');
      pieces.push(file.toString(encoding, at, at + bytes));
      at = align(at + bytes);
    }
    return new TextReader(pieces);
  };
  const ascii = run(header.ascii, 'latin1');
  const text = run(header.pieces, 'utf8');
  if (!Array.isArray(header.long) || !Number.isInteger(header.longs)) throw new Error('it is of another layout');
  let longAt = at;
  const longEnd = at + header.long.reduce((sum, bytes) => sum + bytes, 0);
  if (longEnd > file.length) throw new Error('it is truncated');
  const words = header.words;
  const lazy = new LazyTexts(file, header.longs, words);

  let tag = 0;
  let u = 0;
  let f = 0;
  /** A long string's bytes: [start, end) in the file, checked to lie in the long region. */
  const longBytes = (): number => {
    const bytes = u32[u++]!;
    if (longAt + bytes > longEnd) throw new Error('its long texts are shorter than its strings');
    longAt += bytes;
    return bytes;
  };
  const value = (): unknown => {
    switch (tags[tag++]) {
      case Tag.Null:
        return null;
      case Tag.False:
        return false;
      case Tag.True:
        return true;
      case Tag.Number:
        return f64[f++];
      case Tag.Ascii:
        return ascii.next(u32[u++]!);
      case Tag.Text:
        return text.next(u32[u++]!);
      case Tag.LongAscii:
      case Tag.LongText: {
        // Not an object's property (an item of an array, a record): decoded now.
        const ascii = tags[tag - 1] === Tag.LongAscii;
        const bytes = longBytes();
        return file.toString(ascii ? 'latin1' : 'utf8', longAt - bytes, longAt);
      }
      case Tag.Word: {
        const word = words[u32[u++]!];
        if (word === undefined) throw new Error('it names a missing word');
        return word;
      }
      case Tag.Array: {
        const length = u32[u++]!;
        const array: unknown[] = [];
        for (let i = 0; i < length; i += 1) array.push(value());
        return array;
      }
      case Tag.Object: {
        const count = u32[u++]!;
        const object: Record<string, unknown> = {};
        const pending = lazy.open();
        for (let i = 0; i < count; i += 1) {
          const keyAt = u32[u++]!;
          const key = words[keyAt];
          if (key === undefined) throw new Error('it names a missing key');
          const kind = tags[tag];
          if (kind === Tag.LongAscii || kind === Tag.LongText) {
            tag += 1;
            const bytes = longBytes();
            lazy.define(object, key, keyAt, longAt - bytes, longAt, kind === Tag.LongAscii);
          } else {
            object[key] = value();
          }
        }
        lazy.close(object, pending);
        return object;
      }
      default:
        throw new Error('it has an unknown value tag');
    }
  };
  const records: unknown[] = [];
  for (let i = 0; i < header.records; i += 1) records.push(value());
  if (tag !== tags.length || u !== u32.length || f !== f64.length || !ascii.done || !text.done || longAt !== longEnd) throw new Error('its sections do not add up');
  return { meta: header.meta, records, index: { lengths, terms: header.terms, counts, pairs } };
}
