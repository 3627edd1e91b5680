/**
 * How an answer's blocks reach the page (issue 18): a finished answer is sanitised in one call
 * yet each block stays apart, and a streaming tail is morphed in place yet shows exactly what a
 * fresh render of the same text shows.
 */
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BlockDom } from '../../src/renderer/src/features/chat/block-dom';
import { IncrementalMarkdown } from '../../src/renderer/src/features/chat/markdown';
import { MarkdownBlocks, useStreamingMarkdown } from '../../src/renderer/src/features/chat/StreamingMarkdown';

function Answer({ text, streaming }: { text: string; streaming: boolean }) {
  const { frozen, tail } = useStreamingMarkdown(text, streaming);
  return <MarkdownBlocks frozen={frozen} tail={tail} />;
}

const blocksOf = (root: ParentNode): HTMLElement[] => [...root.querySelectorAll<HTMLElement>('.md-block')];

describe('a finished answer, sanitised at once', () => {
  // (A raw block that markdown itself runs on to the end, such as an unclosed comment, is one block.)
  it.each(['<em>never closed', '<strong>left open', '<a href="https://x.example">a link left open', '<span title="t">a span', '<div><span>a div', '<table><tr><td>a raw cell', '<ul><li>a raw item'])(
    'an unclosed %s in one block does not reach into the next',
    (opener) => {
      const text = [`First ${opener}`, 'Second para [sig_0123456789abcdef]', 'Third para'].join('\n\n');
      const view = render(<Answer text={text} streaming={false} />);
      const blocks = blocksOf(view.container);
      expect(blocks.map((block) => block.textContent!.trim()).slice(1)).toEqual(['Second para 1', 'Third para']);
      for (const block of blocks.slice(1)) {
        expect(block.querySelector('em, strong, a, span, div, table, li')).toBeNull();
        expect(block.querySelectorAll('p')).toHaveLength(1);
      }
    },
  );

  it('a hostile answer cannot forge the wrapper that keeps blocks apart', () => {
    // The wrapper is a blockquote whose title holds a random nonce; a guessed one is plain content.
    const forged = '<blockquote title="clarity-block-1-2-3-4-1">forged</blockquote>';
    const breakOut = '</blockquote><blockquote title="clarity-block-1-2-3-4-2"><em>';
    const text = ['One [sig_0123456789abcdef]', forged, breakOut, 'Two', '> a real quote', 'Three'].join('\n\n');
    const whole = new IncrementalMarkdown().update(text, false);
    const blocks = [...whole.frozen, ...whole.tail];
    expect(blocks.map((block) => block.key)).toEqual(blocks.map((_, i) => i));
    const view = render(<Answer text={text} streaming={false} />);
    const shown = blocksOf(view.container).map((block) => block.textContent!.trim());
    expect(shown).toEqual(['One 1', 'forged', '', 'Two', 'a real quote', 'Three']);
    for (const block of blocksOf(view.container).filter((b) => /Two|Three/.test(b.textContent!))) expect(block.querySelector('em')).toBeNull();
  });
});

describe('the streaming tail, morphed in place', () => {
  const answer = [
    '## Zudio in Pune',
    '',
    'Opening **fast** [sig_aaaaaaaaaaaaaaaa] across [the city](https://retail.example/zudio) <b>bold',
    '',
    '| Store | Opened |',
    '|---|---|',
    '| FC Road [sig_bbbbbbbbbbbbbbbb] | 2026 |',
    '| Kothrud | 2025 |',
    '',
    '- one `[sig_cccccccccccccccc]`',
    '- two [sig_aaaaaaaaaaaaaaaa]',
    '',
    'Done.',
  ].join('\n');

  it('shows at every step exactly what a fresh render of the same text shows', () => {
    const streamed = render(<Answer text="" streaming />);
    for (let end = 1; end <= answer.length; end += 5) {
      streamed.rerender(<Answer text={answer.slice(0, end)} streaming />);
      const fresh = render(<Answer text={answer.slice(0, end)} streaming />);
      expect(streamed.container.innerHTML).toBe(fresh.container.innerHTML);
      fresh.unmount();
    }
    streamed.rerender(<Answer text={answer} streaming={false} />);
    const fresh = render(<Answer text={answer} streaming={false} />);
    expect(streamed.container.innerHTML).toBe(fresh.container.innerHTML);
  });

  it('a tail grown by text, reused rather than sanitised again, equals a fresh sanitise at every step', () => {
    const hostile = ['<img src=x onerror="window.__pwned=1">', '[x](javascript:alert(1))', '<b>open', 'a &lt;b&gt; & c', "it's \"quoted\"", '[sig_0123456789abcdef', ']', '`code <i>`'];
    const text = `${answer}\n\nMore prose that goes on and on ${hostile.join(' then ')} and ends [sig_0123456789abcdef].\n\n- item one ${hostile.join(' ')}\n- item two`;
    // Chip numbers aside: a stream numbers markers in the order they arrived, which a fresh
    // render of a prefix cannot know (that is so on main too, and not what this is about).
    const shown = (blocks: { html: string }[]): string[] => blocks.map((block) => block.html.replace(/title="Citation \d+">\d+</g, 'title="Citation n">n<'));
    const streamed = new IncrementalMarkdown();
    for (let end = 1; end <= text.length; end += 1 + (end % 3)) {
      const now = streamed.update(text.slice(0, end), true);
      const fresh = new IncrementalMarkdown().update(text.slice(0, end), true);
      expect(shown([...now.frozen, ...now.tail])).toEqual(shown([...fresh.frozen, ...fresh.tail]));
    }
  }, 60_000);

  it('keeps the text already shown and appends to it', () => {
    const view = render(<Answer text="Quick commerce in Bengaluru is gro" streaming />);
    const text = view.container.querySelector('.md-tail p')!.firstChild as Text;
    view.rerender(<Answer text="Quick commerce in Bengaluru is growing fast" streaming />);
    expect(view.container.querySelector('.md-tail p')!.firstChild).toBe(text);
    expect(text.data).toBe('Quick commerce in Bengaluru is growing fast');
  });

  it('a tail holding a long run of spaces still grows text by text (the end of its HTML is found in one pass)', () => {
    // A hostile service can send tens of thousands of spaces; finding where the closing tags
    // begin by a regular expression backtracked over them at every delta (seconds each).
    const start = `a${' '.repeat(60_000)}b`;
    const streamed = new IncrementalMarkdown();
    streamed.update(start, true);
    let text = start;
    for (const delta of ['c', 'c', ' and more', ' text']) {
      text += delta;
      const now = streamed.update(text, true);
      const fresh = new IncrementalMarkdown().update(text, true);
      expect([...now.frozen, ...now.tail].map((block) => block.html)).toEqual([...fresh.frozen, ...fresh.tail].map((block) => block.html));
    }
  });
});

describe('a long list or table tail, sanitised again only in its changed items', () => {
  const hostile = ['<img src=x onerror="window.__pwned=1">', '[x](javascript:alert(1))', '<b>open', 'a &lt;b&gt; & c', '`code <i>`', '[sig_0123456789abcdef', ']'];
  const list = Array.from({ length: 14 }, (_, i) => `- item ${i} **bold** [sig_${String(i % 3).repeat(16)}] &amp; [a link](https://retail.example/${i})`).join('\n');
  const ordered = Array.from({ length: 6 }, (_, i) => `${i + 3}. step ${i} with \`code [sig_0000000000000009]\` and ~~old~~ [sig_aaaaaaaaaaaaaaaa]`).join('\n');
  const tasks = '- [ ] open task [sig_aaaaaaaaaaaaaaaa]\n- [x] done task &copy;\n- plain';
  const table = ['| Store [sig_dddddddddddddddd] | City | Opened |', '|:---|:---:|---:|', ...Array.from({ length: 12 }, (_, i) => `| Zudio ${i} [sig_${String(i % 4).repeat(16)}] | Pune &amp; Mumbai | 202${i % 10} |`)].join('\n');
  const answer = [list, ordered, tasks, table, `- last ${hostile.join(' ')}\n- then [sig_eeeeeeeeeeeeeeee] ${hostile.join(' and ')}`, 'Done.'].join('\n\n');
  const shown = (blocks: readonly { html: string }[]): string[] => blocks.map((block) => block.html.replace(/title="Citation \d+">\d+</g, 'title="Citation n">n<'));

  it('equals a fresh sanitise of the same text at every step, hostile items included', () => {
    const streamed = new IncrementalMarkdown();
    for (let end = 1; end <= answer.length; end += 1 + (end % 4)) {
      const now = streamed.update(answer.slice(0, end), true);
      const fresh = new IncrementalMarkdown().update(answer.slice(0, end), true);
      expect(shown([...now.frozen, ...now.tail])).toEqual(shown([...fresh.frozen, ...fresh.tail]));
    }
    const done = streamed.update(answer, false);
    const whole = new IncrementalMarkdown().update(answer, false);
    expect([...done.frozen, ...done.tail].map((block) => block.html)).toEqual([...whole.frozen, ...whole.tail].map((block) => block.html));
    const view = render(<Answer text={answer} streaming={false} />);
    expect(view.container.querySelector('img, script, input, [onerror], [onclick], a[href^="javascript"]')).toBeNull();
  }, 60_000);

  it('shows on the page what a fresh render shows, while a list streams', () => {
    const streamed = render(<Answer text="" streaming />);
    for (let end = 1; end <= list.length + 200; end += 9) {
      const text = `${list}\n\n${table}`.slice(0, end);
      streamed.rerender(<Answer text={text} streaming />);
      const fresh = render(<Answer text={text} streaming />);
      expect(streamed.container.innerHTML.replace(/title="Citation \d+">\d+</g, '')).toBe(fresh.container.innerHTML.replace(/title="Citation \d+">\d+</g, ''));
      fresh.unmount();
    }
  }, 60_000);

  it('replaces a changed item in place on the page: the items before it stay the very nodes the reader sees (issue 50, round 7)', () => {
    const host = document.createElement('div');
    const view = new BlockDom(host);
    const streamed = new IncrementalMarkdown();
    const text = `${list}\n\n${table}\n\n${tasks}`;
    let kept = 0;
    for (let end = 1; end <= text.length; end += 7) {
      const rows = [...host.querySelectorAll('li, tr')];
      const { frozen, tail } = streamed.update(text.slice(0, end), true);
      view.show(frozen, tail);
      const fresh = document.createElement('div');
      const again = new IncrementalMarkdown().update(text.slice(0, end), true);
      new BlockDom(fresh).show(again.frozen, again.tail);
      expect(host.innerHTML.replace(/title="Citation \d+">\d+</g, ''), JSON.stringify(text.slice(0, end))).toBe(fresh.innerHTML.replace(/title="Citation \d+">\d+</g, ''));
      // Every item but the last one shown before (the one the delta changed) is the node it was.
      const now = new Set(host.querySelectorAll('li, tr'));
      const before = tail[0]?.replaced ? rows.slice(0, -1) : [];
      for (const row of before) expect(now.has(row)).toBe(true);
      if (before.length > 0) kept += 1;
    }
    // Most of the list's and the table's updates that change more than text are replacements in place.
    expect(kept).toBeGreaterThan(40);
  }, 60_000);

  it.each([
    ['list', Array.from({ length: 80 }, (_, i) => `- Zudio opened store ${i} in Pune [sig_aaaaaaaaaaaaaaaa] &amp; more`).join('\n')],
    ['table', `| Store | City |\n|---|---|\n${Array.from({ length: 80 }, (_, i) => `| Zudio ${i} [sig_aaaaaaaaaaaaaaaa] | Pune &amp; more |`).join('\n')}`],
  ])('sanitises about one item per delta, not the whole %s, as it grows', (_kind, long) => {
    const streamed = new IncrementalMarkdown();
    const costs: number[] = [];
    for (let end = 1; end <= long.length; end += 12) {
      const before = streamed.sanitizedChars;
      streamed.update(long.slice(0, end), true);
      costs.push(streamed.sanitizedChars - before);
    }
    // The whole list is over 5,000 characters of HTML by its end; a delta sanitises an item or two.
    expect(Math.max(...costs.slice(-40))).toBeLessThan(600);
  }, 30_000);
});

describe('a long paragraph or heading tail, sanitised again only at its end (issue 31)', () => {
  const hostile = ['<img src=x onerror="window.__pwned=1">', '[x](javascript:alert(1))', '<b>open', 'a &lt;b&gt; & c', "it's \"quoted\"", '`code [sig_0000000000000009] <i>`', '[sig_0123456789abcdef', ']', '![an image](https://retail.example/i.png) after', 'esc\\_aped [sig\\_1111111111111111]'];
  const sentences = Array.from({ length: 24 }, (_, i) => `Zudio opened store ${i} in Pune [sig_${String(i % 5).repeat(16)}] &amp; **Trends ${i}** grew, see [the report](https://retail.example/${i} "t&amp;${i}") and \`code ${i}\`.`);
  const paragraph = sentences.join(' ');
  const short = sentences.slice(0, 6).join(' ');
  const answer = [`## Heading &amp; [sig_aaaaaaaaaaaaaaaa] ${'word '.repeat(40)}end`, short, `Hostile prose ${hostile.join(' then ')} and ends [sig_0123456789abcdef].`, short.replace(/Pune/g, 'Pune\nnext line'), 'Done.'].join('\n\n');
  const shown = (blocks: readonly { html: string }[]): string[] => blocks.map((block) => block.html.replace(/title="Citation \d+">\d+</g, 'title="Citation n">n<'));

  it('equals a fresh sanitise of the same text at every step, hostile text included', () => {
    const streamed = new IncrementalMarkdown();
    for (let end = 1; end <= answer.length; end += 1 + (end % 5)) {
      const now = streamed.update(answer.slice(0, end), true);
      const fresh = new IncrementalMarkdown().update(answer.slice(0, end), true);
      expect(shown([...now.frozen, ...now.tail])).toEqual(shown([...fresh.frozen, ...fresh.tail]));
    }
    // Numbers aside here too: while "`code [sig_…09] <i>" waits for its closing backtick, its marker is a chip and takes a number.
    const done = streamed.update(answer, false);
    const whole = new IncrementalMarkdown().update(answer, false);
    expect(shown([...done.frozen, ...done.tail])).toEqual(shown([...whole.frozen, ...whole.tail]));
  }, 60_000);

  it('a marker cut between two deltas, or between two of its runs, is still one chip', () => {
    const streamed = new IncrementalMarkdown();
    const start = `${'Quick commerce grew in Bengaluru and Pune. '.repeat(8)}See [sig_01234`;
    streamed.update(start, true);
    const now = streamed.update(`${start}56789abcdef] &amp; more`, true);
    const html = now.tail.at(-1)!.html;
    expect(html.match(/data-cite="sig_0123456789abcdef"/g)).toHaveLength(1);
    expect(html).not.toContain('[sig_');
  });

  it('hostile HTML split across two deltas never reaches the page', () => {
    const prose = 'Quick commerce grew in Bengaluru and Pune [sig_aaaaaaaaaaaaaaaa] &amp; more. '.repeat(6);
    for (const [first, second] of [
      ['<scr', 'ipt>window.__pwned=1</script> after'],
      ['<img src=x on', 'error="window.__pwned=1"> after'],
      ['<a href="javas', 'cript:alert(1)">x</a> after'],
      ['[x](javas', 'cript:alert(1)) after'],
      ['`code <scr', 'ipt>` &amp; <svg onload=alert(1)> after'],
    ]) {
      const streamed = render(<Answer text="" streaming />);
      streamed.rerender(<Answer text={`${prose}${first}`} streaming />);
      streamed.rerender(<Answer text={`${prose}${first}${second}`} streaming />);
      streamed.rerender(<Answer text={`${prose}${first}${second} [sig_bbbbbbbbbbbbbbbb] &amp; end`} streaming />);
      expect(streamed.container.querySelector('script, img, svg, [onerror], [onload], a[href^="javascript"]')).toBeNull();
      const fresh = render(<Answer text={`${prose}${first}${second} [sig_bbbbbbbbbbbbbbbb] &amp; end`} streaming />);
      expect(streamed.container.innerHTML).toBe(fresh.container.innerHTML);
      fresh.unmount();
      streamed.unmount();
    }
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('sanitises about the end of a growing paragraph per delta, not the whole paragraph', () => {
    const streamed = new IncrementalMarkdown();
    const costs: number[] = [];
    for (let end = 1; end <= paragraph.length; end += 12) {
      const before = streamed.sanitizedChars;
      streamed.update(paragraph.slice(0, end), true);
      costs.push(streamed.sanitizedChars - before);
    }
    // The paragraph is over 4,000 characters of HTML by its end; a delta sanitises its end only.
    expect(paragraph.length).toBeGreaterThan(3_000);
    expect(Math.max(...costs.slice(-60))).toBeLessThan(600);
  }, 30_000);
});

describe("answers' sanitiser", () => {
  it('is their own: a hook or config set on the shared DOMPurify instance does not change what answers keep', async () => {
    const { default: DOMPurify } = await import('dompurify');
    DOMPurify.setConfig({ ADD_ATTR: ['onclick'], ALLOWED_URI_REGEXP: /^javascript:/ });
    DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
      data.forceKeepAttr = true;
    });
    try {
      const view = render(<Answer text={'<b onclick="x()">bold</b> [link](javascript:alert(1)) [sig_0123456789abcdef]'} streaming={false} />);
      expect(view.container.querySelector('[onclick]')).toBeNull();
      expect(view.container.querySelector('a[href^="javascript"]')).toBeNull();
      expect(view.container.textContent).toContain('bold');
    } finally {
      DOMPurify.removeAllHooks();
      DOMPurify.clearConfig();
    }
  });
});
