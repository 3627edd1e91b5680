/**
 * Answers display negative figures with a true minus sign (U+2212), never a hyphen (issue 29
 * item 10): share changes ("−1.1 pts") the service computes and price moves it quotes from
 * signals. Real local service over HTTP; every figure still passes claim verification.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/server';
import { ask, postJson, startTestService } from '../support/local-service';

let service: RunningService;
beforeAll(async () => {
  service = await startTestService({ now: () => Date.parse('2026-11-01T10:00:00Z') });
}, 60_000);
afterAll(() => service?.close());

const HYPHEN_FIGURE = /(^|[\s([:;,/])-(?=[₹#]?\d)/m;

describe('negative figures in answers', () => {
  it.each([
    'Who is gaining share in quick commerce in Bengaluru?',
    'Which players are gaining share in grocery in Mumbai?',
    'What is DMart doing on prices?',
    'Zepto price cuts',
  ])('%s: no hyphen before a figure, every claim kept by the verifier', async (question) => {
    const answer = (await (await postJson(`${service.url}/api/v1/ask`, ask(question))).json()) as { content: string; verification: { removed: unknown[] } };
    expect(answer.content).not.toMatch(HYPHEN_FIGURE);
    expect(answer.verification.removed).toEqual([]);
  });

  it('the minus sign is there: at least one of these answers states a negative figure with U+2212', async () => {
    const texts = await Promise.all(
      ['Who is gaining share in quick commerce in Bengaluru?', 'Zepto price cuts', 'What is DMart doing on prices?', 'Which players are gaining share in grocery in Mumbai?'].map(
        async (question) => ((await (await postJson(`${service.url}/api/v1/ask`, ask(question))).json()) as { content: string }).content,
      ),
    );
    expect(texts.join('\n')).toMatch(/\u2212\d/);
  });
});
