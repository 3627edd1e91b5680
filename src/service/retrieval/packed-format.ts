/** The packed snapshot's value tags and the stored signal's record shape, shared by its writer (packed-writer.ts) and reader (packed-snapshot.ts). */

/** What each value is, one byte per value in the tags section. */
export const Tag = {
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
export const SIGNAL_KEYS = ['id', 'slug', 'title', 'summary', 'body', 'source_id', 'url', 'published_at', 'type', 'entities', 'metrics', 'origin'] as const;
export const SIGNAL_FEED_KEYS = ['canonical_url', 'published_at_source', 'first_seen_at', 'updated_at', 'corroborated_by', 'confidence'] as const;
/** The entity lists' key orders read by a literal (the row's JSONB gives the second: keys by length). */
export const ENTITY_ORDERS = [
  ['retailers', 'segments', 'cities', 'states'],
  ['cities', 'states', 'segments', 'retailers'],
] as const;
export const Flag = { EventId: 1, Period: 2, Feed: 4, EntityOrder: 8 } as const;
/** The direct values of a stored-signal record that must be strings (checked when packing). */
export const SIGNAL_STRINGS = ['id', 'slug', 'title', 'summary', 'body', 'source_id', 'url', 'published_at', 'type', 'origin'] as const;
