/** Markdown from the service is rendered inert, and incremental rendering equals a full render. */
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown, renderMarkdownHtml } from '../../src/renderer/src/features/chat/markdown';
import { MarkdownBlocks, useStreamingMarkdown } from '../../src/renderer/src/features/chat/StreamingMarkdown';

const HOSTILE = [
  '<img src=x onerror="window.__pwned=1">',
  '[click](javascript:window.__pwned=1)',
  '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '<svg onload="window.__pwned=1"><circle r=1></circle></svg>',
  '<iframe src="https://evil.example"></iframe>',
  '<script>window.__pwned=1</script>',
  '<a href="https://example.com" target="_blank" onclick="window.__pwned=1">x</a>',
  '<div style="background:url(javascript:1)">styled</div>',
  '<form action="https://evil.example"><input name=a></form>',
  '<button data-cite="sig_0000000000000000" data-testid="citation-chip">9</button>',
  '<math><mi xlink:href="javascript:1">x</mi></math>',
  '<p>unclosed <b>bold <i>italic',
];

function mount(html: string): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = html;
  document.body.append(root);
  return root;
}

describe('hostile markdown', () => {
  it.each(HOSTILE)('%s renders without active content', (payload) => {
    const root = mount(renderMarkdownHtml(`Before ${payload} after [sig_0123456789abcdef]`));
    expect(root.querySelector('script, iframe, svg, math, form, input, object, embed, style')).toBeNull();
    for (const element of root.querySelectorAll('*')) {
      for (const attribute of element.getAttributeNames()) expect(attribute.startsWith('on')).toBe(false);
      expect(element.getAttribute('style')).toBeNull();
      expect(element.getAttribute('target')).toBeNull();
    }
    for (const link of root.querySelectorAll('a[href]')) expect(link.getAttribute('href')).toMatch(/^(https?:|mailto:)/);
    // Only the app's own chip exists; a forged one from the service does not survive.
    const chips = root.querySelectorAll('[data-testid="citation-chip"]');
    expect([...chips].map((chip) => chip.getAttribute('data-cite'))).toEqual(['sig_0123456789abcdef']);
    // Whether anything *runs* is checked in real Chromium (e2e/hostile-service.spec.ts): jsdom
    // never executes scripts or handlers inserted through innerHTML, so it cannot tell.
  });

  it('stays inert at every prefix while streaming, for every payload at once', () => {
    const hostile = HOSTILE.map((payload, i) => `Para ${i} ${payload} [sig_0123456789abcdef]\n\n`).join('');
    const incremental = new IncrementalMarkdown();
    for (let end = 1; end <= hostile.length; end += 3) {
      const { frozen, tail } = incremental.update(hostile.slice(0, end), true);
      const root = mount([...frozen, ...tail].map((block) => block.html).join(''));
      expect(root.querySelector('script, iframe, svg, math, form, input, object, embed, style, img')).toBeNull();
      for (const element of root.querySelectorAll('*')) {
        expect(element.getAttributeNames().filter((name) => name.startsWith('on') || name === 'style' || name === 'target')).toEqual([]);
      }
      for (const link of root.querySelectorAll('a[href]')) expect(link.getAttribute('href')).toMatch(/^(https?:|mailto:)/);
      root.remove();
    }
  }, 60_000);

  it.each([
    ['a marker in a link title', '<a href="https://x.example/login" title="[sig_0000000000000001]">log in</a>'],
    ['a marker in a span title', '<span title="a [sig_0000000000000001] b">t</span>'],
    ['a marker in a markdown link title', '[log in](https://x.example/login "[sig_0000000000000001]")'],
    ['a marker in an image alt', '![[sig_0000000000000001]](https://x.example/i.png)'],
    ['a forged chip link', '<a href="https://x.example/x" class="cite-chip" data-cite="sig_0000000000000001" data-testid="citation-chip">7</a>'],
  ])('%s never becomes a chip, and no link gains chip attributes', (_name, payload) => {
    const root = mount(renderMarkdownHtml(`${payload} and a real one [sig_0123456789abcdef]`));
    const chips = [...root.querySelectorAll('[data-cite], .cite-chip, [data-testid="citation-chip"]')];
    expect(chips.map((chip) => [chip.tagName, chip.getAttribute('data-cite')])).toEqual([['BUTTON', 'sig_0123456789abcdef']]);
    // The chip carries only its own attributes.
    expect(chips[0]!.getAttributeNames().sort()).toEqual(['class', 'data-cite', 'data-testid', 'title', 'type']);
    for (const link of root.querySelectorAll('a')) {
      expect(link.getAttributeNames().filter((name) => !['href', 'title', 'rel'].includes(name))).toEqual([]);
      expect(link.querySelector('button')).toBeNull();
    }
    root.remove();
  });

  it('a marker in a code span, a fenced block or pre stays text; one in prose is a chip', () => {
    const root = mount(renderMarkdownHtml('Prose [sig_0123456789abcdef] and `[sig_0000000000000005]`\n\n```\n[sig_0000000000000006]\n```\n\n<pre>[sig_0000000000000007]</pre>'));
    expect([...root.querySelectorAll('button.cite-chip')].map((chip) => chip.getAttribute('data-cite'))).toEqual(['sig_0123456789abcdef']);
    expect([...root.querySelectorAll('code, pre')].map((el) => el.textContent).join(' ')).toContain('[sig_0000000000000005]');
    expect(root.textContent).toContain('[sig_0000000000000006]');
    expect(root.textContent).toContain('[sig_0000000000000007]');
    root.remove();
  });

  it('keeps text around chips, numbers repeats alike and escapes nothing twice', () => {
    const root = mount(renderMarkdownHtml('A <b>&amp;</b> [sig_0123456789abcdef][sig_00000000000000aa] then [sig_0123456789abcdef].'));
    expect([...root.querySelectorAll('button.cite-chip')].map((chip) => chip.textContent)).toEqual(['1', '2', '1']);
    expect(root.textContent!.trim()).toBe('A & 12 then 1.');
    root.remove();
  });

  it('keeps safe links and gives them rel=noopener', () => {
    const root = mount(renderMarkdownHtml('See [ET Retail](https://retail.example/x) or [mail](mailto:a@b.example).'));
    const links = [...root.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://retail.example/x', 'mailto:a@b.example']);
    for (const link of links) expect(link.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('renders a huge table without trouble', () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => `| row ${i} | ${i * 3} |`).join('\n');
    const root = mount(renderMarkdownHtml(`| a | b |\n|---|---|\n${rows}`));
    expect(root.querySelectorAll('tr').length).toBe(2_001);
  });
});

describe('incremental rendering', () => {
  const answer = [
    '## Quick commerce in Bengaluru',
    '',
    'Based on 3 signals. **In short:** growth is fast [sig_aaaaaaaaaaaaaaaa].',
    '',
    '- one [sig_bbbbbbbbbbbbbbbb]',
    '- two [sig_aaaaaaaaaaaaaaaa]',
    '',
    '| Signal | Value |',
    '|---|---:|',
    '| A [sig_cccccccccccccccc] | 1 |',
    '',
    '```',
    'code <script>',
    '```',
    '',
    'Done.',
  ].join('\n');

  it('streamed in small pieces ends identical to a one-shot render, with stable numbers', () => {
    const incremental = new IncrementalMarkdown();
    for (let i = 1; i <= answer.length; i += 7) incremental.update(answer.slice(0, i), true);
    const { frozen, tail } = incremental.update(answer, false);
    const streamed = [...frozen, ...tail].map((block) => block.html).join('');
    const whole = new IncrementalMarkdown().update(answer, false);
    expect(streamed).toBe([...whole.frozen, ...whole.tail].map((block) => block.html).join(''));
    expect(incremental.numbering.entries()).toEqual([
      ['sig_aaaaaaaaaaaaaaaa', 1],
      ['sig_bbbbbbbbbbbbbbbb', 2],
      ['sig_cccccccccccccccc', 3],
    ]);
  });

  it('re-lexes only the unfinished tail: work per update stays flat as the answer grows', () => {
    const paragraph = 'A sentence about Zudio opening stores in Pune [sig_aaaaaaaaaaaaaaaa]. ';
    const long = Array.from({ length: 150 }, (_, i) => `${paragraph.repeat(3)}${i}\n\n`).join('');
    const incremental = new IncrementalMarkdown();
    let text = '';
    const costs: number[] = [];
    for (const chunk of long.match(/[\s\S]{1,40}/g)!) {
      text += chunk;
      const before = incremental.lexedChars;
      incremental.update(text, true);
      costs.push(incremental.lexedChars - before);
    }
    const early = costs.slice(10, 60).reduce((a, b) => a + b, 0) / 50;
    const late = costs.slice(-50).reduce((a, b) => a + b, 0) / 50;
    expect(late).toBeLessThan(early * 2);
    expect(Math.max(...costs)).toBeLessThan(600);
  }, 30_000);

  it('shows a replaced answer (a retry) in full, not the frozen blocks of the old one', () => {
    function Answer({ text, streaming }: { text: string; streaming: boolean }) {
      const { frozen, tail } = useStreamingMarkdown(text, streaming);
      return <MarkdownBlocks frozen={frozen} tail={tail} />;
    }
    const first = 'First one.\n\nFirst two.\n\nFirst three';
    const view = render(<Answer text={first.slice(0, 20)} streaming />);
    const shown = (): string[] => [...view.container.querySelectorAll('.md-block')].map((block) => block.textContent!.trim());
    view.rerender(<Answer text={first} streaming />);
    expect(shown()).toEqual(['First one.', 'First two.', 'First three']);
    // Same number of blocks, different text: nothing of the first answer may stay on screen.
    view.rerender(<Answer text={'Second one.\n\nSecond two.\n\nSecond three'} streaming />);
    expect(shown()).toEqual(['Second one.', 'Second two.', 'Second three']);
    view.rerender(<Answer text={'Second one.\n\nSecond two.\n\nSecond three.'} streaming={false} />);
    expect(shown()).toEqual(['Second one.', 'Second two.', 'Second three.']);
  });
});
