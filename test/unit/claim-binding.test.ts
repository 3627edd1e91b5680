/** Claim extraction as bindings (issue 45): what each figure is about, citation forms, and the labelled set's swaps. */
import { describe, expect, it } from 'vitest';
import { ClaimVerifier, extractClaims, normaliseCitations, verifyAnswer, type EvidenceSignal } from '../../src/service/answers/claim-verifier';
import { bindFigures } from '../../src/service/answers/claim-binding';
import { worldEntities } from '../../src/service/world/entity-registry';
import { createSignalStore } from '../../src/service/server';
import { buildLabelledSet, SUPPORTED_KINDS, SWAP_KINDS } from '../../eval/verification-set';
import { evidenceFrom } from '../../src/service/answers/signal-evidence';

const PANEL: EvidenceSignal = {
  id: 'sig_00000000000000e5',
  title: 'Quick commerce in Bengaluru, Q2 FY27: order value up 60.1% YoY; Blinkit leads with 31.5%',
  body: 'Quick commerce gross order value in Bengaluru grew 60.1% year on year in Q2 FY27. Shares of order value (change on the previous quarter): Blinkit 31.5% (+0.9 pts), Zepto 24.0% (-0.4 pts), Swiggy Instamart 18.1% (+0.2 pts). The figures were presented at an industry briefing in Bengaluru.',
  published_at: '2026-10-20T06:00:00.000Z',
  period: 'Q2 FY27',
  source_name: 'Industry briefing',
  entities: { retailers: ['Blinkit', 'Zepto', 'Swiggy Instamart'], segments: ['quick commerce'], cities: ['Bengaluru'], states: ['Karnataka'] },
};
const RESULTS: EvidenceSignal = {
  id: 'sig_00000000000000f6',
  title: 'Nykaa (FSN E-Commerce) Q2 FY27 results: revenue ₹2,323 crore, up 30.3% YoY',
  body: "Nykaa's Q2 FY27 revenue came in at ₹2,323 crore (+30.3% YoY); the EBITDA margin was 9.4%. Management pointed to lower discounting as the driver of the quarter.",
  published_at: '2026-10-28T06:00:00.000Z',
  period: 'Q2 FY27',
  source_name: 'BSE filings',
  entities: { retailers: ['Nykaa'], segments: ['beauty'], cities: [], states: [] },
};

const bind = (sentence: string): Array<{ figure: string; subjects: string[]; metrics: string[]; direction: string | null; basis: string | null }> =>
  [...bindFigures(sentence, 0, sentence.length, extractClaims(sentence), 'claim')].map(([figure, binding]) => ({ figure: figure.text, subjects: binding.subjects, metrics: binding.metrics, direction: binding.direction, basis: binding.basis }));

describe('what a figure is about', () => {
  it('reads subject, measure, direction and basis from the words around each figure', () => {
    expect(bind("Zepto leads quick commerce with 31.5% of order value, and Nykaa's revenue fell 30.3% year on year.")).toEqual([
      { figure: '31.5%', subjects: ['retailer:Zepto'], metrics: ['share'], direction: null, basis: null },
      { figure: '30.3%', subjects: ['retailer:Nykaa'], metrics: ['revenue'], direction: 'down', basis: 'year on year' },
    ]);
    // A level is not a change ("rose to 540"), and a sign is a direction.
    expect(bind('Zepto’s network rose to 540 dark stores; prices moved −6.4% week on week.')).toMatchObject([
      { figure: '540', direction: null, metrics: ['stores'] },
      { figure: '−6.4%', direction: 'down', basis: 'week on week', metrics: ['price'] },
    ]);
    // A name is not a measure word ("Vijay Sales" names no sales).
    expect(bind('Vijay Sales operates 494 stores.')[0]!.metrics).toEqual(['stores']);
  });

  it('keeps a figure stated for its subject, and names the mismatch when it is not', () => {
    const verifier = new ClaimVerifier([PANEL, RESULTS]);
    const reason = (sentence: string): string | undefined => verifyAnswer(sentence, verifier).verification.removed[0]?.reason;
    expect(reason(`Blinkit leads quick commerce in Bengaluru with 31.5% of order value [${PANEL.id}].`)).toBeUndefined();
    expect(reason(`Zepto leads quick commerce in Bengaluru with 31.5% of order value [${PANEL.id}].`)).toBe('the cited signal gives 31.5% to Blinkit, not Zepto');
    expect(reason(`Quick commerce order value in Bengaluru shrank 60.1% in Q2 FY27 [${PANEL.id}].`)).toBe('the cited signal gives 60.1% as a rise, not a fall');
    expect(reason(`Nykaa's EBITDA margin was 30.3% in Q2 FY27 [${RESULTS.id}].`)).toBe('the cited signal gives +30.3% as revenue, not margin');
    expect(reason(`Nykaa's revenue came in at ₹2,323 crore in Q1 FY27 [${RESULTS.id}].`)).toBe('the cited signal gives figures for Q2 FY27, not Q1 FY27');
    expect(reason(`Nykaa's revenue was ₹2,323 crore, up 30.3% year on year, with an EBITDA margin of 9.4% [${RESULTS.id}].`)).toBeUndefined();
  });

  it('points the support span at the sentence where the figure is bound', () => {
    const result = verifyAnswer(`Zepto holds 24.0% of order value in Bengaluru [${PANEL.id}].`, new ClaimVerifier([PANEL]));
    const span = result.verdicts[0]!.support[0]!;
    expect(PANEL.body.slice(span.start, span.end)).toMatch(/^Shares of order value .*Zepto 24\.0%/);
  });

  it('binds a learned retailer like a built-in one', () => {
    worldEntities.add([{ kind: 'retailer', name: 'Kiranakart', aliases: [], cities: [] }]);
    const learned: EvidenceSignal = { ...PANEL, id: 'sig_00000000000000a7', body: PANEL.body.replace('Swiggy Instamart', 'Kiranakart'), title: PANEL.title, entities: { ...PANEL.entities!, retailers: ['Blinkit', 'Zepto', 'Kiranakart'] } };
    const verifier = new ClaimVerifier([learned]);
    expect(verifyAnswer(`Kiranakart holds 18.1% of order value [${learned.id}].`, verifier).verification.removed).toEqual([]);
    expect(verifyAnswer(`Kiranakart holds 24.0% of order value [${learned.id}].`, verifier).verification.removed[0]!.reason).toBe('the cited signal gives 24.0% to Zepto, not Kiranakart');
  });
});

describe('citation forms', () => {
  const ids = ['sig_00000000000000e5', 'sig_00000000000000f6'];
  it.each([
    ['Growth [sig_00000000000000e5, sig_00000000000000f6].', 'Growth [sig_00000000000000e5] [sig_00000000000000f6].'],
    ['Growth [sig_00000000000000e5][sig_00000000000000f6].', 'Growth [sig_00000000000000e5] [sig_00000000000000f6].'],
    ['Growth (sig_00000000000000e5).', 'Growth [sig_00000000000000e5].'],
    ['Growth 【sig_00000000000000e5】.', 'Growth [sig_00000000000000e5].'],
    ['Growth [2].', 'Growth [sig_00000000000000f6].'],
    ['Growth [1, 2].', 'Growth [sig_00000000000000e5] [sig_00000000000000f6].'],
    ['Growth [7].', 'Growth .'],
    ['See [the table](https://example.com) [1].', 'See [the table](https://example.com) [sig_00000000000000e5].'],
  ])('%s', (written, canonical) => {
    expect(normaliseCitations(written, ids)).toBe(canonical);
  });
});

describe('the labelled set (eval/verification-set.ts)', () => {
  it('removes every swap and keeps every supported sentence', { timeout: 120_000 }, () => {
    const store = createSignalStore({ anchor: new Date('2026-11-01T00:00:00Z') });
    const set = buildLabelledSet(store);
    const wrong: string[] = [];
    for (const item of set) {
      if (![...SUPPORTED_KINDS, ...SWAP_KINDS].includes(item.kind as never)) continue;
      const verifier = new ClaimVerifier(evidenceFrom(item.evidence, (id) => store.sourcesById.get(id)?.name));
      const removed = verifyAnswer(item.text, verifier).verification.removed.length > 0;
      if (removed !== item.unsupported) wrong.push(`${item.kind}: ${item.text}`);
    }
    for (const kind of SWAP_KINDS) expect(set.filter((item) => item.kind === kind).length).toBeGreaterThanOrEqual(60);
    expect(wrong).toEqual([]);
  });
});
