/** Writing a packed snapshot's values (packed-snapshot.ts): the tag, number and text streams, the dictionary and the stored signal's keyless records. */
import { ENTITY_ORDERS, Flag, SIGNAL_FEED_KEYS, SIGNAL_KEYS, SIGNAL_STRINGS, Tag } from './packed-format';

/** Strings up to this long that occur more than once go in the dictionary. */
export const WORD_MAX = 48;
/** A run of text is cut before it passes this many bytes (V8's longest string is about 512 M characters). */
const PIECE_BYTES = 128 * 2 ** 20;

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

export class Streams {
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
export function repeatedStrings(records: readonly unknown[]): Set<string> {
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
