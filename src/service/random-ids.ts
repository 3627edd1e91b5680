/**
 * Random ids for the ask path (session ids, slugs' secret tails, message ids), drawn from one
 * pool of bytes from the operating system's CSPRNG instead of a call per id. Under 200 asks at
 * once, `randomBytes(8)` twice and `randomInt` twelve times per ask were a few percent of the
 * service's CPU before each first byte (bench/notes.md, "200 streams' first byte, round 8"): each
 * call crosses into the crypto binding. Every pooled byte is used once, so the ids are as
 * unpredictable as before; Node's own `randomInt` keeps a cache the same way.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function take(): number {
  if (used === POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const byte = pool[used]!;
  // Spent bytes are cleared, so a copy of the pool never holds an id already given out.
  pool[used] = 0;
  used += 1;
  return byte;
}

/** `bytes` random bytes as lower-case hex (`randomBytes(bytes).toString('hex')`). */
export function randomHex(bytes: number): string {
  let hex = '';
  for (let i = 0; i < bytes; i += 1) hex += HEX[take()]!;
  return hex;
}

/**
 * `length` characters drawn uniformly from `alphabet` (at most 256 characters): bytes at or above
 * the largest multiple of its size are drawn again, so no character is likelier than another.
 */
export function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let text = '';
  while (text.length < length) {
    const byte = take();
    if (byte < limit) text += alphabet[byte % alphabet.length]!;
  }
  return text;
}
