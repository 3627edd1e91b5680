/** Helpers for tests that stream markdown in steps and compare what the renderer shows. */
import { MarkdownBlocks, useStreamingMarkdown } from '../../src/renderer/src/features/chat/StreamingMarkdown';

/** The answer as the app shows it: frozen blocks and the streaming tail. */
export function Answer({ text, streaming }: { text: string; streaming: boolean }) {
  const { frozen, tail } = useStreamingMarkdown(text, streaming);
  return <MarkdownBlocks frozen={frozen} tail={tail} />;
}

/** Chip numbers aside: a stream numbers markers in the order they arrived, which a fresh render of a prefix cannot know. */
export const unnumbered = (html: string): string => html.replace(/title="Citation \d+">\d+</g, 'title="Citation n">n<');

export const blocksOf = (result: { frozen: readonly { html: string; rawHtml: string }[]; tail: readonly { html: string; rawHtml: string }[] }) =>
  [...result.frozen, ...result.tail].map((block) => ({ html: unnumbered(block.html), rawHtml: unnumbered(block.rawHtml) }));

/** The text cut as the bench cuts it (three words a delta), or into pieces of `size` characters. */
export function deltasOf(text: string, size: number | 'words'): string[] {
  if (size === 'words') {
    const parts = text.match(/\S+\s*|\s+/g) ?? [];
    return Array.from({ length: Math.ceil(parts.length / 3) }, (_, i) => parts.slice(i * 3, i * 3 + 3).join(''));
  }
  return Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, i * size + size));
}
