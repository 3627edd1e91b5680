/**
 * The plain-text path (issue 31, round 6): a delta of plain text added to a paragraph or list
 * tail is appended to the tail's text node without lexing, rendering or sanitising. What a
 * reader sees must be exactly what a fresh render of the same text shows, at every step, on the
 * edges of that path: deltas ending inside `**`, entities, a `<` in text, links and code spans
 * started in one delta, quotes, list items and their trimmed spaces, lines that become a list or
 * an autolink only once a later delta arrives.
 */
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown } from '../../src/renderer/src/features/chat/markdown';
import { Answer, blocksOf, deltasOf, unnumbered } from '../support/markdown-steps';

const edges: string[] = [
  // Inline syntax arriving in pieces after plain text.
  'Quick commerce grew fast in Pune and **Bengaluru** this week, said the report.',
  'Zepto grew **fast in Pune and then** more text **left open and never closed',
  'Zepto grew **fast.**then more, and _under_scored words and snake_case_names and *single*.',
  'Prices &amp; margins &copy; rose &#39;a lot&#39; and AT&T; &amp then text &lt;b&gt; after',
  'A comparison a < b and c > d and 3<4 then <b>bold</b> and <img src=x onerror="window.__pwned=1"> done',
  'See [the report](https://retail.example/report "its title") and [a link started here and',
  'Code `inline code with <b> and [sig_0123456789abcdef]` and ``double `tick` code`` and `never closed',
  'Markers [sig_0123456789abcdef] and [sig_aaaaaaaaaaaaaaaa], then [sig_01234 split and ] after',
  "It's \"quoted\" text, it's the analysts' view, 5% up, $3 down, a=b {x} ^ ? / , . - + done",
  'Escapes \\*not emphasis\\* and \\[not a link\\] and a trailing backslash \\',
  'Autolinks www.retail.example and https://retail.example/x and analyst@retail.example and www',
  'Strike ~~old~~ and ~single~ and ~~open strike then text',
  'Links [a](https://retail.example/a (title) and [open](https://retail.example/b then text) and (plain parens) after; semi',
  'Titles [a](https://retail.example/a "a title\nthat spans lines" ) and after and [b](https://retail.example/b (a paren\ntitle spanning) ) after',
  'Entities &amp then ; and &copy and more; text & AT&T; ok then more text',
  // A reference definition's title may span lines too, closed by a quote or a parenthesis.
  '[1]: https://retail.example/x "Retail\ntrends in 2026" and text\n\n[2]: https://retail.example/y (Paren\ntitle in 2026) more',
  'Pipes a | b | c in text and more | text\n|---|---|\nafter the pipes',
  // Lines that mean something else once grown.
  'A paragraph\n1. becomes a list\n2 then more',
  'A paragraph line\n1\n. x',
  'Heading setext\n---\n\nAnother\n=== text',
  'Two spaces  \nhard break and a backslash\\\nbreak',
  '# Heading with text #\n\nAnd ## not a heading',
  '> quoted text that grows\n> and more quoted text',
  // Lists: bullets, ordered with a start, trimmed trailing spaces, items with markup first.
  '- **29 Oct 2026** — Myntra and Shiprocket signed a partnership [sig_f2fedb0b0bda5963]\n- **26 Oct 2026** — Myntra is piloting a larger-format store   \n- plain item growing   with spaces   ',
  '3. step one with text\n4. step two 1. not nested\n5. 1\n6. 1. nested',
  '- item\n- 1\n- 1. nested list\n-     indented code\n- - nested bullet\n- *emphasis* item text',
  '- [ ] open task growing text\n- [x] done task text\n  continuation line text',
  '- tight item\n\n- loose item text growing\n- another',
  '* star list item text\n+ plus list item text\n- dash list text',
  // Tables and code blocks: never on the path, still equal.
  '| Store | City |\n|---|---|\n| Zudio Pune growing | Pune text |\n| next row',
  '```\ncode block text <b> growing\n```\n\nafter the block text',
  '    indented code text\n\nparagraph text',
];
/**
 * Inputs the block-freezing renderer streams differently from a fresh render at some steps, with
 * or without this path: marked lexes a list item's two or more trailing spaces as a block of
 * their own, which freezes the list before the next item's marker arrives (the next items then
 * start a list of their own); likewise an item of indented code, a task item's continuation
 * line, a list turning loose. Which steps differ depends on which texts were lexed, so the two
 * paths differ at different steps. Left out of the step-by-step comparisons for that reason.
 */
const freezeQuirks = new Set(edges.filter((edge) => /^- (\*\*29 Oct|item\n|\[ \]|tight item)/.test(edge)));

it('the freezing quirks are the four list inputs', () => expect(freezeQuirks.size).toBe(4));

describe('a tail grown by plain text, appended without lexing or sanitising (issue 31, round 6)', () => {
  it.each([1, 2, 3, 7, 'words'] as const)('equals a fresh render at every step, deltas of %s characters', (size) => {
    const answer = edges.filter((edge) => !freezeQuirks.has(edge)).join('\n\n');
    const streamed = new IncrementalMarkdown();
    let text = '';
    for (const delta of deltasOf(answer, size)) {
      text += delta;
      expect(blocksOf(streamed.update(text, true)), JSON.stringify(text.slice(-80))).toEqual(blocksOf(new IncrementalMarkdown().update(text, true)));
    }
    expect(blocksOf(streamed.update(answer, false))).toEqual(blocksOf(new IncrementalMarkdown().update(answer, false)));
    // The path was taken (not a test of nothing).
    expect(streamed.plainAppends).toBeGreaterThan(size === 1 ? 400 : 5);
  }, 120_000);

  it.each([1, 3, 'words'] as const)('equals a fresh render at every step, each input alone, deltas of %s characters', (size) => {
    for (const input of edges.filter((edge) => !freezeQuirks.has(edge))) {
      const streamed = new IncrementalMarkdown();
      let text = '';
      for (const delta of deltasOf(input, size)) {
        text += delta;
        expect(blocksOf(streamed.update(text, true)), JSON.stringify(text)).toEqual(blocksOf(new IncrementalMarkdown().update(text, true)));
      }
    }
  }, 120_000);

  it('shows on the page what a fresh render shows, appending to the same text node', () => {
    const streamed = render(<Answer text="" streaming />);
    let text = '';
    for (const delta of deltasOf(edges.filter((edge) => !freezeQuirks.has(edge)).join('\n\n'), 'words')) {
      text += delta;
      streamed.rerender(<Answer text={text} streaming />);
      const fresh = render(<Answer text={text} streaming />);
      expect(unnumbered(streamed.container.innerHTML)).toBe(unnumbered(fresh.container.innerHTML));
      fresh.unmount();
    }
    const start = 'Quick commerce in Bengaluru is growing';
    const view = render(<Answer text={start} streaming />);
    const node = view.container.querySelector('.md-tail p')!.firstChild as Text;
    view.rerender(<Answer text={`${start} fast, it's said`} streaming />);
    expect(view.container.querySelector('.md-tail p')!.firstChild).toBe(node);
    expect(node.data).toBe("Quick commerce in Bengaluru is growing fast, it's said");
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  }, 120_000);

  it('takes the path for plain prose and list text, and sanitises nothing then', () => {
    const prose = [
      'The service has no signals about Lenskart, so it cannot answer this without guessing. It follows 40 Indian retailers across grocery, quick commerce, fashion, electronics, beauty, jewellery, pharmacy — for example DMart, Zepto, Zudio, Tanishq and Apollo Pharmacy.',
      '- **29 Oct 2026** — Myntra and Shiprocket signed a partnership covering payments in Mumbai, starting with 109 outlets. [sig_f2fedb0b0bda5963]\n- **26 Oct 2026** — Myntra is piloting a larger-format store in Mumbai, aimed at young households.',
    ].join('\n\n');
    const streamed = new IncrementalMarkdown();
    let text = '';
    let plain = 0;
    for (const delta of deltasOf(prose, 'words')) {
      text += delta;
      const appends = streamed.plainAppends;
      const calls = streamed.sanitizeCalls;
      const lexed = streamed.lexedChars;
      streamed.update(text, true);
      if (streamed.plainAppends > appends) {
        plain += 1;
        expect(streamed.sanitizeCalls).toBe(calls);
        expect(streamed.lexedChars).toBe(lexed);
      }
    }
    // Most deltas are plain text: all but those at a line's start, a `**`, a marker, a `:`.
    expect(plain / deltasOf(prose, 'words').length).toBeGreaterThan(0.6);
  });

  it('a replaced answer (a retry) or a finished one is rendered afresh', () => {
    const streamed = new IncrementalMarkdown();
    streamed.update('Quick commerce grew in Pune', true);
    streamed.update('Quick commerce grew in Pune and Bengaluru', true);
    const retried = streamed.update('Fashion grew in Delhi', true);
    expect(blocksOf(retried)).toEqual(blocksOf(new IncrementalMarkdown().update('Fashion grew in Delhi', true)));
    const done = streamed.update('Fashion grew in Delhi and Mumbai', false);
    expect(blocksOf(done)).toEqual(blocksOf(new IncrementalMarkdown().update('Fashion grew in Delhi and Mumbai', false)));
  });
});
