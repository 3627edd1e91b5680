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
 * The value streams are written by packed-writer.ts and read with packed-reading.ts's parts;
 * the tags and the stored signal's record shape are packed-format.ts's.
 */
import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import { Flag, Tag } from './packed-format';
import { LazyTexts, TextReader, view } from './packed-reading';
import { repeatedStrings, Streams } from './packed-writer';
import type { PackedIndex } from './search-types';

/** 2: long texts in their own region, decoded on use. */
const MAGIC = 'CLRPACK2';
/** 3: as 2, with records of the stored signals' shape (Tag.StoredSignal) read without their keys. */
const MAGIC_RECORDS = 'CLRPACK3';
const PREFIX_BYTES = 16;
/**
 * Strings at least this long stay bytes in the file until read (the shorter ones are decoded at
 * start, in one run). A getter costs about as much to define as decoding 150–200 bytes (measured
 * on 100,000 signals, bench/notes.md): at 64 characters the generated signals' summaries, bodies
 * and URLs went lazy and the start was no faster, so only texts well past that (a fetched
 * article's body) are left in the file.
 */
export const LONG_MIN = 512;

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

export interface UnpackedSnapshot {
  meta: unknown;
  records: unknown[];
  index: PackedIndex;
}

/**
 * Reads a file packSnapshot wrote; throws (saying why) on anything else. `computed`: the file's
 * checksum as already computed over these very bytes (early-reads.ts, on a worker thread).
 */
export function unpackSnapshot(file: Buffer, computed?: { checksum: number }): UnpackedSnapshot {
  return finishSteps(unpackSnapshotSteps(file, computed));
}

/**
 * Records read between two pauses of unpackSnapshotSteps: about 10-20 ms of the main thread on a
 * quiet machine (100,000 stored signals took 2.5 s as one step under load, decision 0040 round 5).
 */
export const UNPACK_STEP_RECORDS = 4_000;

/** Runs a stepped piece of work to its end without pausing. */
export function finishSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * unpackSnapshot in steps: it yields every `stepRecords` records, so a caller can give the event
 * loop back between them (a warming service answers asks meanwhile, server-warm-up.ts).
 */
export function* unpackSnapshotSteps(file: Buffer, computed?: { checksum: number }, stepRecords = UNPACK_STEP_RECORDS): Generator<void, UnpackedSnapshot> {
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
  for (let i = 0; i < header.records; i += 1) {
    records.push(value());
    if (i % stepRecords === stepRecords - 1) yield;
  }
  if (tag !== tags.length || u !== u32.length || f !== f64.length || !ascii.done || !text.done || longAt !== longEnd) throw new Error('its sections do not add up');
  return { meta: header.meta, records, index: { lengths, terms: header.terms, counts, pairs, ...(columns ? { columns } : {}) } };
}
