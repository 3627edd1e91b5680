/** Plain-text helpers the feed's extraction shares with its readers, without loading the HTML parsers. */

/** Runs of whitespace as one space, trimmed. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
