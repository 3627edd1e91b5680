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
 * - keys and short strings that repeat (types, entity names, source ids) are written once;
 * - a stored signal of the database row's own shape is written without its keys and read back by
 *   one object literal (`CLRPACK3`, the stored signals' snapshot; decision 0016).
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
/** 3: as 2, with records of the stored signals' shape (Tag.StoredSignal) read without their keys. */
const MAGIC_RECORDS = 'CLRPACK3';
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
  /**
   * A record of the stored signals' shape (SIGNAL_KEYS, the database row's order): its flags in
   * the u32 stream, then its values in that order with no keys (CLRPACK3 only).
   */
  StoredSignal: 11,
} as const;

/**
 * The keys of a stored signal as the database gives it back (signal-repository.ts `fromRow`), in
 * that order; `event_id` and `period` only when set, the feed's six only together. A record of
 * exactly these keys (and short strings) is packed without its keys and read back by one object
 * literal: no dictionary lookup or keyed store per value (the generic walk was the largest share of
 * unpacking 100,000 signals, bench/notes.md).
 */
const SIGNAL_KEYS = ['id', 'slug', 'title', 'summary', 'body', 'source_id', 'url', 'published_at', 'type', 'entities', 'metrics', 'origin'] as const;
const SIGNAL_FEED_KEYS = ['canonical_url', 'published_at_source', 'first_seen_at', 'updated_at', 'corroborated_by', 'confidence'] as const;
/** The entity lists' key orders read by a literal (the row's JSONB gives the second: keys by length). */
const ENTITY_ORDERS = [
  ['retailers', 'segments', 'cities', 'states'],
  ['cities', 'states', 'segments', 'retailers'],
] as const;
const Flag = { EventId: 1, Period: 2, Feed: 4, EntityOrder: 8 } as const;
/** The direct values of a stored-signal record that must be strings (checked when packing). */
const SIGNAL_STRINGS = ['id', 'slug', 'title', 'summary', 'body', 'source_id', 'url', 'published_at', 'type', 'origin'] as const;

/** The record's flags when it has exactly a stored signal's keys (in order, none undefined, no long direct string), else null. */
function storedSignalFlags(record: Record<string, unknown>, longMin: number): number | null {
  const keys = Object.keys(record);
  let flags = 0;
  let at = SIGNAL_KEYS.length;
  if (keys.length < at) return null;
  for (let i = 0; i < at; i += 1) if (keys[i] !== SIGNAL_KEYS[i]) return null;
  if (keys[at] === 'event_id') {
    flags |= Flag.EventId;
    at += 1;
  }
  if (keys[at] === 'period') {
    flags |= Flag.Period;
    at += 1;
  }
  if (keys[at] === SIGNAL_FEED_KEYS[0]) {
    for (let i = 0; i < SIGNAL_FEED_KEYS.length; i += 1) if (keys[at + i] !== SIGNAL_FEED_KEYS[i]) return null;
    flags |= Flag.Feed;
    at += SIGNAL_FEED_KEYS.length;
  }
  if (at !== keys.length) return null;
  for (const key of keys) {
    const value = record[key];
    // Left out by JSON (the generic walk does that), or a long text kept in the file: generic.
    if (value === undefined || (typeof value === 'string' && value.length >= longMin)) return null;
  }
  for (const key of SIGNAL_STRINGS) if (typeof record[key] !== 'string') return null;
  if (flags & Flag.EventId && typeof record.event_id !== 'string') return null;
  if (flags & Flag.Period && typeof record.period !== 'string') return null;
  const entities = record.entities;
  if (entities === null || typeof entities !== 'object' || Array.isArray(entities)) return null;
  const entityKeys = Object.keys(entities);
  const order = ENTITY_ORDERS.findIndex((keysInOrder) => keysInOrder.length === entityKeys.length && keysInOrder.every((key, i) => entityKeys[i] === key));
  if (order < 0 || entityKeys.some((key) => (entities as Record<string, unknown>)[key] === undefined)) return null;
  if (order === 1) flags |= Flag.EntityOrder;
  return flags;
}


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
  /**
   * The index's columns (search-index.ts PackedColumns), after the long region: per kind its
   * entity names, and how many documents all names have (publication times and the id order:
   * one per record); absent in files written before them.
   */
  columns?: { names: string[][]; docs: number };
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

  /** A top-level record: of a stored signal's shape without its keys (when `shaped`), else as any value. */
  record(value: unknown, shaped: boolean): void {
    const flags = shaped && value !== null && typeof value === 'object' && !Array.isArray(value) ? storedSignalFlags(value as Record<string, unknown>, this.longMin) : null;
    if (flags === null) return this.value(value);
    const record = value as Record<string, unknown>;
    this.tags.push(Tag.StoredSignal);
    this.u32.push(flags);
    for (const key of SIGNAL_KEYS) {
      if (key !== 'entities') {
        this.value(record[key]);
        continue;
      }
      const entities = record.entities as Record<string, unknown>;
      for (const kind of ENTITY_ORDERS[flags & Flag.EntityOrder ? 1 : 0]) this.value(entities[kind]);
    }
    if (flags & Flag.EventId) this.value(record.event_id);
    if (flags & Flag.Period) this.value(record.period);
    if (flags & Flag.Feed) for (const key of SIGNAL_FEED_KEYS) this.value(record[key]);
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
const bytesOf = (array: Float64Array | Uint32Array | Int32Array): Uint8Array => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
/** The checksum covers the header length (these bytes) and everything from CHECKSUM_FROM on (early-reads.ts computes it off the main thread). */
export const CHECKSUM_SEED = [8, 12] as const;
export const CHECKSUM_FROM = PREFIX_BYTES;
/** CRC-32 of the header length and of everything after the checksum's own place. */
const checksum = (file: Buffer): number => crc32(file.subarray(CHECKSUM_FROM), crc32(file.subarray(...CHECKSUM_SEED)));

/**
 * The file's bytes: `meta` (JSON), the records (JSON values) and the index over them.
 * `storedSignals`: records of a stored signal's shape are packed without their keys (CLRPACK3;
 * any other record in the same file as any value).
 */
export function packSnapshot(meta: unknown, records: readonly unknown[], index: PackedIndex, options: { longMin?: number; storedSignals?: boolean } = {}): Buffer {
  if (index.counts.length !== index.terms.length) throw new Error('the index has a count per term');
  const streams = new Streams(repeatedStrings(records), options.longMin ?? LONG_MIN);
  const shaped = options.storedSignals ?? false;
  for (const record of records) streams.record(record, shaped);
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
    ...(index.columns ? { columns: { names: index.columns.names, docs: index.columns.docs.length } } : {}),
  };
  const columns = index.columns;
  if (columns && (columns.published.length !== records.length || columns.byId.length !== records.length || columns.counts.length !== columns.names.reduce((sum, names) => sum + names.length, 0))) throw new Error('the index columns do not match the records');
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
    ...(columns ? [bytesOf(columns.published), bytesOf(columns.byId), bytesOf(columns.counts), bytesOf(columns.docs)] : []),
  ];
  let size = align(PREFIX_BYTES + headerBytes.length);
  for (const section of sections) size = align(size + section.byteLength);
  const file = Buffer.alloc(size);
  file.write(shaped ? MAGIC_RECORDS : MAGIC, 0, 'latin1');
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
  const magic = file.length < PREFIX_BYTES ? '' : file.toString('latin1', 0, 8);
  if (magic !== MAGIC && magic !== MAGIC_RECORDS) throw new Error('it is not a packed snapshot');
  const shaped = magic === MAGIC_RECORDS;
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
  let columns: PackedIndex['columns'];
  if (header.columns !== undefined) {
    const { names, docs } = header.columns;
    if (!Array.isArray(names) || !names.every((kind) => Array.isArray(kind)) || !Number.isInteger(docs)) throw new Error('it is of another layout');
    at = align(longEnd);
    const published = next(Float64Array, header.records, 8);
    const byId = next(Int32Array, header.records, 4);
    const counts = next(Uint32Array, names.reduce((sum, kind) => sum + kind.length, 0), 4);
    columns = { published, byId, names, counts, docs: next(Int32Array, docs, 4) };
  }

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
        // Short lists as literals: exactly their length in memory (an array grown by push from
        // empty reserves 17 slots; five short lists per stored signal made that megabytes).
        const length = u32[u++]!;
        if (length === 0) return [];
        if (length === 1) return [value()];
        if (length === 2) return [value(), value()];
        if (length === 3) return [value(), value(), value()];
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
      case Tag.StoredSignal: {
        if (!shaped) throw new Error('it has an unknown value tag');
        return storedSignal();
      }
      default:
        throw new Error('it has an unknown value tag');
    }
  };
  /**
   * A stored signal's record (Tag.StoredSignal), its values read in SIGNAL_KEYS order then built by
   * one literal per combination of optional keys (no property added later: each record one object
   * of its exact size).
   */
  const storedSignal = (): Record<string, unknown> => {
    const flags = u32[u++]!;
    const id = value();
    const slug = value();
    const title = value();
    const summary = value();
    const body = value();
    const source_id = value();
    const url = value();
    const published_at = value();
    const type = value();
    // Property values are evaluated in source order: the order they were written in.
    const entities = flags & Flag.EntityOrder ? { cities: value(), states: value(), segments: value(), retailers: value() } : { retailers: value(), segments: value(), cities: value(), states: value() };
    const metrics = value();
    const origin = value();
    const event_id = flags & Flag.EventId ? value() : undefined;
    const period = flags & Flag.Period ? value() : undefined;
    if (!(flags & Flag.Feed)) {
      switch (flags & (Flag.EventId | Flag.Period)) {
        case 0:
          return { id, slug, title, summary, body, source_id, url, published_at, type, entities, metrics, origin };
        case Flag.EventId:
          return { id, slug, title, summary, body, source_id, url, published_at, type, entities, metrics, origin, event_id };
        case Flag.Period:
          return { id, slug, title, summary, body, source_id, url, published_at, type, entities, metrics, origin, period };
        default:
          return { id, slug, title, summary, body, source_id, url, published_at, type, entities, metrics, origin, event_id, period };
      }
    }
    const canonical_url = value();
    const published_at_source = value();
    const first_seen_at = value();
    const updated_at = value();
    const corroborated_by = value();
    const confidence = value();
    switch (flags & (Flag.EventId | Flag.Period)) {
      case 0:
        return { id, slug, title, summary, body, source_id, url, published_at, type, entities, metrics, origin, canonical_url, published_at_source, first_seen_at, updated_at, corroborated_by, confidence };
      case Flag.EventId:
        return { id, slug, title, summary, body, source_id, url, published_at, type, entities, metrics, origin, event_id, canonical_url, published_at_source, first_seen_at, updated_at, corroborated_by, confidence };
      case Flag.Period:
        return { id, slug, title, summary, body, source_id, url, published_at, type, entities, metrics, origin, period, canonical_url, published_at_source, first_seen_at, updated_at, corroborated_by, confidence };
      default:
        return { id, slug, title, summary, body, source_id, url, published_at, type, entities, metrics, origin, event_id, period, canonical_url, published_at_source, first_seen_at, updated_at, corroborated_by, confidence };
    }
  };
  const records: unknown[] = [];
  for (let i = 0; i < header.records; i += 1) records.push(value());
  if (tag !== tags.length || u !== u32.length || f !== f64.length || !ascii.done || !text.done || longAt !== longEnd) throw new Error('its sections do not add up');
  return { meta: header.meta, records, index: { lengths, terms: header.terms, counts, pairs, ...(columns ? { columns } : {}) } };
}
