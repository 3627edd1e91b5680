/**
 * The answer pipeline's warm-up (issue 31): it streams its made-up answer through the real
 * markdown and block code, and leaves nothing in the page or the store.
 */
import { describe, expect, it } from 'vitest';
import { useAppStore } from '../../src/renderer/src/store/app-store';
import { PLAIN_SAMPLE, warmUpAnswerPipeline } from '../../src/renderer/src/features/chat/warm-up';
import { IncrementalMarkdown } from '../../src/renderer/src/features/chat/markdown';

describe('warmUpAnswerPipeline', () => {
  it('runs the pipeline without touching the page or the store', () => {
    document.body.innerHTML = '<main id="app"></main>';
    const before = useAppStore.getState();
    // Heading, paragraph, list, table, quote, closing paragraph: each its own block.
    expect(warmUpAnswerPipeline()).toBeGreaterThanOrEqual(6);
    expect(document.body.innerHTML).toBe('<main id="app"></main>');
    expect(useAppStore.getState()).toBe(before);
  });

  it("warms the direct path too: its plain sample is in the subset a finished answer is built from without marked", () => {
    const markdown = new IncrementalMarkdown();
    expect(markdown.update(PLAIN_SAMPLE, false).frozen).toHaveLength(4);
    expect(markdown.directAnswers).toBe(1);
  });
});
