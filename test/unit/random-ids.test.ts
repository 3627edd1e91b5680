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
    expect(new Set(text.join('')).size).toBe(62);
  });

  it('draws each character equally often: no modulo bias', () => {
    // 620,000 draws: about 10,000 each, standard deviation about 100. A plain `byte % 62` would
    // give the first 8 characters 5 chances in 256 and the rest 4: about 12,100 against 9,700.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const counts = new Map<string, number>();
    for (let i = 0; i < 62; i += 1) for (const char of randomString(alphabet, 10_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Six standard deviations either side: a fair draw leaves it about once in 10^7 runs.
    for (const [char, count] of counts) expect(Math.abs(count - 10_000), char).toBeLessThan(600);
  });
});
