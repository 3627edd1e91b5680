/**
 * Issue 31: the first answer of a session streamed its first frames through cold code. Traced
 * (bench/notes.md, "client latency, round 8"), one of its frames spent 9 ms creating the date
 * format of the display's zone (ICU loads the zone's data the first time: the citation list's
 * dates), and its first batches 10–15 ms each in marked's lexer and the block builder run for the
 * first time (every regular expression is compiled on its first use). Later answers take 1–3 ms
 * per batch for the same work. So once the answer view's code is loaded, at an idle moment, a
 * short made-up answer is streamed through the same pipeline into a detached element (nothing is
 * shown, laid out or kept) and a date is formatted in the user's zone.
 */
import { DEFAULT_DISPLAY } from '../../../../shared/format';
import { displayFor } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';
import { BlockDom } from './block-dom';
import { IncrementalMarkdown } from './markdown';

/** Covers what answers hold: headings, emphasis, citations, lists, a table, code, a link. */
const SAMPLE = [
  '## Summary',
  '',
  'Quick commerce grew **fast** in the quarter [sig_0000000000000000], with *new* dark stores and `orders` up 12%. See [the report](https://example.com/r).',
  '',
  '- First point, cited [sig_0000000000000001].',
  '- Second point with **bold** text.',
  '  1. A nested item',
  '',
  '| City | Stores | Change |',
  '|:---|---:|:---:|',
  '| Bengaluru | 120 | +8 |',
  '| Pune | 45 | −2 |',
  '',
  '> A quoted line.',
  '',
  'A closing paragraph.',
].join('\n');

/** The sample's blocks in the plainest markdown: a finished answer of them takes the direct path. */
export const PLAIN_SAMPLE = [
  '## Summary',
  '',
  'Quick commerce grew **fast** in the quarter [sig_0000000000000000], with new dark stores & orders up 12%.',
  '',
  '- **First point**, cited [sig_0000000000000001].',
  '- Second point.',
  '',
  '| City | Stores | Change |',
  '|:---|---:|:---:|',
  '| Bengaluru | **120** | +8 [sig_0000000000000000] |',
].join('\n');

/** Returns how many blocks the made-up answer came to (tests check the work was done). */
export function warmUpAnswerPipeline(): number {
  const markdown = new IncrementalMarkdown();
  const host = document.createElement('div');
  const view = new BlockDom(host);
  const step = Math.ceil(SAMPLE.length / 24);
  for (let end = step; end < SAMPLE.length; end += step) {
    const { frozen, tail } = markdown.update(SAMPLE.slice(0, end), true);
    view.show(frozen, tail);
  }
  const { frozen, tail } = markdown.update(SAMPLE, false);
  view.show(frozen, tail);
  // A finished answer in the plainest markdown (an appended or scrolled-to row) is built without
  // marked (decision 0030): its code is warmed too, with the sample's plain blocks.
  const plain = new IncrementalMarkdown().update(PLAIN_SAMPLE, false);
  new BlockDom(document.createElement('div')).show(plain.frozen, plain.tail);
  displayFor(useAppStore.getState().settings?.display ?? DEFAULT_DISPLAY).date(Date.now());
  return host.childElementCount;
}
