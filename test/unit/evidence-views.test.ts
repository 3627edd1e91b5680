/**
 * The verifier's view of a corpus signal is kept between answers (so its facts are read once), yet
 * an answer is always checked against what the signal and its source say now.
 */
import { describe, expect, it } from 'vitest';
import { ClaimVerifier, evidenceFrom, verifyAnswer } from '../../src/service/answers/claim-verifier';
import type { CorpusSignal } from '../../src/service/world/signal-types';

const signal = (): CorpusSignal => ({
  id: 'sig_00000000000000c3',
  slug: 'zepto-opens-12-dark-stores-in-pune-000000',
  title: 'Zepto opens 12 dark stores in Pune',
  summary: 'Zepto opened 12 new dark stores in Pune.',
  body: 'Zepto opened 12 new dark stores in Pune, taking its network to 540 dark stores nationwide.',
  source_id: 'src_zepto',
  url: 'https://example.com/zepto-pune',
  published_at: '2026-10-05T06:51:58.000Z',
  type: 'store_opening',
  entities: { retailers: ['Zepto'], segments: ['quick commerce'], cities: ['Pune'], states: ['Maharashtra'] },
  metrics: { stores_opened: 12 },
});
const judge = (sentence: string, corpus: CorpusSignal, sourceName: string): string =>
  verifyAnswer(sentence, new ClaimVerifier(evidenceFrom([corpus], () => sourceName))).content;

describe('evidence views', () => {
  it('gives the same view of an unchanged signal to every answer, with its source name', () => {
    const corpus = signal();
    const [first] = evidenceFrom([corpus], () => 'Zepto newsroom');
    const [second] = evidenceFrom([corpus], () => 'Zepto newsroom');
    expect(second).toBe(first);
    expect(first).toMatchObject({ id: corpus.id, body: corpus.body, source_name: 'Zepto newsroom' });
  });

  it('checks an answer against the signal as it reads now, after its text changed', () => {
    const corpus = signal();
    const claim = 'Zepto now runs 560 dark stores nationwide [sig_00000000000000c3].';
    expect(judge(claim, corpus, 'Zepto newsroom')).toBe('');
    corpus.body = 'Zepto opened 12 new dark stores in Pune, taking its network to 560 dark stores nationwide.';
    expect(judge(claim, corpus, 'Zepto newsroom')).toContain('560 dark stores');
  });

  it('follows a renamed source', () => {
    const corpus = signal();
    const claim = 'Pune Retail Weekly reported the openings [sig_00000000000000c3].';
    expect(judge(claim, corpus, 'Zepto newsroom')).toBe('');
    const [view] = evidenceFrom([corpus], () => 'Pune Retail Weekly');
    expect(view!.source_name).toBe('Pune Retail Weekly');
    expect(judge(claim, corpus, 'Pune Retail Weekly')).toContain('Pune Retail Weekly');
  });
});
