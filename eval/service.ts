/**
 * The service the evaluation asks: the real local service on a loopback port, with a fixed
 * corpus anchor and clock ("today" is the anchor's morning), no live feed, no pacing and an
 * ask limit high enough for a few hundred questions.
 */
import { LIMIT_TABLE } from '../src/service/rate-limiter';
import { createSignalStore, startService, type RunningService } from '../src/service/server';

/** The corpus's "today" for the evaluation (after Diwali 2026, so its festive figures exist). */
export const EVAL_ANCHOR = new Date('2026-11-22T00:00:00Z');
export const EVAL_NOW = EVAL_ANCHOR.getTime() + 10 * 3_600_000;

export function startEvalService(): Promise<RunningService> {
  const now = (): number => EVAL_NOW;
  return startService({
    paceMs: 0,
    liveFeed: false,
    now,
    store: createSignalStore({ anchor: EVAL_ANCHOR, now }),
    limits: { ...LIMIT_TABLE, ask: { limit: 1_000_000, windowMs: LIMIT_TABLE.ask.windowMs } },
  });
}
