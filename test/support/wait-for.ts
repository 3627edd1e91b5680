/**
 * Tests wait for conditions, never for time (issue 49): `waitFor` polls a condition until it
 * holds and returns what it gave, or fails naming what it waited for. The poll's pause comes from
 * node:timers/promises, which fake timers leave alone, so it also works inside a fake-timer test.
 */
import { setTimeout as pause } from 'node:timers/promises';

export interface WaitOptions {
  /** What is awaited, for the failure message ("the first fetch"). */
  what?: string;
  /** Longest wait, ms (default 10 s). */
  timeout?: number;
  /** Pause between checks, ms (default 20). */
  interval?: number;
}

/** What a condition gives once it holds. */
export type Held<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls `condition` until it gives a truthy value (returned) or `timeout` passes (thrown). */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions = {}): Promise<Held<T>> {
  const { what = 'the condition', timeout = 10_000, interval = 20 } = options;
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await condition();
    if (value) return value as Held<T>;
    if (Date.now() > deadline) throw new Error(`Waited ${timeout} ms for ${what}; it did not happen.`);
    await pause(interval);
  }
}

/** Like `waitFor`, but gives the last value instead of failing when `timeout` passes (a test then asserts on it). */
export async function pollUntil<T>(read: () => T | Promise<T>, done: (value: T) => boolean, options: Omit<WaitOptions, 'what'> = {}): Promise<T> {
  const { timeout = 10_000, interval = 20 } = options;
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await pause(interval);
  }
}

/** One turn of the event loop (setImmediate): what queued microtasks and ready I/O callbacks do has been done. Not a wait for time. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
