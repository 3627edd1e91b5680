/** The streaming answers' step queue (src/service/answer-turns.ts), on the real event loop. */
import { describe, expect, it } from 'vitest';
import { AnswerTurns } from '../../src/service/answer-turns';

describe('AnswerTurns', () => {
  it("runs the oldest ask's steps first, whatever order they were asked in", async () => {
    const turns = new AnswerTurns();
    const first = turns.enter();
    const second = turns.enter();
    const order: string[] = [];
    const run = async (ask: number, name: string): Promise<void> => {
      for (let i = 0; i < 3; i += 1) {
        await turns.step(ask);
        order.push(`${name}${i}`);
      }
    };
    // The newer ask comes up first; the older one still goes first from its first step on.
    await Promise.all([run(second, 'b'), run(first, 'a')]);
    expect(order).toEqual(['a0', 'a1', 'a2', 'b0', 'b1', 'b2']);
  });

  it('runs one step per event-loop turn, so the I/O of each turn comes between steps', async () => {
    const turns = new AnswerTurns();
    const asks = [turns.enter(), turns.enter()];
    // A callback that queues itself each turn counts the turns (one check phase each).
    let ticks = 0;
    let ticking = true;
    const tick = (): void => {
      ticks += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const stepsAt: number[] = [];
    await Promise.all(
      asks.map(async (ask) => {
        for (let i = 0; i < 4; i += 1) {
          await turns.step(ask);
          stepsAt.push(ticks);
        }
      }),
    );
    ticking = false;
    // Eight steps, each in a turn of its own.
    expect(new Set(stepsAt).size).toBe(8);
  });
});
