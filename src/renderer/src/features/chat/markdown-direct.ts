// The direct path: an answer's common markdown (paragraphs, headings, bullets, strong, tables, markers) built as elements without marked (split from markdown.ts).
import { CitationNumbering, withChips } from './citation-chips';

/**
 * A finished answer's markdown, lexed and built without marked when it is written in the plainest
 * markdown only (issue 31, round 9; decision 0030): blocks apart by blank lines, each one ATX
 * heading line, a paragraph of text lines, a tight `- ` list of one-line items, or a pipe table;
 * inside them text, `**strong**` and citation markers, nothing else. For that subset marked's
 * tokens are fixed by the rules below, and so is the tree DOMPurify keeps of marked's HTML (the
 * builder's elements and whitespace text nodes, decision 0021); tests compare the two over the
 * bench's answers and the markdown fixtures. Anything outside it, anywhere in the text (another
 * block, a character with a meaning in markdown or HTML, a strong run whose flanking the rules do
 * not settle), returns null and the whole text goes through marked as before.
 *
 * SECURITY: as with buildPlainMarkup, whatever the input, this makes only p, h1–h6, ul, li,
 * strong and a table's parts, with no attribute but a cell's `align` set to one of three fixed
 * strings, and text nodes, in an inert document; chips are added to the result by addChips as on
 * every other path. No link can be made here: `[`, `]`, `<`, `:` after a marker, `@`, `www.`
 * and `://` all send the text to marked.
 */
interface DirectBlock {
  /** The block's markdown, for its marked HTML if asked (RenderedBlock.rawHtml). */
  raw: string;
  /** The block's tree, its markers made chips as it is built (numbered in order, as addChips would). */
  build(doc: Document, numbering: CitationNumbering): DocumentFragment;
}

/** A citation marker that cannot be part of a link, an image or a definition (nothing follows it that could make one). */
const DIRECT_MARKER = /\[sig_[0-9a-f]{16}\](?![([:])/g;
/**
 * Once such markers are taken out: any character that means something to marked (besides `*`,
 * `#`, `-` and `|`, read by the rules) or to HTML, every whitespace but the space and the line
 * break, control characters, and what would make a GFM autolink.
 */
// (Without the `u` flag, issue 50, round 6: the same set, as every character in it is in the Basic
// Multilingual Plane and `\p{Cc}` is U+0000–U+001F and U+007F–U+009F, but Unicode mode made the
// scan over a whole answer two to three times slower. test/unit/markdown-direct.test.tsx holds both.)
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const DIRECT_REFUSED = /&(?! )|[\x00-\x09\x0b-\x1f\x7f-\x9f]|[<>\\`~_![\]@\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]|[^\S \n]|www\.|:\/\//i;
const DIRECT_HEADING = /^(#{1,6}) ([^#\s](?:[^#]*[^#\s])?)$/;
const DIRECT_ITEM = /^- (.+)$/;
/** How a paragraph's line, or an item's text, may start: nothing a block rule or a list marker reads. */
const DIRECT_LINE_START = /^(?:[\p{L}\p{N}("'₹%$]|\*\*[^\s*]|\[sig_)/u;
const DIRECT_ORDERED = /^\d{1,9}[.)](?:\s|$)/;
const DIRECT_DELIMITER = /^ *(:?)-{3,}(:?) *$/;
/** A marker cut short by the end of the text (a 4 KB cut): text to marked, as it has no `]`. */
const DIRECT_CUT_MARKER = /\[(?:s(?:i(?:g(?:_[0-9a-f]{0,16})?)?)?)?$/;
/** After a strong run's closing `**`: what makes it closing (right-flanking) and nothing else. */
const DIRECT_AFTER_STRONG = /^(?:$|[ \n.,;:)])/;

/** Text and strong runs of inline markdown in the subset, or null. */
function directInline(text: string): Array<string | { strong: string }> | null {
  const out: Array<string | { strong: string }> = [];
  let at = 0;
  for (let open = text.indexOf('*'); open >= 0; open = text.indexOf('*', at)) {
    // `**` after the start, a space or a line break, then a character that is no space or `*`: it opens, and cannot close.
    if (text[open + 1] !== '*' || (open > 0 && text[open - 1] !== ' ' && text[open - 1] !== '\n')) return null;
    const first = text[open + 2];
    if (first === undefined || first === ' ' || first === '\n' || first === '*') return null;
    const close = text.indexOf('*', open + 2);
    if (close < 0 || text[close + 1] !== '*') return null;
    const inner = text.slice(open + 2, close);
    if (inner.includes('\n') || inner.endsWith(' ') || !DIRECT_AFTER_STRONG.test(text.slice(close + 2, close + 3))) return null;
    if (open > at) out.push(text.slice(at, open));
    out.push({ strong: inner });
    at = close + 2;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

function appendInline(doc: Document, parent: Node, runs: ReadonlyArray<string | { strong: string }>, numbering: CitationNumbering): void {
  const appendText = (into: Node, text: string): void => {
    const pieces = text.includes('[sig_') ? withChips(doc, text, numbering) : null;
    if (pieces) for (const piece of pieces) into.appendChild(typeof piece === 'string' ? doc.createTextNode(piece) : piece);
    else into.appendChild(doc.createTextNode(text));
  };
  for (const run of runs) {
    if (typeof run === 'string') appendText(parent, run);
    else appendText(parent.appendChild(doc.createElement('strong')), run.strong);
  }
}

/** A pipe table's row: its cells' text, trimmed as marked trims them; null unless written `| a | b |`. */
function directCells(line: string): string[] | null {
  if (line.length < 2 || !line.startsWith('|') || !line.endsWith('|')) return null;
  return line.slice(1, -1).split('|').map((cell) => cell.trim());
}

export function directBlocks(text: string): DirectBlock[] | null {
  if (DIRECT_REFUSED.test(text.replace(DIRECT_MARKER, '').replace(DIRECT_CUT_MARKER, ''))) return null;
  const lines = text.split('\n');
  // The text's own last line may end in spaces (a cut): a paragraph keeps them there, a heading, item or row does not.
  const cutLine = lines.length - 1;
  const blocks: DirectBlock[] = [];
  let previousList = false;
  for (let i = 0; i < lines.length; ) {
    if (lines[i] === '') {
      i += 1;
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end] !== '') end += 1;
    const run = lines.slice(i, end);
    const raw = run.join('\n');
    // (No other line ends in a space: two would be a line break, and marked trims one in some places and not others.)
    if (run.some((line, k) => i + k !== cutLine && line.endsWith(' '))) return null;
    const paragraph = [...run];
    if (end - 1 === cutLine) run[run.length - 1] = run.at(-1)!.trimEnd();
    i = end;
    const first = run[0]!;
    const heading = DIRECT_HEADING.exec(first);
    if (first.startsWith('#')) {
      if (!heading || run.length !== 1) return null;
      const inline = directInline(heading[2]!);
      if (!inline) return null;
      const tag = `h${heading[1]!.length}`;
      blocks.push({ raw, build: (doc, numbering) => withNewline(doc, (el) => appendInline(doc, el, inline, numbering), tag) });
      previousList = false;
      continue;
    }
    if (first.startsWith('-')) {
      // Two lists apart by a blank line are one loose list to marked: not in the subset.
      if (previousList) return null;
      const items: Array<Array<string | { strong: string }>> = [];
      for (const line of run) {
        const item = DIRECT_ITEM.exec(line);
        const content = item?.[1];
        if (!content || !DIRECT_LINE_START.test(content) || DIRECT_ORDERED.test(content) || content.includes('|')) return null;
        const inline = directInline(content);
        if (!inline) return null;
        items.push(inline);
      }
      blocks.push({
        raw,
        build: (doc, numbering) =>
          withNewline(doc, (list) => {
            list.appendChild(doc.createTextNode('\n'));
            for (const item of items) {
              appendInline(doc, list.appendChild(doc.createElement('li')), item, numbering);
              list.appendChild(doc.createTextNode('\n'));
            }
          }, 'ul'),
      });
      previousList = true;
      continue;
    }
    previousList = false;
    if (first.startsWith('|')) {
      const header = directCells(first);
      const delimiter = run[1] === undefined ? null : directCells(run[1]);
      if (!header || !delimiter || delimiter.length !== header.length || run.length < 3) return null;
      const aligns: Array<string | null> = [];
      for (const cell of delimiter) {
        const match = DIRECT_DELIMITER.exec(cell);
        if (!match) return null;
        aligns.push(match[1] && match[2] ? 'center' : match[2] ? 'right' : match[1] ? 'left' : null);
      }
      const rows: Array<Array<Array<string | { strong: string }>>> = [];
      for (const line of [first, ...run.slice(2)]) {
        const cells = directCells(line);
        if (!cells || cells.length !== header.length) return null;
        const inline = cells.map(directInline);
        if (inline.some((cell) => cell === null)) return null;
        rows.push(inline as Array<Array<string | { strong: string }>>);
      }
      blocks.push({ raw, build: (doc, numbering) => withNewline(doc, (table) => buildTable(doc, table, rows, aligns, numbering), 'table') });
      continue;
    }
    for (const line of paragraph) if (!DIRECT_LINE_START.test(line) || DIRECT_ORDERED.test(line) || line.includes('|')) return null;
    const inline = directInline(raw);
    if (!inline) return null;
    blocks.push({ raw, build: (doc, numbering) => withNewline(doc, (el) => appendInline(doc, el, inline, numbering), 'p') });
  }
  return blocks;
}

/** `<tag>…</tag>\n` as parsed: the element, then a line break's text node. */
function withNewline(doc: Document, fill: (element: Element) => void, tag: string): DocumentFragment {
  const fragment = doc.createDocumentFragment();
  const element = fragment.appendChild(doc.createElement(tag));
  fill(element);
  fragment.appendChild(doc.createTextNode('\n'));
  return fragment;
}

/** marked's table (`<table>\n<thead>\n<tr>\n<th>…</th>\n</tr>\n</thead>\n<tbody><tr>\n…</tr>\n</tbody></table>`), as parsed. */
function buildTable(doc: Document, table: Element, rows: ReadonlyArray<ReadonlyArray<ReadonlyArray<string | { strong: string }>>>, aligns: ReadonlyArray<string | null>, numbering: CitationNumbering): void {
  const newline = (parent: Node): void => void parent.appendChild(doc.createTextNode('\n'));
  const row = (parent: Node, cells: ReadonlyArray<ReadonlyArray<string | { strong: string }>>, tag: string): void => {
    const tr = parent.appendChild(doc.createElement('tr'));
    newline(tr);
    cells.forEach((cell, i) => {
      const element = tr.appendChild(doc.createElement(tag));
      if (aligns[i]) element.setAttribute('align', aligns[i]!);
      appendInline(doc, element, cell, numbering);
      newline(tr);
    });
    newline(parent);
  };
  newline(table);
  const head = table.appendChild(doc.createElement('thead'));
  newline(head);
  row(head, rows[0]!, 'th');
  newline(table);
  const body = table.appendChild(doc.createElement('tbody'));
  for (const cells of rows.slice(1)) row(body, cells, 'td');
}
