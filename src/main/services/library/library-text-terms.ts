// Terms of the library's text index: MiniSearch's tokenizer and query terms, one-edit matching, sorted lookup and a growable typed array (split from library-text-index.ts).

/** MiniSearch's default tokenizer: any run of Unicode spaces, newlines or punctuation splits. */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;

export const tokensOf = (text: string): string[] => text.split(SPACE_OR_PUNCTUATION);
/** The query's terms, as MiniSearch processes them (lower-cased, empty ones dropped). */
export const queryTermsOf = (text: string): string[] => tokensOf(text).map((token) => token.toLowerCase()).filter(Boolean);
/** Typos are forgiven (one edit) in the last, longer term only: fuzzy matching of every term is what made searches over 10,000 items slow. */
export const fuzzyFor = (term: string, i: number, terms: string[]): number => (i === terms.length - 1 && term.length > 5 ? 1 : 0);

/** Whether `a` and `b` are exactly one insertion, deletion or substitution apart. */
export function oneEditApart(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (la === lb) {
    let diff = 0;
    for (let i = 0; i < la; i += 1) if (a.charCodeAt(i) !== b.charCodeAt(i) && ++diff > 1) return false;
    return diff === 1;
  }
  const [short, long] = la < lb ? [a, b] : [b, a];
  if (long.length - short.length !== 1) return false;
  let i = 0;
  while (i < short.length && short.charCodeAt(i) === long.charCodeAt(i)) i += 1;
  for (let j = i; j < short.length; j += 1) if (short.charCodeAt(j) !== long.charCodeAt(j + 1)) return false;
  return true;
}

/** First index in sorted `terms` whose term is ≥ `term` (JavaScript's string order). */
export function lowerBound(terms: readonly string[], term: string): number {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid]! < term) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const align4 = (n: number): number => (n + 3) & ~3;

export class GrowableU32 {
  data: Uint32Array<ArrayBufferLike>;
  constructor(capacity = 1024) {
    this.data = new Uint32Array(capacity);
  }
  ensure(length: number): void {
    if (length <= this.data.length) return;
    const next = new Uint32Array(Math.max(length, this.data.length * 2));
    next.set(this.data);
    this.data = next;
  }
}
