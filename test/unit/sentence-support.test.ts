/**
 * A chip opens the span of its own sentence (issue 28): the n-th chip of a signal finds the
 * sentence holding the n-th marker, and that sentence's support entry, not the signal's first.
 */
import { describe, expect, it } from 'vitest';
import { supportForChip, type SupportEntry } from '../../src/renderer/src/features/citations/sentence-support';

const A = 'sig_aaaaaaaaaaaaaaaa';
const B = 'sig_bbbbbbbbbbbbbbbb';
const cited = new Set([A, B]);
const one = `DMart opened 12 stores in Pune [${A}].`;
const two = `Its revenue rose 18% to ₹3,200 crore [${A}] [${B}].`;
// The verifier dropped an id that was not in the evidence: the text no longer has it.
const three = `Zudio added 40 stores [sig_12] [${A}].`;
const text = `Here is what the signals say.\n\n${one} ${two}\n\n- Zudio added 40 stores [${A}].`;
const support: SupportEntry[] = [
  { sentence: one, citation: A, start: 0, end: 30 },
  { sentence: two, citation: A, start: 31, end: 80 },
  { sentence: two, citation: B, start: 5, end: 40 },
  { sentence: three, citation: A, start: 81, end: 120 },
];

describe('supportForChip', () => {
  it('gives each chip of a signal the span of its own sentence', () => {
    expect(supportForChip(text, support, A, 0, cited)).toMatchObject({ start: 0, end: 30 });
    expect(supportForChip(text, support, A, 1, cited)).toMatchObject({ start: 31, end: 80 });
    expect(supportForChip(text, support, B, 0, cited)).toMatchObject({ start: 5, end: 40 });
  });

  it('finds a sentence whose invalid marker the verifier dropped', () => {
    expect(supportForChip(text, support, A, 2, cited)).toMatchObject({ start: 81, end: 120 });
  });

  it('without a chip (the citation list), or with none reported, falls back to the first span, or to nothing', () => {
    expect(supportForChip(text, support, A, undefined, cited)).toMatchObject({ start: 0, end: 30 });
    expect(supportForChip(text, undefined, A, 0, cited)).toBeNull();
    expect(supportForChip(text, support, 'sig_cccccccccccccccc', 0, cited)).toBeNull();
  });

  it('highlights nothing when the chip’s sentence rests on other signals only', () => {
    const onlyB: SupportEntry[] = [{ sentence: two, citation: B, start: 5, end: 40 }, { sentence: one, citation: B, start: 1, end: 2 }];
    expect(supportForChip(text, onlyB, A, 1, cited)).toBeNull();
  });

  it('finds a sentence reported with the hyphen-minus the model wrote while the text shows the typeset minus', () => {
    // The clean-clone failure: "Blinkit 22.3% (-1.1 pts)" as written, "(−1.1 pts)" as shown.
    const first = `Order value grew 60.1% [${A}].`;
    const written = `Blinkit 22.3% (-1.1 pts), BB Now 5.2% (-0.9 pts) [${A}].`;
    const shownText = `${first} ${written.replaceAll('(-', '(\u2212')}`;
    const entries: SupportEntry[] = [
      { sentence: first, citation: A, start: 0, end: 20 },
      { sentence: written, citation: A, start: 21, end: 90 },
    ];
    expect(supportForChip(shownText, entries, A, 1, cited)).toMatchObject({ start: 21, end: 90 });
  });
});
