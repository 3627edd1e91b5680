// The library text index's file: its layout, written from and read back into typed arrays that are searched in place (split from library-text-index.ts).
import { crc32 } from 'node:zlib';
import { align4 } from './library-text-terms';

const MAGIC = 0x5854_4c43; // "CLTX", little-endian
/** Bumped when the file layout or the scoring inputs change: an older file is then rebuilt. */
const FORMAT_VERSION = 1;
const HEADER_BYTES = 16;

/** What the file holds: per-document field lengths, the sorted terms, their offsets and (doc, count) postings. */
export interface IndexArrays {
  fields: number;
  ids: string[];
  terms: string[];
  lengths: Uint32Array<ArrayBufferLike>;
  offsets: Uint32Array<ArrayBufferLike>;
  postings: Uint32Array<ArrayBufferLike>;
}

/**
 * The index as one file: a header (magic, format version, CRC-32 of the body, body length), then
 * the key, the ids, the sorted terms, field lengths, offsets and postings (little-endian u32s).
 */
export function encodeIndexFile(key: string, parts: IndexArrays): Buffer {
  const text = (s: string): Buffer => Buffer.from(s, 'utf8');
  const keyBytes = text(key);
  const idBytes = text(JSON.stringify(parts.ids));
  const termBytes = text(parts.terms.join('\n'));
  const lengths = parts.lengths;
  const size = align4(4 + keyBytes.length) + 8 + align4(idBytes.length) + 8 + align4(termBytes.length) + 4 * (lengths.length + parts.offsets.length + parts.postings.length);
  const out = Buffer.alloc(HEADER_BYTES + size);
  let at = HEADER_BYTES;
  const u32 = (n: number): void => {
    out.writeUInt32LE(n, at);
    at += 4;
  };
  const bytes = (b: Uint8Array): void => {
    out.set(b, at);
    at = align4(at + b.length);
  };
  const words = (a: Uint32Array): void => {
    new Uint32Array(out.buffer, out.byteOffset + at, a.length).set(a);
    at += 4 * a.length;
  };
  u32(keyBytes.length);
  bytes(keyBytes);
  u32(parts.fields);
  u32(idBytes.length);
  bytes(idBytes);
  u32(parts.terms.length);
  u32(termBytes.length);
  bytes(termBytes);
  words(lengths);
  words(parts.offsets);
  words(parts.postings);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(FORMAT_VERSION, 4);
  out.writeUInt32LE(crc32(out.subarray(HEADER_BYTES)), 8);
  out.writeUInt32LE(size, 12);
  return out;
}

/**
 * An index read back from `serialize`'s bytes, or null if they are not one for `key` (another
 * format, another key, torn, or inconsistent): the caller then rebuilds from the library files.
 */

/**
 * An index read back from `encodeIndexFile`'s bytes, or null if they are not one for `key` (another
 * format, another key, torn, or inconsistent): the caller then rebuilds from the library files.
 */
export function decodeIndexFile(file: Buffer, key: string, fieldCount: number): IndexArrays | null {
  try {
    if (file.length < HEADER_BYTES || file.readUInt32LE(0) !== MAGIC || file.readUInt32LE(4) !== FORMAT_VERSION) return null;
    if (file.readUInt32LE(12) !== file.length - HEADER_BYTES || crc32(file.subarray(HEADER_BYTES)) !== file.readUInt32LE(8)) return null;
    // Typed arrays need 4-byte alignment in the underlying memory.
    const buf = file.byteOffset % 4 === 0 ? file : Buffer.from(file);
    let at = HEADER_BYTES;
    const u32 = (): number => {
      const n = buf.readUInt32LE(at);
      at += 4;
      return n;
    };
    const utf8 = (length: number): string => {
      if (at + length > buf.length) throw new RangeError('past the end');
      const s = buf.toString('utf8', at, at + length);
      at = align4(at + length);
      return s;
    };
    const words = (count: number): Uint32Array => {
      if (at + 4 * count > buf.length) throw new RangeError('past the end');
      const a = new Uint32Array(buf.buffer, buf.byteOffset + at, count);
      at += 4 * count;
      return a;
    };
    if (utf8(u32()) !== key) return null;
    const fields = u32();
    if (fields !== fieldCount) return null;
    const ids = JSON.parse(utf8(u32())) as unknown;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string') || new Set(ids).size !== ids.length) return null;
    const termCount = u32();
    const termText = utf8(u32());
    const terms = termCount === 0 ? [] : termText.split('\n');
    if (terms.length !== termCount) return null;
    for (let i = 1; i < terms.length; i += 1) if (!(terms[i - 1]! < terms[i]!)) return null;
    if (terms.some((term) => term === '')) return null;
    const lengths = words(ids.length * fields);
    const offsets = words(termCount * fields + 1);
    const postings = words((buf.length - at) / 4);
    if (offsets[0] !== 0 || offsets[offsets.length - 1] !== postings.length || postings.length % 2 !== 0) return null;
    for (let i = 1; i < offsets.length; i += 1) if (offsets[i]! < offsets[i - 1]! || offsets[i]! % 2 !== 0) return null;
    for (let p = 0; p < postings.length; p += 2) if (postings[p]! >= ids.length || postings[p + 1] === 0) return null;
    return { fields, ids: ids as string[], terms, lengths, offsets, postings };
  } catch {
    return null;
  }
}
