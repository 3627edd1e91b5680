/** Reading a packed snapshot (packed-snapshot.ts): runs of text cut by length, long texts decoded at each read, typed arrays over the file. */

/** Runs of text being read: each string cut from the current run by its length. */
export class TextReader {
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

/** Where an object keeps the first of its long strings' entries in LazyTexts (not enumerable: JSON, spread and equality skip it). */
const FIRST_LONG = Symbol('first long text');

/**
 * The long strings of a snapshot's objects, read from the file's bytes at each read of the
 * property (a getter; nothing decoded is kept, so memory holds the file once). Writing the
 * property makes it a plain value. An object's entries lie together (its nested objects' entries
 * are added when those close, before it), so a getter finds its own key from the object's first
 * entry on.
 */
export class LazyTexts {
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

/** A typed array over the file's bytes (copied only when they are not aligned for it). */
export function view<T extends Float64Array | Uint32Array | Int32Array>(make: new (buffer: ArrayBuffer, offset: number, length: number) => T, file: Buffer, at: number, length: number, bytesPer: number): T {
  if (at + length * bytesPer > file.length) throw new Error('it is truncated');
  const offset = file.byteOffset + at;
  if (offset % bytesPer === 0) return new make(file.buffer as ArrayBuffer, offset, length);
  const copy = new Uint8Array(length * bytesPer);
  copy.set(file.subarray(at, at + length * bytesPer));
  return new make(copy.buffer, 0, length);
}
