/**
 * Near-duplicate stories: MinHash signatures over word 3-shingles, banded (LSH) so a new item is
 * compared only with likely matches. Two items whose estimated Jaccard similarity is at least
 * `threshold` are one story (several sources carrying it corroborate each other).
 *
 * The signatures are as they were (a cheaper hash family moved near-threshold retellings apart:
 * dedup recall fell from 1 to 0.85 in `npm run bench:ingest`); what is cheaper is meeting the
 * candidates (numbered slots, number band keys, comparisons that stop early; issue 43).
 */
const HASHES = 64;
const BANDS = 16;
const ROWS = HASHES / BANDS;
const SEEDS = Array.from({ length: HASHES }, (_, i) => (Math.imul(i + 1, 0x9e3779b1) ^ 0x85ebca6b) >>> 0);

export function shingles(text: string): Set<string> {
  const words = text.toLowerCase().normalize('NFKD').split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 1);
  const set = new Set<string>();
  if (words.length < 3) {
    if (words.length > 0) set.add(words.join(' '));
    return set;
  }
  for (let i = 0; i + 3 <= words.length; i += 1) set.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return set;
}

function hash32(text: string, seed: number): number {
  let hash = seed ^ 2166136261;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

/** Murmur3's finaliser (band keys). */
function mix32(value: number): number {
  let hash = value ^ (value >>> 16);
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

export function minHash(set: Set<string>): Uint32Array {
  const signature = new Uint32Array(HASHES).fill(0xffffffff);
  for (const shingle of set) {
    for (let i = 0; i < HASHES; i += 1) {
      const value = hash32(shingle, SEEDS[i]!);
      if (value < signature[i]!) signature[i] = value;
    }
  }
  return signature;
}

export function similarity(a: Uint32Array, b: Uint32Array): number {
  let same = 0;
  for (let i = 0; i < HASHES; i += 1) if (a[i] === b[i]) same += 1;
  return same / HASHES;
}

/** The similarity when it is at least `least`, else -1: stops once too many values differ (most candidates a band brings are not the story). */
function similarityOfAtLeast(a: Uint32Array, b: Uint32Array, least: number): number {
  const differing = HASHES - Math.ceil(least * HASHES - 1e-9);
  let differ = 0;
  for (let i = 0; i < HASHES; i += 1) {
    if (a[i] !== b[i] && (differ += 1) > differing) return -1;
  }
  return (HASHES - differ) / HASHES;
}

/**
 * Clusters items by near-duplicate text; each cluster is named by its first member. Items are
 * numbered slots inside (buckets are arrays of numbers, "compared already" a stamp per slot): a
 * new item meets hundreds of bucket-mates in a feed of look-alike stories, and each meeting must
 * cost next to nothing.
 */
export class NearDuplicateIndex {
  private readonly slotOf = new Map<string, number>();
  private readonly idOf: string[] = [];
  private readonly signatureOf: Array<Uint32Array | undefined> = [];
  private readonly buckets = new Map<number, number[]>();
  /** The add that last compared each slot (so a slot met in several bands is compared once). */
  private readonly comparedIn: number[] = [];
  private adds = 0;
  private readonly clusterOf = new Map<string, string>();
  private readonly members = new Map<string, Set<string>>();

  constructor(private readonly threshold = 0.7) {}

  /** Adds (or re-adds) an item; returns its cluster id. */
  add(id: string, text: string): string {
    this.remove(id);
    const signature = minHash(shingles(text));
    const visit = (this.adds += 1);
    let best = -1;
    let bestScore = 0;
    const keys = bandKeys(signature);
    for (const key of keys) {
      const bucket = this.buckets.get(key);
      if (!bucket) continue;
      for (const other of bucket) {
        if (this.comparedIn[other] === visit) continue;
        this.comparedIn[other] = visit;
        const score = similarityOfAtLeast(signature, this.signatureOf[other]!, this.threshold);
        if (score >= this.threshold && (best < 0 || score > bestScore)) {
          best = other;
          bestScore = score;
        }
      }
    }
    const slot = this.idOf.length;
    this.idOf.push(id);
    this.signatureOf.push(signature);
    this.comparedIn.push(0);
    this.slotOf.set(id, slot);
    for (const key of keys) {
      const bucket = this.buckets.get(key);
      if (bucket) bucket.push(slot);
      else this.buckets.set(key, [slot]);
    }
    const cluster = best >= 0 ? this.clusterOf.get(this.idOf[best]!)! : id;
    this.clusterOf.set(id, cluster);
    const members = this.members.get(cluster) ?? new Set<string>();
    members.add(id);
    this.members.set(cluster, members);
    return cluster;
  }

  cluster(id: string): string | undefined {
    return this.clusterOf.get(id);
  }

  membersOf(cluster: string): string[] {
    return [...(this.members.get(cluster) ?? [])];
  }

  /** Whether some item in the index is a near-duplicate of this text (the oracle check). */
  matches(text: string, accept: (id: string) => boolean): boolean {
    const signature = minHash(shingles(text));
    for (const key of bandKeys(signature)) {
      for (const other of this.buckets.get(key) ?? []) {
        if (accept(this.idOf[other]!) && similarityOfAtLeast(signature, this.signatureOf[other]!, this.threshold) >= this.threshold) return true;
      }
    }
    return false;
  }

  private remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    // A re-added item (an updated story) takes a new slot; the old one is emptied, never reused.
    for (const key of bandKeys(this.signatureOf[slot]!)) {
      const bucket = this.buckets.get(key);
      const at = bucket?.indexOf(slot) ?? -1;
      if (at >= 0) bucket!.splice(at, 1);
    }
    this.signatureOf[slot] = undefined;
    this.slotOf.delete(id);
    const cluster = this.clusterOf.get(id);
    if (cluster) this.members.get(cluster)?.delete(id);
    this.clusterOf.delete(id);
  }
}

/** One number per band (its rows hashed with the band's number): two items that share a band share its key; a rare shared key of different rows only costs one comparison. */
function bandKeys(signature: Uint32Array): number[] {
  const keys: number[] = [];
  for (let band = 0; band < BANDS; band += 1) {
    let hash = Math.imul(band + 1, 0x9e3779b1);
    for (let row = band * ROWS; row < band * ROWS + ROWS; row += 1) hash = mix32(hash ^ signature[row]!);
    keys.push(hash);
  }
  return keys;
}
