/**
 * Benchmark only: loaded into the browser host's process (`node --import`) so the benchmark can
 * read that process's clock. Each line on stdin is answered with one line on stdout holding
 * `performance.timeOrigin + performance.now()`; the benchmark sends a few and keeps the one with
 * the shortest round trip to estimate the offset between the host's clock and its own.
 */
import { createInterface } from 'node:readline';

if (!process.stdin.isTTY) {
  createInterface({ input: process.stdin }).on('line', () => process.stdout.write(`${JSON.stringify({ event: 'clock', now: performance.timeOrigin + performance.now() })}\n`));
  // Never keep the host alive on its own.
  process.stdin.unref();
}
