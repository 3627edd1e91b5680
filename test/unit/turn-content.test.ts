import { describe, expect, it, vi } from 'vitest';
import type { TurnAnswerState } from '../../src/shared/conversation';
import { TurnContent } from '../../src/renderer/src/store/turn-content';
import { citationSnapshot } from '../support/citation-snapshot';

/** An answer as the renderer receives it: parsed from its own JSON (every string a new copy). */
function answerJson(n: number, changed = false): string {
  const text = `Quick commerce grew 40% in Bengaluru [sig_${n}]. Zudio opened 12 stores in Pune [sig_2]. A sentence with a typeset minus: margins −3% [sig_2].`;
  // `changed`: the same signal cited again after the service changed it.
  const citation = (id: string) =>
    citationSnapshot(id, { body: `The body of ${id}, long enough to matter.${changed ? ' Revised.' : ''}`, changed, metrics: changed ? { stores: 14 } : { stores: 12 }, citedAt: `2026-11-27T03:0${n}:00.000Z` });
  const answer: TurnAnswerState = {
    text,
    status: 'done',
    error: null,
    citations: [citation(`sig_${n}`), citation('sig_2')],
    confidence: 0.8,
    confidenceTrace: [0.5, 0.8],
    promotion: { topic: 'quick commerce', preset: 'growth' },
    removedClaims: [{ text: 'An unsupported claim.', reason: 'no figure found' }],
    support: [
      { sentence: `Quick commerce grew 40% in Bengaluru [sig_${n}].`, citation: `sig_${n}`, start: 0, end: 10 },
      { sentence: 'Zudio opened 12 stores in Pune [sig_2].', citation: 'sig_2', start: 4, end: 20 },
      // Reported with the hyphen-minus while the text has U+2212: not in the text as written.
      { sentence: 'A sentence with a typeset minus: margins -3% [sig_2].', citation: 'sig_2', start: 0, end: 5 },
    ],
    conflicts: [{ measure: 'stores', entity: 'Zudio', place: 'Pune', asOf: '2026-11', figures: [{ value: 12, citation: 'sig_2', source: 'NSE filings' }], note: 'two figures' }],
  };
  return JSON.stringify(answer);
}

describe('TurnContent: one copy of repeated strings in the open conversation', () => {
  it('leaves every answer equal to what arrived, in place', () => {
    const content = new TurnContent();
    for (let n = 0; n < 8; n += 1) {
      const json = answerJson(n % 5, n >= 5);
      const answer = JSON.parse(json) as TurnAnswerState;
      const citations = answer.citations;
      const support = answer.support;
      expect(content.answer(answer)).toBe(answer);
      // The same objects (the store and the conversation main sent share them), the same values.
      expect(answer.citations).toBe(citations);
      expect(answer.support).toBe(support);
      expect(JSON.stringify(answer)).toBe(json);
    }
  });

  it('hands back an equal string, short or long', () => {
    const content = new TurnContent();
    expect(content.word((JSON.parse('["NSE filings"]') as string[])[0]!)).toBe('NSE filings');
    expect(content.word((JSON.parse('["NSE filings"]') as string[])[0]!)).toBe('NSE filings');
    expect(content.word('x'.repeat(200))).toBe('x'.repeat(200));
  });

  it("does a conversation's answers later, in slices, and stops once closed", async () => {
    vi.useFakeTimers();
    try {
      const jsons = Array.from({ length: 50 }, (_, n) => answerJson(n % 10));
      const answers = jsons.map((json) => JSON.parse(json) as TurnAnswerState);
      const content = new TurnContent();
      content.later(answers);
      await vi.runAllTimersAsync();
      answers.forEach((answer, i) => expect(JSON.stringify(answer)).toBe(jsons[i]));
      // Closed before its first slice: nothing is touched (the next conversation's table is another).
      const closed = new TurnContent();
      const spy = vi.spyOn(closed, 'answer');
      closed.later(answers);
      closed.close();
      await vi.runAllTimersAsync();
      expect(spy).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps answers saved before claim verification (no support, removed claims or conflicts)', () => {
    const content = new TurnContent();
    const old: TurnAnswerState = { text: 'Old answer.', status: 'done', error: null, citations: [], confidence: null, confidenceTrace: [], promotion: null };
    const json = JSON.stringify(old);
    expect(JSON.stringify(content.answer(old))).toBe(json);
  });
});
