/** The conversation replayed in `messages`: assistant turns included, within the interface's limits. */
import { describe, expect, it } from 'vitest';
import { REPLAY_ANSWER_CHARS, REPLAY_BUDGET_BYTES, replayMessages } from '../../src/main/services/conversations/replay-messages';
import { AskRequest, MAX_MESSAGES } from '../../src/shared/service-schemas';

describe('replayMessages', () => {
  it('replays each question and its finished answer, oldest first, ending with the question', () => {
    const messages = replayMessages([{ question: 'Zudio stores in Pune?', answer: 'Zudio opened 14 stores [sig_00000000000000a1].' }, { question: 'And DMart?', answer: null }], 'How many in Bengaluru?');
    expect(messages).toEqual([
      { role: 'user', content: 'Zudio stores in Pune?' },
      { role: 'assistant', content: 'Zudio opened 14 stores [sig_00000000000000a1].' },
      { role: 'user', content: 'And DMart?' },
      { role: 'user', content: 'How many in Bengaluru?' },
    ]);
    expect(AskRequest.safeParse({ messages }).success).toBe(true);
  });

  it('keeps the newest turns within 50 messages and the body budget, cutting long answers at a word', () => {
    const turns = Array.from({ length: 80 }, (_, i) => ({ question: `Question ${i}`, answer: `word `.repeat(3_000) + `end ${i}` }));
    const messages = replayMessages(turns, 'Last question');
    expect(messages.length).toBeLessThanOrEqual(MAX_MESSAGES);
    expect(new TextEncoder().encode(JSON.stringify({ messages })).length).toBeLessThanOrEqual(REPLAY_BUDGET_BYTES + 64);
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Last question' });
    expect(messages.at(-3)).toEqual({ role: 'user', content: 'Question 79' });
    const answer = messages.at(-2)!.content;
    expect(answer.length).toBeLessThanOrEqual(REPLAY_ANSWER_CHARS);
    expect(answer.endsWith('word…')).toBe(true);
    // Whole turns only: every kept question is followed by its answer.
    expect(messages[0]!.role).toBe('user');
    expect(AskRequest.safeParse({ messages }).success).toBe(true);
  });
});
