/**
 * Near-duplicate stories: MinHash signatures over word 3-shingles, banded (LSH) so a new item is
 * compared only with likely matches. Two items whose estimated Jaccard similarity is at least
 * `threshold` are one story (several sources carrying it corroborate each other).
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

/** Clusters items by near-duplicate text; each cluster is named by its first member. */
export class NearDuplicateIndex {
  private readonly signatures = new Map<string, Uint32Array>();
  private readonly buckets = new Map<string, Set<string>>();
  private readonly clusterOf = new Map<string, string>();
  private readonly members = new Map<string, Set<string>>();

  constructor(private readonly threshold = 0.7) {}

  /** Adds (or re-adds) an item; returns its cluster id. */
  add(id: string, text: string): string {
    this.remove(id);
    const signature = minHash(shingles(text));
    let best: { id: string; score: number } | null = null;
    const keys = bandKeys(signature);
    for (const key of keys) {
      for (const other of this.buckets.get(key) ?? []) {
        const score = similarity(signature, this.signatures.get(other)!);
        if (score >= this.threshold && (!best || score > best.score)) best = { id: other, score };
      }
    }
    this.signatures.set(id, signature);
    for (const key of keys) {
      const bucket = this.buckets.get(key) ?? new Set<string>();
      bucket.add(id);
      this.buckets.set(key, bucket);
    }
    const cluster = best ? this.clusterOf.get(best.id)! : id;
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
        if (accept(other) && similarity(signature, this.signatures.get(other)!) >= this.threshold) return true;
      }
    }
    return false;
  }

  private remove(id: string): void {
    const signature = this.signatures.get(id);
    if (!signature) return;
    for (const key of bandKeys(signature)) this.buckets.get(key)?.delete(id);
    this.signatures.delete(id);
    const cluster = this.clusterOf.get(id);
    if (cluster) this.members.get(cluster)?.delete(id);
    this.clusterOf.delete(id);
  }
}

function bandKeys(signature: Uint32Array): string[] {
  const keys: string[] = [];
  for (let band = 0; band < BANDS; band += 1) {
    keys.push(`${band}:${Array.from(signature.subarray(band * ROWS, band * ROWS + ROWS)).join(',')}`);
  }
  return keys;
}
