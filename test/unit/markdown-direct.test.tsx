/**
 * A finished answer built straight from its markdown (issue 31, round 9; decision 0030) is the
 * answer marked and the sanitiser make: the same blocks, HTML (chips and their numbers included),
 * marked HTML and citation numbers, over the bench's answers, the 4 KB answers it appends, every
 * cut of them, the markdown fixtures of the other tests and near misses of the subset. Text
 * outside the subset goes through marked, and hostile text stays sanitised.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlockDom } from '../../src/renderer/src/features/chat/block-dom';
import { IncrementalMarkdown } from '../../src/renderer/src/features/chat/markdown';
import { DIRECT_REFUSED } from '../../src/renderer/src/features/chat/markdown-direct';

const answers = JSON.parse(readFileSync(join(process.cwd(), 'test/unit/fixtures/bench-answers.json'), 'utf8')) as string[];

/** The bench's appended answers: answers joined by blank lines up to 4 KB, cut at 4,096 characters (append-profile.ts). */
const appended = Array.from({ length: 12 }, (_, run) => {
  let answer = answers[(run * 2) % answers.length]!;
  for (let k = 1; answer.length < 4_000; k += 1) answer += `\n\n${answers[(run * 2 + k) % answers.length]!}`;
  return answer.slice(0, 4_096);
});

/** Both paths over one finished text: what each shows, and whether the direct path took it. */
function compare(text: string): boolean {
  const direct = new IncrementalMarkdown();
  const marked = new IncrementalMarkdown({ direct: false });
  const a = direct.update(text, false);
  const b = marked.update(text, false);
  // The nodes themselves, not only their HTML: two text nodes side by side serialise as one.
  const nodes = (node: Node): unknown => [node.nodeName, node instanceof Text ? node.data : null, [...node.childNodes].map(nodes)];
  const shown = (r: typeof a) => [...r.frozen, ...r.tail].map((block) => ({ key: block.key, html: block.html, rawHtml: block.rawHtml, nodes: nodes(block.source) }));
  expect(shown(a), JSON.stringify(text)).toEqual(shown(b));
  expect(a.tail).toHaveLength(b.tail.length);
  expect(direct.numbering.entries()).toEqual(marked.numbering.entries());
  // Later updates start from the same place: the same text again changes nothing, more text is lexed from the same point.
  expect(direct.update(text, false).frozen.length).toBe(marked.update(text, false).frozen.length);
  return direct.directAnswers === 1;
}

describe('a finished answer built without marked', () => {
  it("is what marked and the sanitiser make of the bench's answers and the 4 KB answers it appends", () => {
    const taken = [...answers, ...appended].filter(compare).length;
    // Most of them are in the subset (the cut of a 4 KB answer sometimes is not: a marker cut in two).
    expect(taken).toBeGreaterThan(answers.length);
  });

  it('is the same at every cut of an appended answer, taken or not', () => {
    for (const text of appended.slice(0, 6)) for (let end = 1; end <= text.length; end += 1 + (end % 37)) compare(text.slice(0, end));
  }, 120_000);

  it('is the same for the near misses of the subset (each either taken and equal, or left to marked)', () => {
    const misses = [
      '**a**b', 'a**b**', 'a **b**c', 'a **b** c', '**a** **b**', '**a **', '** a**', '***a***', '**a*b**', '*a*', 'a * b', '**x:**.', '**x:**y', '**(x)**', '(**x**)', '**a\nb**',
      '- a\n\n- b', '- a\n- b\n\nPara', 'Para\n- item', '- a\nlazy', '-  a', '- ', '-a', '* a', '+ a', '1. a', '2) a', '- 1. a', '- # a', '- [ ] task', '- [sig_0123456789abcdef] a',
      'Title\n===', 'Title\n---', '---', '# ', '#a', '# a #', '####### a', '## a\nb', '## **a** b', '# a  ',
      '| a |\n|---|', '| a |\n|---|\n| b |', '| a | b |\n|---|:---:|\n| 1 |', '| a | b |\n|---|---|\n| 1 | 2 | 3 |', '| a |\n|--|\n| b |', '| a |\n|:---|\n| **b** |', '| a |\n|---:|\n|  |', 'a | b\n--|--\n1 | 2',
      'line one\nline two', 'line one  \nline two', 'line\n    code', '    code', 'a\n\n\n\nb', '\n\nlead', 'end\n', 'end\n\n',
      '[sig_0123456789abcdef]: x', '[sig_0123456789abcdef](http://x)', '[sig_0123456789abcdef][sig_0123456789abcdef]', '[sig_0123456789abcdef] [sig_fedcba9876543210] [sig_0123456789abcdef]', '[sig_0123', 'x [sig_0123456789ABCDEF]',
      'see www.example.com', 'mail a@b.co', 'http://x', 'a & b', 'a < b', 'it\'s "q"', 'tab\there', 'nb\u00a0sp', 'r\r\nn', '₹31,000 (+12%) — a; b: c.', '50% of $3',
      'a &amp; b', 'a &b', 'x &#39; y', 'a & ', 'a b ', 'a b  ', 'a\nb  ', 'a **b** ', 'a **b ', '- a b ', '- a\n- b ', '- ', '## a ', '## ', '| a |\n|---|\n| b | ', 'a b \n', 'a b \n\nc',
      'x [si', 'x [sig_01', 'x [sig_0123456789abcdef', '- x [si', '[si', '| a |\n|---|\n| [si', '**a [si',
    ];
    for (const text of misses) compare(text);
  });

  it("is shown on the page byte for byte and node for node as marked and the sanitiser's tree (issue 50, round 7)", () => {
    const nodes = (node: Node): unknown => [node.nodeName, node instanceof Text ? node.data : null, node instanceof Element ? node.getAttributeNames().map((name) => [name, node.getAttribute(name)]) : null, [...node.childNodes].map(nodes)];
    let parsed = 0;
    for (const text of [...answers, ...appended, '| a | b |\n|:---|---:|\n| **1** [sig_0123456789abcdef] | 2 |\n| 3 | 4 |', '## Head [sig_0123456789abcdef]\n\n- **a** b\n- c [sig_fedcba9876543210]']) {
      const shownBy = (markdown: IncrementalMarkdown): HTMLElement => {
        const host = document.createElement('div');
        const { frozen, tail } = markdown.update(text, false);
        new BlockDom(host).show(frozen, tail);
        return host;
      };
      const direct = new IncrementalMarkdown();
      const page = shownBy(direct);
      const reference = shownBy(new IncrementalMarkdown({ direct: false }));
      // Byte for byte, and node for node (two text nodes side by side would serialise as one).
      expect(page.innerHTML, JSON.stringify(text)).toBe(reference.innerHTML);
      expect(nodes(page)).toEqual(nodes(reference));
      if (direct.directAnswers === 1) parsed += 1;
    }
    expect(parsed).toBeGreaterThan(answers.length);
  });

  it('refuses exactly the characters its Unicode-mode definition did (issue 50, round 6)', () => {
    // The definition before round 6, written with `\p{Cc}` under the `u` flag.
    const unicode = /&(?! )|(?!\n)\p{Cc}|[<>\\`~_![\]@\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]|[^\S \n]|www\.|:\/\//iu;
    const differ: string[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      const one = `a${String.fromCharCode(code)}b`;
      if (DIRECT_REFUSED.test(one) !== unicode.test(one)) differ.push(code.toString(16));
    }
    // Beyond the plane (emoji, a lone surrogate), the case of the two words, an `&` with and without its space.
    for (const text of ['a 😀 b', '\u{1d400}', 'x\ud800y', 'WWW.x', 'Www.x', 'a:\\/b', 'HTTPS://x', 'a & b', 'a &b', '&', 'a\n\nb', 'a\r\nb', 'a\tb'])
      if (DIRECT_REFUSED.test(text) !== unicode.test(text)) differ.push(JSON.stringify(text));
    expect(differ).toEqual([]);
  });

  it("makes each citation chip as it always was, in the page's document and the inert one", () => {
    const direct = new IncrementalMarkdown();
    const { frozen } = direct.update('Sales rose [sig_0123456789abcdef] and fell [sig_fedcba9876543210]. Again [sig_0123456789abcdef].', false);
    expect(direct.directAnswers).toBe(1);
    const expected =
      '<p>Sales rose <button type="button" class="cite-chip" data-cite="sig_0123456789abcdef" data-testid="citation-chip" title="Citation 1">1</button> and fell ' +
      '<button type="button" class="cite-chip" data-cite="sig_fedcba9876543210" data-testid="citation-chip" title="Citation 2">2</button>. Again ' +
      '<button type="button" class="cite-chip" data-cite="sig_0123456789abcdef" data-testid="citation-chip" title="Citation 1">1</button>.</p>\n';
    const shown = document.createElement('div');
    shown.append(frozen[0]!.content());
    expect(shown.innerHTML).toBe(expected);
    expect(frozen[0]!.html).toBe(expected);
    // Through marked and the sanitiser too.
    const marked = new IncrementalMarkdown({ direct: false });
    expect(marked.update('Sales rose [sig_0123456789abcdef] and fell [sig_fedcba9876543210]. Again [sig_0123456789abcdef].', false).frozen[0]!.html).toBe(expected);
  });

  it('leaves hostile text to marked and the sanitiser', () => {
    const hostile = ['<img src=x onerror="window.__pwned=1">', '[x](javascript:alert(1))', '<script>alert(1)</script>', '**a** <b onclick="x()">b</b>', '| a |\n|---|\n| <img src=x onerror=y> |', '- [x](javascript:1)'];
    for (const text of hostile) {
      const direct = new IncrementalMarkdown();
      const html = direct.update(text, false).frozen.map((block) => block.html).join('');
      expect(direct.directAnswers).toBe(0);
      expect(html).not.toMatch(/onerror|onclick|javascript:|<script|<img/);
      compare(text);
    }
  });
});
