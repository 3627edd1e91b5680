/** The ask path's pooled random ids (src/service/random-ids.ts). */
import { describe, expect, it } from 'vitest';
import { randomHex, randomString } from '../../src/service/random-ids';

describe('random ids from the pooled CSPRNG bytes', () => {
  it('gives hex of the asked length, never the same id twice across more than one refill of the pool', () => {
    const ids = Array.from({ length: 2_000 }, () => randomHex(8));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws every character of the alphabet, only from it, at the asked length', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const text = Array.from({ length: 500 }, () => randomString(alphabet, 12));
    for (const secret of text) expect(secret).toMatch(/^[A-Za-z0-9]{12}$/);
    const counts = new Map<string, number>();
    for (const char of text.join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    // 6,000 draws over 62 characters: about 97 each; none missing, none far off (a biased modulo would skew the first 8).
    expect(counts.size).toBe(62);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(40);
      expect(count).toBeLessThan(170);
    }
  });
});
