/** A text delta's SSE frame is byte for byte the frame written from the event object. */
import { describe, expect, it } from 'vitest';
import { deltaFrame } from '../../src/service/routes/ask';

const fromObject = (text: string): string =>
  `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`;

describe('deltaFrame', () => {
  it.each([
    ['words', 'Zepto opened 12 '],
    ['quotes and a backslash', 'said "up 17.2%" \\ '],
    ['a line break and a table row', '\n| Pune | 12 |\n'],
    ['a citation marker', '[sig_00000000000000a1] '],
    ['₹ and Hindi', '₹9,892 crore — बिक्री '],
    ['a line separator and a lone surrogate', 'a\u2028b\ud800c'],
    ['nothing', ''],
  ])('matches for %s', (_what, text) => {
    expect(deltaFrame(text)).toBe(fromObject(text));
    // And the client reads the text back from it.
    const frame = deltaFrame(text);
    const data = frame.slice(frame.indexOf('data: ') + 6, -2);
    expect((JSON.parse(data) as { delta: { text: string } }).delta.text).toBe(text);
  });
});
