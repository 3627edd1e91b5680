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

  it('rebuilt from the answers the window holds: bounded by them, values unchanged, sharing kept', () => {
    const content = new TurnContent();
    // 200 answers each citing a signal of its own and sig_2, as a long conversation read in turn.
    const jsons = Array.from({ length: 200 }, (_, n) => answerJson(n + 10));
    const answers = jsons.map((json) => content.answer(JSON.parse(json) as TurnAnswerState));
    expect(content.size.signals).toBe(201);
    // The window moved: only the last 40 are held.
    const held = answers.slice(-40);
    content.retain(held);
    // Their own 40 signals and sig_2; the short strings are those they hold.
    expect(content.size.signals).toBe(41);
    const words = content.size.words;
    content.retain(held);
    expect(content.size).toEqual({ signals: 41, words });
    answers.forEach((answer, i) => expect(JSON.stringify(answer)).toBe(jsons[i]));
    // A later answer citing a held signal shares its strings with the held one; one citing a
    // signal of a dropped answer is not changed in value, and the table grows by its own only.
    const again = content.answer(JSON.parse(answerJson(205)) as TurnAnswerState);
    expect(again.citations[0]!.detail!.body).toBe(held.find((a) => a.citations[0]!.id === 'sig_205')!.citations[0]!.detail!.body);
    expect(again.citations[0]!.detail!.entities).toBe(held.find((a) => a.citations[0]!.id === 'sig_205')!.citations[0]!.detail!.entities);
    expect(again.citations[1]!.detail!.entities).toBe(held[0]!.citations[1]!.detail!.entities);
    expect(again.citations[1]!.source_name).toBe(held[0]!.citations[1]!.source_name);
    const droppedJson = answerJson(15);
    const dropped = content.answer(JSON.parse(droppedJson) as TurnAnswerState);
    expect(JSON.stringify(dropped)).toBe(droppedJson);
    expect(content.size.signals).toBe(42);
    // Nothing held: nothing kept.
    content.retain([]);
    expect(content.size).toEqual({ signals: 0, words: 0 });
  });

  it('stays bounded over a long conversation read through a moving window', () => {
    const content = new TurnContent();
    const held: TurnAnswerState[] = [];
    let most = 0;
    for (let n = 0; n < 1_000; n += 1) {
      const json = answerJson(n + 10);
      const answer = content.answer(JSON.parse(json) as TurnAnswerState);
      expect(JSON.stringify(answer)).toBe(json);
      held.push(answer);
      if (held.length > 48) held.shift();
      if (n % 7 === 0) content.retain(held);
      most = Math.max(most, content.size.signals);
    }
    // 48 held answers cite 49 signals; between rebuilds up to 7 more come.
    expect(most).toBeLessThanOrEqual(49 + 7);
  });
});
