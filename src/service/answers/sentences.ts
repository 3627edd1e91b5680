// Sentences of an answer (or a signal): markdown-aware splitting into pieces a verifier judges one by one.

export interface Piece {
  /** Offsets into the text, `end` exclusive; pieces cover the text without gaps. */
  start: number;
  end: number;
  /** Paragraph, list item, table row or heading this sentence belongs to. */
  block: number;
  kind: 'sentence' | 'heading' | 'table_row' | 'blank';
}

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'vs', 'rs', 'no', 'approx', 'est', 'mr', 'ms', 'dr', 'sept', 'inc', 'ltd', 'co', 'st', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']);
const BLOCK_START = /^(?:#{1,6}\s|\s*[-*+]\s|\s*\d+[.)]\s|\s*\||\s*>)/;

/**
 * Splits markdown into sentences. With `final` false the last sentence may still be growing
 * (a stream); it is then returned with `complete: false`, never judged.
 */
export function segment(text: string, final = true): Array<Piece & { complete: boolean }> {
  const pieces: Array<Piece & { complete: boolean }> = [];
  let block = 0;
  let previousLineKind: 'blank' | 'paragraph' | 'structural' = 'blank';
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineComplete = newline !== -1 || final;
    const lineEnd = newline === -1 ? text.length : newline + 1;
    const line = text.slice(lineStart, newline === -1 ? text.length : newline);
    if (line.trim() === '') {
      pieces.push({ start: lineStart, end: lineEnd, block, kind: 'blank', complete: lineComplete });
      if (lineComplete) previousLineKind = 'blank';
      lineStart = lineEnd;
      continue;
    }
    const structural = BLOCK_START.test(line);
    if (structural || previousLineKind !== 'paragraph') block += 1;
    previousLineKind = structural ? 'structural' : 'paragraph';
    if (/^#{1,6}\s/.test(line) || /^\s*\|/.test(line)) {
      pieces.push({ start: lineStart, end: lineEnd, block, kind: /^#/.test(line) ? 'heading' : 'table_row', complete: lineComplete });
      lineStart = lineEnd;
      continue;
    }
    // Sentences within the line: a terminator, closing emphasis, markers, then a space and more.
    const boundary = /[.!?](?:[*_)"'’”]*)((?:\s*\[[^\]\s]{1,80}\])*)(?:[*_)"'’”]*)[ \t]+(?=[^\s[])/g;
    let sentenceStart = lineStart;
    for (const match of line.matchAll(boundary)) {
      const at = lineStart + (match.index ?? 0);
      const before = text.slice(sentenceStart, at);
      const word = /([A-Za-z.]+)$/.exec(before)?.[1]?.toLowerCase() ?? '';
      if (ABBREVIATIONS.has(word) || /\d$/.test(before) && /^\.\d/.test(text.slice(at, at + 2))) continue;
      const end = at + match[0].length;
      pieces.push({ start: sentenceStart, end, block, kind: 'sentence', complete: true });
      sentenceStart = end;
    }
    pieces.push({ start: sentenceStart, end: lineEnd, block, kind: 'sentence', complete: lineComplete });
    lineStart = lineEnd;
  }
  return pieces;
}
