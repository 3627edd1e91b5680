/**
 * Markdown from the service, rendered safely and incrementally.
 *
 * SECURITY: the service's text is hostile until sanitised. marked turns it into HTML,
 * DOMPurify keeps only inert markup; links survive only as http(s)/mailto and open through
 * the bridge's allow-list, never by navigation.
 *
 * Citation chips are built as elements in the sanitised tree (never by editing HTML text), so
 * a marker inside an attribute or code stays text and the service cannot forge a chip.
 *
 * Speed (docs/decisions/conventions.md §6): finished blocks are frozen; while streaming only the unfinished tail is
 * lexed and rendered again, so the cost per delta stays flat as the answer grows.
 */
import DOMPurify from 'dompurify';
import { Lexer, Parser, type Token, type Tokens, type TokensList } from 'marked';
import { CITATION_MARKER } from '../../../../shared/cite-format';

export { CITATION_MARKER };

const SAFE_LINK = /^(?:https?:|mailto:)/i;

const PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'del', 'code', 'pre', 'blockquote',
    'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'span',
  ],
  ALLOWED_ATTR: ['href', 'title', 'align', 'start'],
  // A value DOMPurify cannot read as a URL is dropped unless its attribute is listed here: without
  // this a table column's alignment and an ordered list's first number ("3. …") were lost. The
  // hook below then keeps only the values marked writes (three alignments, a number).
  ADD_URI_SAFE_ATTR: ['align', 'start'],
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

/** The values kept of the two layout attributes, where they belong; any other use is removed. */
const CELL_ALIGN = /^(?:left|center|right)$/;
const LIST_START = /^\d{1,9}$/;

/** The same config, returning the tree itself, so chips can be added to it structurally. */
const PURIFY_FRAGMENT = { ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true } as const;

let purify: ReturnType<typeof DOMPurify> | null = null;
/**
 * Answers' own DOMPurify instance, configured once (DOMPurify otherwise re-parses its config on
 * every call). Its own, so that no other code's setConfig/clearConfig or hooks on the shared
 * default instance can change what answers are sanitised with.
 */
function configurePurifier(): ReturnType<typeof DOMPurify> {
  if (purify) return purify;
  purify = DOMPurify(window);
  // sanitize() returns a fragment.
  purify.setConfig(PURIFY_FRAGMENT);
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!SAFE_LINK.test(href)) node.removeAttribute('href');
      node.removeAttribute('target');
      node.setAttribute('rel', 'noopener noreferrer');
    }
    const align = node.getAttribute('align');
    if (align !== null && !((node.tagName === 'TH' || node.tagName === 'TD') && CELL_ALIGN.test(align))) node.removeAttribute('align');
    const start = node.getAttribute('start');
    if (start !== null && !(node.tagName === 'OL' && LIST_START.test(start))) node.removeAttribute('start');
  });
  return purify;
}

/**
 * Sanitises with the answers' instance, then lets go of what it removed: DOMPurify keeps the
 * last call's removed nodes in `removed` (a parsed <body> among them), which a soak saw as a
 * detached DOM tree held for the life of the page.
 */
function sanitize(html: string): DocumentFragment {
  const purifier = configurePurifier();
  const fragment = purifier.sanitize(html) as unknown as DocumentFragment;
  purifier.removed.length = 0;
  return fragment;
}

/** Tags the markup builder makes: a subset of PURIFY_CONFIG's, with no attribute but a cell's align. */
const BUILT_BLOCKS = new Set(['p', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table']);
const BUILT_INLINE = new Set(['strong', 'em', 'del', 'code']);
/**
 * A table's parts: each one's only parent, and what the parent may hold (besides whitespace).
 * Anything else the HTML parser moves (foster parenting) or wraps (an implied tbody): refused.
 */
const TABLE_PARENT = new Map([['thead', ['table']], ['tbody', ['table']], ['tr', ['thead', 'tbody']], ['th', ['tr']], ['td', ['tr']]]);
/** The elements that hold only a table's parts (and whitespace). */
const TABLE_HOLDERS = new Set(['table', 'thead', 'tbody', 'tr']);
/**
 * An opening or closing tag, with marked's one table attribute (a cell's `align`, one of three
 * values, kept as DOMPurify keeps it) or nothing, or text.
 */
const MARKUP_TOKEN = /<(\/?)([a-z][a-z0-9]*)(?: align="(left|center|right)")?>|([^<]+)/g;
/** marked's escapes in text, the only entities the builder reads. */
const MARKED_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
let builderDocument: Document | null = null;

/**
 * The tree DOMPurify returns for the plainest of marked's HTML, made without a new document
 * (issue 31, round 7): tags from a short list with no attribute but one (paragraphs, headings,
 * lists and their items, strong, em, del, code, br; since round 8 tables, their cells' `align`
 * kept from three fixed values as DOMPurify keeps it), properly nested as marked writes them and
 * never where the HTML parser would move or close them (no block inside a paragraph, heading,
 * cell or inline element, nothing but items directly in a list, nothing but a table's own parts
 * in it, each under its own parent), and text whose only entities are marked's five escapes.
 * DOMPurify keeps such markup exactly as parsed (every tag is allowed, the one attribute's three
 * values pass its hook, and text cannot carry markup), so the tree built here is the one it would return; tests
 * compare the two. Anything else (any other tag, any other attribute or entity, a carriage
 * return or NUL, which the parser rewrites) returns null and goes to DOMPurify. SECURITY:
 * whatever the input, this makes only those elements, with no attribute but a cell's `align`
 * set to one of three fixed strings, and text nodes, in an inert document: nothing here can carry
 * script or a URL.
 */
const BUILT_DEPTH_MAX = 64;

function buildPlainMarkup(html: string): DocumentFragment | null {
  if (html === '' || /^[\s]|[\0\r]/.test(html)) return null;
  builderDocument ??= document.implementation.createHTMLDocument('');
  const doc = builderDocument;
  const fragment = doc.createDocumentFragment();
  const open: Element[] = [];
  let at = 0;
  for (const match of html.matchAll(MARKUP_TOKEN)) {
    if (match.index !== at) return null;
    at += match[0].length;
    const parent: ParentNode = open.at(-1) ?? fragment;
    const parentTag = open.at(-1)?.localName;
    const text = match[4];
    if (text !== undefined) {
      let bad = false;
      const decoded = text.replace(/&[^;]*;?/g, (entity) => MARKED_ENTITIES[entity] ?? ((bad = true), ''));
      if (bad || ((parentTag === 'ul' || parentTag === 'ol') && decoded.trim() !== '')) return null;
      // In a table's holders the parser keeps only its own whitespace in place (it moves any other text out of the table).
      if (parentTag !== undefined && TABLE_HOLDERS.has(parentTag) && !/^[\t\n\f ]*$/.test(decoded)) return null;
      parent.appendChild(doc.createTextNode(decoded));
      continue;
    }
    const tag = match[2]!;
    if (match[1]) {
      if (parentTag !== tag || match[3] !== undefined) return null;
      open.pop();
      continue;
    }
    // The one attribute read, on a cell only.
    if (match[3] !== undefined && tag !== 'th' && tag !== 'td') return null;
    const block = BUILT_BLOCKS.has(tag);
    const tableParents = TABLE_PARENT.get(tag);
    if (!block && !tableParents && !BUILT_INLINE.has(tag) && tag !== 'br') return null;
    // Where the HTML parser would put it elsewhere or close something first: refused.
    if (parentTag !== undefined && (parentTag === 'ul' || parentTag === 'ol') !== (tag === 'li')) return null;
    if (tag === 'li' && parentTag === undefined) return null;
    if ((tableParents !== undefined) !== (parentTag !== undefined && TABLE_HOLDERS.has(parentTag))) return null;
    if (tableParents && !tableParents.includes(parentTag!)) return null;
    if (block && parentTag !== undefined && parentTag !== 'li' && parentTag !== 'ul' && parentTag !== 'ol') return null;
    // Chromium's parser stops nesting at depth 512; so deep a tree is left to it (and DOMPurify).
    if (open.length >= BUILT_DEPTH_MAX) return null;
    const element = doc.createElement(tag);
    if (match[3] !== undefined) element.setAttribute('align', match[3]);
    parent.appendChild(element);
    if (tag !== 'br') open.push(element);
  }
  return at === html.length && open.length === 0 ? fragment : null;
}

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
const DIRECT_REFUSED = /&(?! )|(?!\n)\p{Cc}|[<>\\`~_![\]@\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]|[^\S \n]|www\.|:\/\//iu;
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

function directBlocks(text: string): DirectBlock[] | null {
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

/** Numbers citations in order of first appearance; a signal keeps its number. */
export class CitationNumbering {
  private readonly numbers = new Map<string, number>();
  private copy: Map<string, number> | null = null;

  numberFor(id: string): number {
    let n = this.numbers.get(id);
    if (n === undefined) {
      n = this.numbers.size + 1;
      this.numbers.set(id, n);
      this.copy = null;
    }
    return n;
  }

  /** The numbers so far: the same Map object until a number is added (views compare it). */
  snapshot(): Map<string, number> {
    this.copy ??= new Map(this.numbers);
    return this.copy;
  }

  get(id: string): number | undefined {
    return this.numbers.get(id);
  }

  entries(): Array<[string, number]> {
    return [...this.numbers.entries()];
  }
}

/**
 * Renders markdown tokens to sanitised HTML, then turns citation markers into numbered chips.
 */
export function renderBlockHtml(tokens: Token[], numbering: CitationNumbering): string {
  return sanitizeHtmlWithChips(Parser.parse(tokens, { gfm: true, async: false }), numbering);
}

/** Elements whose text is shown as written: a marker there is text, never a chip. */
const LITERAL_TEXT = new Set(['CODE', 'PRE']);

/**
 * Sanitises HTML from the service (marked's output, or a report sent as text/html) and adds chips.
 *
 * SECURITY: chips are made structurally, never by editing HTML text. The sanitiser allows no
 * `button`, `class` or `data-*` at all, so the service cannot send a chip; then a walk over the
 * sanitised tree's text nodes (attributes are not text nodes; code and pre are skipped) replaces
 * each marker with a chip element the app builds, whose only attributes are its own.
 */
export function sanitizeHtmlWithChips(html: string, numbering: CitationNumbering): string {
  return serialize(sanitizeToFragment(html, numbering));
}

/** The same, as the sanitised tree itself (in DOMPurify's inert document). */
export function sanitizeToFragment(html: string, numbering: CitationNumbering): DocumentFragment {
  const fragment = sanitize(html);
  if (fragment.textContent?.includes('[sig_')) addChips(fragment, numbering);
  return fragment;
}

/**
 * Sanitises several blocks' HTML in ONE DOMPurify call (one inert document instead of one per
 * block), each block kept apart in a wrapper only this call can emit: its title holds a random
 * nonce the service cannot guess. Only marked's own output goes in, which is balanced: blocks
 * with raw HTML from the service are sanitised alone by the caller (an inline tag left open
 * would be reopened by the parser inside the next wrapper). The result is checked too: unless
 * its top level is exactly the wrappers, in order, each block is sanitised alone instead.
 * Without chips: the caller adds them block by block, in order.
 */
function sanitizeBlocksTogether(htmls: string[]): DocumentFragment[] {
  const nonce = `clarity-block-${crypto.getRandomValues(new Uint32Array(4)).join('-')}`;
  const fragment = sanitize(htmls.map((html, i) => `<blockquote title="${nonce}-${i}">${html}</blockquote>`).join(''));
  const wrappers = [...fragment.childNodes];
  const isolated = wrappers.length === htmls.length && wrappers.every((node, i) => node instanceof Element && node.tagName === 'BLOCKQUOTE' && node.getAttribute('title') === `${nonce}-${i}`);
  if (!isolated) return htmls.map((html) => sanitize(html));
  return wrappers.map((wrapper) => {
    const block = fragment.ownerDocument.createDocumentFragment();
    block.append(...wrapper.childNodes);
    return block;
  });
}

/** The fragment as HTML, without moving its nodes into a container first (cheaper). */
function serialize(fragment: ParentNode): string {
  let out = '';
  for (const node of fragment.childNodes) {
    if (node.nodeType === Node.ELEMENT_NODE) out += (node as Element).outerHTML;
    else if (node.nodeType === Node.TEXT_NODE) out += escapeText(node.nodeValue ?? '');
  }
  return out;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\u00a0/g, '&nbsp;');
}

function addChips(root: DocumentFragment, numbering: CitationNumbering): void {
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.nodeValue?.includes('[sig_')) continue;
    let literal = false;
    for (let parent = node.parentElement; parent; parent = parent.parentElement) if (LITERAL_TEXT.has(parent.tagName)) literal = true;
    if (!literal) found.push(node as Text);
  }
  for (const text of found) {
    const pieces = withChips(doc, text.nodeValue ?? '', numbering);
    if (pieces) text.replaceWith(...pieces);
  }
}

/**
 * Text with its markers as chips, in order (the marker's number from `numbering`), or null when it
 * has no marker. A chip is the app's own element: only its own attributes, its number as text.
 */
function withChips(doc: Document, value: string, numbering: CitationNumbering): Array<string | Node> | null {
  const pieces: Array<string | Node> = [];
  let last = 0;
  for (const match of value.matchAll(CITATION_MARKER)) {
    const id = match[1]!;
    if (match.index > last) pieces.push(value.slice(last, match.index));
    const n = numbering.numberFor(id);
    const chip = doc.createElement('button');
    chip.type = 'button';
    chip.className = 'cite-chip';
    chip.dataset.cite = id;
    chip.dataset.testid = 'citation-chip';
    chip.title = `Citation ${n}`;
    chip.textContent = String(n);
    pieces.push(chip);
    last = match.index + match[0].length;
  }
  if (last === 0) return null;
  if (last < value.length) pieces.push(value.slice(last));
  return pieces;
}

/**
 * One rendered block: its sanitised nodes, kept pristine (the view shows copies), and its HTML
 * only when asked (tests, exports): the view never serialises or re-parses it.
 */
export class RenderedBlock {
  private serialized: string | undefined;

  constructor(
    readonly key: number,
    /** The sanitised tree, in DOMPurify's inert document. Never attach it: copy it (`content()`). */
    readonly source: DocumentFragment,
    /**
     * marked's HTML before sanitising: the same string means the same block. A function for a
     * block built straight from the markdown (directBlocks): written only if asked (tests,
     * exports), as nothing in a finished answer's update reads it.
     */
    rawHtml: string | (() => string),
    /** A paragraph's or heading's sanitised runs (renderByRuns), for the next update to reuse. */
    readonly runs: readonly InlineRun[] = [],
    /**
     * Set when this block is `from` with `text` appended to one text node (the plain-text path):
     * the view appends the same text to its copy instead of comparing the trees. `from` shares
     * this block's tree, which has grown since: a superseded tail block is not to be read again.
     */
    readonly grown?: PlainAppend,
  ) {
    if (typeof rawHtml === 'string') this.raw = rawHtml;
    else this.writeRaw = rawHtml;
  }

  private raw: string | undefined;
  private writeRaw: (() => string) | undefined;

  get rawHtml(): string {
    this.raw ??= this.writeRaw!();
    this.writeRaw = undefined;
    return this.raw;
  }

  get html(): string {
    this.serialized ??= serialize(this.source);
    return this.serialized;
  }

  /** A copy of the sanitised nodes, owned by the live document. */
  content(): DocumentFragment {
    return document.importNode(this.source, true);
  }
}

const CLOSING_TAG = /^<\/[a-z][a-z0-9]*>$/;
const SPACE = /\s/;

/**
 * Where the closing tags and whitespace at the end of a block's HTML begin: what follows its
 * last text. A scan back from the end, linear in what it passes: a regular expression for the
 * same thing backtracked quadratically over a long run of spaces (30,000 spaces cost over a
 * second per delta).
 */
function closersStart(html: string): number {
  let end = html.length;
  for (;;) {
    let i = end;
    while (i > 0 && SPACE.test(html[i - 1]!)) i -= 1;
    if (html[i - 1] !== '>') return i;
    const open = html.lastIndexOf('</', i - 1);
    if (open < 0 || !CLOSING_TAG.test(html.slice(open, i))) return i;
    end = open;
  }
}
/** Text that is text wherever it lands: no markup, entity, carriage return, NUL or marker bracket. */
const PLAIN_TEXT = /^[^<>&[\]\r\0]+$/;

/**
 * The usual delta: the tail block grew by plain text at the end of its last text. Then what
 * DOMPurify would make of the new HTML is the previous sanitised tree with that text appended,
 * so it is copied and appended to instead of building a document and walking it again (issue
 * 18). Anything else (a tag, an entity, a marker bracket, text elsewhere) returns null and is
 * sanitised. The new HTML must equal the old with the text inserted before the closing tags,
 * and the tree's last elements must be those the closing tags close, in order.
 */
function grownByText(previous: RenderedBlock, html: string): DocumentFragment | null {
  const old = previous.rawHtml;
  const end = closersStart(old);
  const before = old.slice(0, end);
  const closers = old.slice(end);
  if (html.length <= old.length || !html.startsWith(before) || !html.endsWith(closers)) return null;
  const added = html.slice(end, html.length - closers.length);
  // The text the addition continues, as written in the HTML (entities would need decoding: none).
  const lastText = before.slice(before.lastIndexOf('>') + 1);
  if (!PLAIN_TEXT.test(added) || lastText === '' || lastText.includes('&')) return null;
  const copy = previous.source.cloneNode(true) as DocumentFragment;
  let node: ParentNode = copy;
  for (const [, tag] of [...closers.matchAll(/<\/([a-z][a-z0-9]*)>/g)].reverse()) {
    let child = node.lastChild;
    while (child instanceof Text && child.data.trim() === '') child = child.previousSibling;
    if (!(child instanceof Element) || child.tagName !== tag!.toUpperCase()) return null;
    node = child;
  }
  const text = node.lastChild;
  if (!(text instanceof Text) || !text.data.endsWith(lastText)) return null;
  text.appendData(added);
  return copy;
}

/** What the plain-text path appended to a block: the view does the same to its copy. */
export interface PlainAppend {
  readonly from: RenderedBlock;
  /** Child indexes from the block's root to the text node that grew. */
  readonly path: readonly number[];
  /** That text node's length before the append. */
  readonly length: number;
  readonly text: string;
}

/**
 * A delta that may take the plain-text path: letters, digits, spaces and punctuation markdown
 * and HTML give no meaning to. Left out: emphasis and strikethrough (`*_~`), code, links, images
 * and markers (`` ` ``, `[]!`), HTML and entities (`<>&`), headings (`#`), escapes (`\`), GFM
 * autolinks' `:` and `@`, every line break and every whitespace but the space (list items trim
 * theirs), control characters. `(`, `)` and `;` only mean something after a `](` or an `&` on the
 * same line, which lineStaysText rules out; `|` only with a table's delimiter row, a line later.
 */
const PLAIN_DELTA = /^(?:[^*_~`[\]!<>&#\\:@\s\p{Cc}]| )*$/u;
/** A line's first word that fixes it as text: it starts with a letter or digit and is no ordered-list marker. */
const TEXT_WORD = /^[\p{L}\p{N}][^ ]* /u;
const ORDERED_MARKER = /^\d+[.)] /;
/** A top-level list item's line: its marker, then 1–4 spaces (5 would start indented code), then its content. */
const LIST_LINE = /^(?:[-+*]|\d{1,9}[.)]) {1,4}(?! )(?:\*\*)?/;
/** What would make a GFM autolink of the line's text (`www.`, `http://`, an e-mail address). */
const AUTOLINK_START = /www\.|:\/\/|@/i;
/** What a `)` could close (a link's destination) or a `;` could end (an entity) on the same line. */
const OPEN_ON_LINE = /\]\(|&/;

/** marked's escaping of text: of the characters PLAIN_DELTA allows, only quotes. */
function escapeQuotes(text: string): string {
  return text.replace(/["']/g, (quote) => (quote === '"' ? '&quot;' : '&#39;'));
}

/**
 * The tail block's shape when later plain text can be appended to it without lexing it again:
 * a paragraph (its text shown with trailing spaces) or a tight list (its last item's text shown
 * trimmed), whose HTML ends in that text, the text node at `path` in its sanitised tree.
 */
interface PlainTail {
  block: RenderedBlock;
  path: number[];
  text: Text;
  closers: string;
  /** List items trim trailing spaces: those not shown yet, shown once text follows them. */
  trims: boolean;
  pendingSpaces: string;
}

/** Whether a line, once grown, still means what it meant: text, or a list item holding text. */
function lineStaysText(line: string, list: boolean): boolean {
  if (AUTOLINK_START.test(line) || OPEN_ON_LINE.test(line)) return false;
  let content = line;
  if (list) {
    const marker = LIST_LINE.exec(line);
    if (!marker) return false;
    content = line.slice(marker[0].length);
  }
  return TEXT_WORD.test(content) && !ORDERED_MARKER.test(content);
}

/** The shape above for a tail token and its block, or null. */
function plainTailOf(token: Token, block: RenderedBlock, text: string): PlainTail | null {
  let closers: string;
  let container: string;
  if (token.type === 'paragraph') {
    closers = '</p>\n';
    container = 'P';
  } else if (token.type === 'list' && !(token as Tokens.List).loose && !(token as Tokens.List).items.at(-1)!.raw.trimEnd().includes('\n')) {
    // (The last item is one line: the text's last line is where it starts, not a lazy continuation.)
    closers = (token as Tokens.List).ordered ? '</li>\n</ol>\n' : '</li>\n</ul>\n';
    container = (token as Tokens.List).ordered ? 'OL' : 'UL';
  } else return null;
  const html = block.rawHtml;
  if (!html.endsWith(closers) || html.length <= closers.length || html[html.length - closers.length - 1] === '>' || hasRawHtml(token)) return null;
  // The text's last character is plain too: no delimiter or escape whose meaning the next character would decide.
  const last = text[text.length - 1] ?? '';
  if (!PLAIN_DELTA.test(last)) return null;
  const trims = token.type === 'list';
  // (A scan back, not /( *)$/: that regular expression tries every position of the whole answer.)
  let spaces = text.length;
  while (trims && text[spaces - 1] === ' ') spaces -= 1;
  const pendingSpaces = text.slice(spaces);
  // The text node the HTML ends in, found by structure: the container, (the last item,) its last child.
  const path: number[] = [];
  const top = block.source.childNodes;
  let index = -1;
  for (let i = 0; i < top.length; i += 1) {
    const node = top[i]!;
    if (node instanceof Element && index < 0) index = i;
    else if (!(node instanceof Text && node.data.trim() === '')) return null;
  }
  if (index < 0) return null;
  let parent = top[index] as Element;
  if (parent.tagName !== container) return null;
  path.push(index);
  if (trims) {
    const item = parent.lastElementChild;
    if (!item || item.tagName !== 'LI' || item.nextSibling?.nextSibling || (item.nextSibling && !(item.nextSibling instanceof Text && item.nextSibling.data.trim() === ''))) return null;
    path.push(parent.childNodes.length - (item.nextSibling ? 2 : 1));
    parent = item;
  }
  const textNode = parent.lastChild;
  if (!(textNode instanceof Text) || textNode.data === '' || textNode.data.trim() === '' && trims) return null;
  path.push(parent.childNodes.length - 1);
  return { block, path, text: textNode, closers, trims, pendingSpaces };
}

/**
 * marked's HTML for a list item token. A token is never changed once lexed (the lexer's task-item
 * rewrite happens before it returns), and its HTML depends on nothing else: links are resolved
 * when lexing, and an item's looseness is set on it by then.
 */
const itemHtmlCache = new WeakMap<Tokens.ListItem, string>();

/** Blocks of bare tags and line breaks only (no text, no attribute), sanitised once (sanitizeOne). */
const BARE_TAGS = /^(?:<\/?[a-z][a-z0-9]*>|\n)+$/;
const BARE_MAX = 64;
const bareBlocks = new Map<string, DocumentFragment>();

/** Sanitised list items and table rows (each in its wrapper), by their HTML. */
type Pieces = Map<string, DocumentFragment>;

/**
 * marked's HTML for a list or table, in parts: the container's opening and closing HTML, each
 * item's (list item or table row) as marked renders it, and the wrapper each item is sanitised in.
 */
function itemHtmls(token: Token): { open: string; items: string[]; close: string; wrap(item: string): string } | null {
  const renderer = new Parser({ gfm: true, async: false }).renderer;
  if (token.type === 'list') {
    const list = token as Tokens.List;
    const tag = list.ordered ? 'ol' : 'ul';
    const start = list.ordered && list.start !== 1 ? ` start="${list.start}"` : '';
    // An item is parsed alike in any list: it is sanitised in a bare <ul>. Items kept from the
    // last update (lexLastItem) are the same token objects: their HTML is not rendered again.
    const items = list.items.map((item) => {
      let html = itemHtmlCache.get(item);
      if (html === undefined) {
        html = renderer.listitem(item);
        itemHtmlCache.set(item, html);
      }
      return html;
    });
    return { open: `<${tag}${start}>\n`, items, close: `</${tag}>\n`, wrap: (item) => `<ul>${item}</ul>` };
  }
  if (token.type === 'table') {
    const table = token as Tokens.Table;
    const row = (cells: Tokens.TableCell[]): string => renderer.tablerow({ text: cells.map((cell) => renderer.tablecell(cell)).join('') });
    return { open: `<table>\n<thead>\n${row(table.header)}</thead>\n<tbody>`, items: table.rows.map(row), close: '</tbody></table>\n', wrap: (item) => `<table><tbody>${item}</tbody></table>` };
  }
  return null;
}

/** The sanitised container of items (`ul`/`ol`, or a table's `tbody`) in a fragment that must hold exactly it. */
function containerOf(fragment: DocumentFragment, list: boolean): Element | null {
  const top = [...fragment.childNodes].filter((node) => !(node instanceof Text && node.data.trim() === ''));
  if (top.length !== 1 || !(top[0] instanceof Element)) return null;
  const element = top[0];
  if (list) return element.tagName === 'UL' || element.tagName === 'OL' ? element : null;
  if (element.tagName !== 'TABLE') return null;
  const bodies = [...element.children].filter((child) => child.tagName === 'TBODY');
  return bodies.length === 1 ? bodies[0]! : null;
}

/**
 * A long list or table tail, changed by more than plain text (a citation marker, a new row, an
 * entity): only its changed items are sanitised again (issue 31). Each item (list item, table
 * row) is marked's own balanced HTML, sanitised alone inside its own list or table, and the list
 * or table itself is sanitised from its HTML without the items; the sanitised items are then
 * copied into it. Items whose HTML is unchanged since the last update are copies of their
 * sanitised tree from then (`pieces`, keyed by their HTML). Only for tokens with no raw HTML
 * from the service (an unclosed tag there could reach across items); anything unexpected in a
 * sanitised piece's shape (not exactly the container with its items) returns null, and the
 * whole block is sanitised as before.
 */
function renderByItems(token: Token, html: string, sanitizeMany: (htmls: string[]) => DocumentFragment[], previous: Pieces, next: Pieces, listParts?: ReturnType<typeof itemHtmls>): DocumentFragment | null {
  const parts = listParts ?? itemHtmls(token);
  // The parts must make exactly marked's HTML for the whole block.
  if (!parts || parts.items.length < 2 || parts.open + parts.items.join('') + parts.close !== html) return null;
  const list = token.type === 'list';
  // The pieces not sanitised yet (a new item, and the one that was last, which changed with it;
  // a new table's container and rows), in ONE DOMPurify call (round 7): a new inert document
  // per piece was most of a new item's cost. In order, so citation numbers still follow first appearance.
  const missing = [...new Set([parts.open + parts.close, ...parts.items.map(parts.wrap)])].filter((piece) => !next.has(piece) && !previous.has(piece));
  if (missing.length > 0) sanitizeMany(missing).forEach((fragment, i) => next.set(missing[i]!, fragment));
  const sanitized = (pieceHtml: string): DocumentFragment => {
    const fragment = next.get(pieceHtml) ?? previous.get(pieceHtml)!;
    next.set(pieceHtml, fragment);
    return fragment;
  };
  const block = sanitized(parts.open + parts.close).cloneNode(true) as DocumentFragment;
  const into = containerOf(block, list);
  // The empty container: a list holds only its first line break, a tbody nothing.
  if (!into || into.childNodes.length !== (list ? 1 : 0)) return null;
  for (const item of parts.items) {
    const container = containerOf(sanitized(parts.wrap(item)), list);
    // The item alone: exactly one LI or TR, then only whitespace.
    const kids = container ? [...container.childNodes] : [];
    const [element, ...after] = kids;
    if (!(element instanceof Element) || element.tagName !== (list ? 'LI' : 'TR') || after.some((kid) => !(kid instanceof Text) || kid.data.trim() !== '')) return null;
    for (const kid of kids) into.appendChild(kid.cloneNode(true));
  }
  return block;
}

/** A run of a paragraph's or heading's inline HTML and its sanitised nodes (without chips). */
interface InlineRun {
  html: string;
  nodes: DocumentFragment;
}

/** Inline tokens DOMPurify keeps whole (an image is removed, raw HTML may reach across runs). */
const KEPT_INLINE = new Set(['text', 'escape', 'strong', 'em', 'codespan', 'del', 'link', 'br']);
function onlyKeptInline(tokens: readonly Token[]): boolean {
  return tokens.every((token) => KEPT_INLINE.has(token.type) && onlyKeptInline((token as { tokens?: Token[] }).tokens ?? []));
}

/** The sanitised empty containers (`<p></p>`, `<h2></h2>`…): the same few strings, sanitised once. */
const emptyContainers = new Map<string, DocumentFragment>();

/** How much of a paragraph's end is sanitised again at least (the live run): a few deltas' worth. */
const LIVE_RUN = 120;

/**
 * A paragraph or heading tail changed by more than plain text at its end (it gained a citation
 * marker, an entity, a code span…): only the end is sanitised again (issue 31). The inline HTML
 * is cut into runs, only where a cut cannot change what the HTML means: between marked's inline
 * tokens (each balanced), or inside a text token's HTML just after a space (never inside an
 * entity or a tag). Runs whose HTML is unchanged since the last update are copies of their
 * sanitised nodes from then; the rest is sanitised as a stable run and a live run (the last
 * `LIVE_RUN` characters or so, still growing). Each run is sanitised with the same DOMPurify call
 * and configuration inside its own `<p>`; the runs' nodes are joined into the sanitised empty
 * container, text meeting text at a cut joined into one text node, as parsing the whole would;
 * then chips are added over the whole block, so a marker cut between runs still becomes one
 * chip. Only for tokens with no raw HTML and no image (whose removal leaves text nodes apart);
 * anything unexpected returns null, and the whole block is sanitised as before.
 */
function renderByRuns(token: Token, html: string, previous: readonly InlineRun[], sanitizeBare: (html: string) => DocumentFragment): { nodes: DocumentFragment; runs: InlineRun[] } | null {
  if (token.type !== 'paragraph' && token.type !== 'heading') return null;
  const inline = (token as Tokens.Paragraph | Tokens.Heading).tokens;
  if (!onlyKeptInline(inline)) return null;
  const tag = token.type === 'heading' ? `h${(token as Tokens.Heading).depth}` : 'p';
  const parser = new Parser({ gfm: true, async: false });
  const pieces = inline.map((piece) => parser.parseInline([piece]));
  const inner = pieces.join('');
  if (`<${tag}>${inner}</${tag}>\n` !== html) return null;
  // Where the inline HTML may be cut: between tokens, or after a space in a text token's HTML.
  const cuts = new Set<number>([0]);
  let at = 0;
  pieces.forEach((piece, i) => {
    if (inline[i]!.type === 'text' && !/[<>]/.test(piece)) for (let k = piece.indexOf(' '); k >= 0; k = piece.indexOf(' ', k + 1)) cuts.add(at + k + 1);
    at += piece.length;
    cuts.add(at);
  });
  const runs: InlineRun[] = [];
  let offset = 0;
  for (const run of previous) {
    if (!inner.startsWith(run.html, offset) || !cuts.has(offset + run.html.length)) break;
    runs.push(run);
    offset += run.html.length;
  }
  const sanitizeRun = (runHtml: string): InlineRun | null => {
    const fragment = sanitizeBare(`<p>${runHtml}</p>`);
    const only = fragment.firstChild;
    if (fragment.childNodes.length !== 1 || !(only instanceof Element) || only.tagName !== 'P') return null;
    const nodes = fragment.ownerDocument.createDocumentFragment();
    nodes.append(...only.childNodes);
    return { html: runHtml, nodes };
  };
  if (offset < inner.length) {
    // The live run: from the last cut at least LIVE_RUN characters before the end.
    let live = offset;
    for (const cut of cuts) if (cut > live && cut <= inner.length - LIVE_RUN) live = cut;
    for (const [from, to] of [[offset, live], [live, inner.length]] as const) {
      if (to <= from) continue;
      const run = sanitizeRun(inner.slice(from, to));
      if (!run) return null;
      runs.push(run);
    }
  }
  const containerHtml = `<${tag}></${tag}>\n`;
  let empty = emptyContainers.get(containerHtml);
  if (!empty) {
    empty = sanitizeBare(containerHtml);
    emptyContainers.set(containerHtml, empty);
  }
  const nodes = empty.cloneNode(true) as DocumentFragment;
  const into = nodes.firstChild;
  if (!(into instanceof Element) || into.tagName !== tag.toUpperCase() || into.childNodes.length !== 0) return null;
  for (const run of runs) {
    const copy = run.nodes.cloneNode(true) as DocumentFragment;
    const first = copy.firstChild;
    const last = into.lastChild;
    if (first instanceof Text && last instanceof Text) {
      last.appendData(first.data);
      first.remove();
    }
    into.append(copy);
  }
  return { nodes, runs };
}

/** True when a token, or any inside it, is raw HTML written by the service. */
function hasRawHtml(token: Token): boolean {
  if (token.type === 'html') return true;
  const inner = token as { tokens?: Token[]; items?: Token[]; header?: Array<{ tokens: Token[] }>; rows?: Array<Array<{ tokens: Token[] }>> };
  if (inner.tokens?.some(hasRawHtml) || inner.items?.some(hasRawHtml)) return true;
  if (inner.header?.some((cell) => cell.tokens.some(hasRawHtml))) return true;
  return inner.rows?.some((row) => row.some((cell) => cell.tokens.some(hasRawHtml))) ?? false;
}

/**
 * Incremental renderer for one answer. `update(text)` returns the frozen blocks (never
 * re-rendered) and the live tail; call `finish()` when the stream ends.
 */
export class IncrementalMarkdown {
  readonly numbering = new CitationNumbering();
  /** Only ever appended to; replaced, never emptied, on a reset (React compares its identity). */
  private frozen: RenderedBlock[] = [];
  private frozenLength = 0;
  private tail: RenderedBlock[] = [];
  private lastText = '';
  /**
   * The sanitised items of the last list or table sanitised by items (renderByItems), by their
   * HTML. A hit is exactly what sanitising again would give: the same HTML, and a citation keeps
   * its number for the life of the answer.
   */
  private pieces: Pieces = new Map();
  /** Work counter: characters lexed so far (the benchmark and tests read it). */
  lexedChars = 0;
  /** Work counter: characters of HTML sanitised so far (tests read it). */
  sanitizedChars = 0;
  /** Work counter: DOMPurify calls so far, each a new inert document (the benchmark reads it). */
  sanitizeCalls = 0;
  /** Work counter: pieces of marked's plainest HTML built without DOMPurify (buildPlainMarkup). */
  builtPieces = 0;
  /** Work counter: updates that took the plain-text path (no lexing, no sanitising). */
  plainAppends = 0;
  /** The tail's shape, when plain text can be appended to it (plainTailOf). */
  private plain: PlainTail | null = null;
  /** The tail, when it is a tight list whose last item the next update may lex alone (lexLastItem). */
  private lastList: Tokens.List | null = null;

  /** Work counter: finished answers built straight from their markdown (directBlocks), without marked. */
  directAnswers = 0;

  /**
   * `plainText: false` turns the plain-text path off, `lastItem: false` the list's lexing from its last item, `builder: false` the markup builder
   * and the direct path, `direct: false` the direct path alone (tests compare; benchmarks A/B them).
   */
  constructor(private readonly options: { plainText?: boolean; lastItem?: boolean; builder?: boolean; direct?: boolean } = {}) {}

  update(text: string, streaming: boolean): { frozen: readonly RenderedBlock[]; tail: readonly RenderedBlock[] } {
    if (streaming && this.plain && this.appendPlain(text)) return { frozen: this.frozen, tail: this.tail };
    this.plain = null;
    if (!text.startsWith(this.lastText.slice(0, this.frozenLength))) this.reset();
    if (!streaming && this.frozenLength === 0 && this.tail.length === 0 && this.directUpdate(text)) return { frozen: this.frozen, tail: this.tail };
    this.lastText = text;
    const rest = text.slice(this.frozenLength);
    const tokens = (streaming && this.lastList && this.lexLastItem(rest)) || this.lex(rest);
    const links = tokens.links;
    // A tight list tail, for the next update to lex from its last item (lexLastItem).
    const last = tokens.at(-1);
    this.lastList = streaming && this.options.lastItem !== false && last?.type === 'list' && !(last as Tokens.List).loose && (last as Tokens.List).items.length >= 2 && Object.keys(links).length === 0 ? (last as Tokens.List) : null;
    // While streaming, the last block may still change; everything before it is final.
    const finalCount = streaming ? Math.max(0, tokens.length - 1) : tokens.length;
    const finals: Token[] = [];
    for (let i = 0; i < finalCount; i += 1) {
      this.frozenLength += tokens[i]!.raw.length;
      if (tokens[i]!.type !== 'space') finals.push(tokens[i]!);
    }
    const previousTail = this.tail;
    const pieces: Pieces = new Map();
    this.frozen.push(...this.renderBlocks(finals, links, this.frozen.length, previousTail, pieces));
    const live = tokens.slice(finalCount).filter((token) => token.type !== 'space');
    this.tail = this.renderBlocks(live, links, this.frozen.length, previousTail, pieces);
    // Kept while the tail only grows by text (no pieces used): its items are still those pieces.
    if (pieces.size > 0) this.pieces = pieces;
    if (streaming && this.options.plainText !== false && live.length === 1 && this.tail.length === 1) this.plain = plainTailOf(live[0]!, this.tail[0]!, text);
    return { frozen: this.frozen, tail: this.tail };
  }

  /**
   * A finished answer shown whole (an appended or scrolled-to row; issue 31, round 9): built
   * straight from its markdown when it is in the plainest subset (directBlocks), as frozen blocks
   * with chips numbered in order, as renderBlocks would. False, touching nothing, otherwise.
   */
  private directUpdate(text: string): boolean {
    if (this.options.direct === false || this.options.builder === false) return false;
    const direct = directBlocks(text);
    if (!direct) return false;
    builderDocument ??= document.implementation.createHTMLDocument('');
    const doc = builderDocument;
    const first = this.frozen.length;
    direct.forEach((block, i) => {
      const fragment = block.build(doc, this.numbering);
      // The closure keeps the block's text only, not the parsed block (its build, items, rows).
      const raw = block.raw;
      this.frozen.push(new RenderedBlock(first + i, fragment, () => Parser.parse(new Lexer({ gfm: true }).lex(raw), { gfm: true, async: false })));
    });
    this.directAnswers += 1;
    this.lastText = text;
    this.frozenLength = text.length;
    this.tail = [];
    this.lastList = null;
    this.plain = null;
    return true;
  }

  private lex(markdown: string): TokensList {
    this.lexedChars += markdown.length;
    return new Lexer({ gfm: true }).lex(markdown);
  }

  /**
   * The tail is a tight list (issue 31, round 7): only its last item and what follows it are lexed
   * again, and the items before it are the last update's tokens. marked ends an item, and starts
   * the next, from the item's own lines and the list's bullet alone, and lexes each item's text
   * apart; what joins them is only the list's looseness (tight before, so the list is tight iff
   * the re-lexed part is) and the reference definitions (none in either, or this does not apply).
   * So the list is the kept items plus those lexed from the last item's start, when that part
   * lexes as a tight list with the same kind of bullet. Null, touching nothing, otherwise.
   */
  private lexLastItem(rest: string): TokensList | null {
    const list = this.lastList!;
    const kept = list.items.slice(0, -1);
    let keptLength = 0;
    for (const item of kept) keptLength += item.raw.length;
    // (A carriage return is made a line break by the lexer: raw lengths would not be the text's.)
    if (rest.length < keptLength || rest.indexOf('\r') >= 0 || !rest.startsWith(list.raw.slice(0, keptLength))) return null;
    const suffix = rest.slice(keptLength);
    this.lexedChars += suffix.length;
    const tokens = new Lexer({ gfm: true }).lex(suffix);
    const first = tokens[0];
    if (first?.type !== 'list' || Object.keys(tokens.links).length > 0) return null;
    const relexed = first as Tokens.List;
    if (relexed.loose || relexed.ordered !== list.ordered || bulletOf(relexed.items[0]!.raw) !== bulletOf(list.items[0]!.raw)) return null;
    tokens[0] = { ...relexed, start: list.start, items: [...kept, ...relexed.items], raw: rest.slice(0, keptLength) + relexed.raw } as Tokens.List;
    return tokens;
  }

  /**
   * The usual delta, without lexing, rendering or sanitising anything (issue 31): plain text
   * (PLAIN_DELTA) added to a paragraph or tight list tail whose last line stays what it was (a
   * line of text, or a list item of text: lineStaysText). Then marked's HTML for the new text is
   * the old with that text (quotes escaped) before the closing tags, and DOMPurify's tree is the
   * old one with the text appended to its last text node, which is what is done: in place (no
   * copy), the new block sharing the tree. False, touching nothing, when it does not apply.
   */
  private appendPlain(text: string): boolean {
    const plain = this.plain!;
    if (text.length <= this.lastText.length || !text.startsWith(this.lastText)) return false;
    const delta = text.slice(this.lastText.length);
    if (!PLAIN_DELTA.test(delta)) return false;
    const lineStart = text.lastIndexOf('\n') + 1;
    if (lineStart < this.frozenLength || !lineStaysText(text.slice(lineStart), plain.trims)) return false;
    // A link's title may span lines (`[a](url "title` … `more")`): a `)` could close one begun on an earlier line;
    // so may a reference definition's (`[1]: url "title` … `more"`), closed by a quote or a `)`.
    if (delta.includes(')') && text.indexOf('](', this.frozenLength) >= 0) return false;
    if (/["')]/.test(delta) && text.indexOf(']:', this.frozenLength) >= 0) return false;
    let shown = plain.pendingSpaces + delta;
    let pendingSpaces = '';
    if (plain.trims) {
      const end = shown.trimEnd().length;
      pendingSpaces = shown.slice(end);
      shown = shown.slice(0, end);
    }
    this.lastText = text;
    this.plainAppends += 1;
    plain.pendingSpaces = pendingSpaces;
    if (shown === '') return true;
    const previous = plain.block;
    const html = previous.rawHtml;
    const cut = html.length - plain.closers.length;
    const grown: PlainAppend = { from: previous, path: plain.path, length: plain.text.length, text: shown };
    plain.text.appendData(shown);
    plain.block = new RenderedBlock(previous.key, previous.source, html.slice(0, cut) + escapeQuotes(shown) + html.slice(cut), previous.runs, grown);
    this.tail = [plain.block];
    return true;
  }

  /**
   * Blocks for tokens, keyed from `firstKey`. A block whose HTML equals that of the previous
   * update's tail at the same key is that block again (a tail that froze unchanged, or a delta
   * of whitespace): not sanitised again; one that only grew by plain text is the previous tree
   * with the text appended (grownByText); a list or table that changed otherwise is sanitised
   * again only in its changed items (renderByItems). Several new blocks (a whole answer) are sanitised in
   * one call, except blocks with raw HTML, each alone, so one cannot reach into the next.
   */
  private renderBlocks(tokens: Token[], links: Lexer['tokens']['links'], firstKey: number, previousTail: readonly RenderedBlock[], pieces: Pieces): RenderedBlock[] {
    const blocks: RenderedBlock[] = [];
    let run: Array<{ key: number; html: string }> = [];
    // In order, so citation numbers still follow first appearance.
    const flush = (): void => {
      if (run.length > 0) this.sanitizeMany(run.map((b) => b.html)).forEach((fragment, n) => blocks.push(new RenderedBlock(run[n]!.key, fragment, run[n]!.html)));
      run = [];
    };
    tokens.forEach((token, i) => {
      const key = firstKey + i;
      // A list's HTML from its items' (marked's list renderer is exactly open + items + close), so
      // items kept from the last update are not rendered again.
      const listParts = token.type === 'list' ? itemHtmls(token) : null;
      const html = listParts ? listParts.open + listParts.items.join('') + listParts.close : Parser.parse(withLinks([token], links), { gfm: true, async: false });
      const previous = previousTail.find((block) => block.key === key);
      const same = previous?.rawHtml === html ? previous : undefined;
      const raw = hasRawHtml(token);
      let grown = !same && previous && !raw ? grownByText(previous, html) : null;
      let runs: InlineRun[] = grown && previous ? [...previous.runs] : [];
      if (!same && !grown && previous && !raw) {
        flush(); // blocks before it get their citation numbers first
        grown = renderByItems(token, html, (htmls) => this.sanitizeMany(htmls), this.pieces, pieces, listParts);
        const byRuns = grown ? null : renderByRuns(token, html, previous.runs, (piece) => this.sanitizeBare(piece));
        if (byRuns) {
          if (byRuns.nodes.textContent?.includes('[sig_')) addChips(byRuns.nodes, this.numbering);
          ({ nodes: grown, runs } = byRuns);
        }
      }
      if (same || grown || raw) flush();
      if (same) blocks.push(same);
      else if (grown) blocks.push(new RenderedBlock(key, grown, html, runs));
      else if (raw) blocks.push(new RenderedBlock(key, this.sanitizeOne(html, false), html));
      else run.push({ key, html });
    });
    flush();
    return blocks;
  }

  /**
   * Several pieces of marked's own HTML (no raw HTML from the service): those the builder makes
   * are built, the rest go to DOMPurify in one call (sanitizeBlocksTogether) when there are
   * several. Round 8: a whole answer with one table no longer sends every block to DOMPurify.
   * Chips are added piece by piece in order, so citation numbers follow first appearance as one
   * walk over the whole would.
   */
  private sanitizeMany(htmls: string[]): DocumentFragment[] {
    if (htmls.length === 1) return [this.sanitizeOne(htmls[0]!)];
    const out: Array<DocumentFragment | null> = this.options.builder === false ? htmls.map(() => null) : htmls.map(buildPlainMarkup);
    const rest = htmls.filter((_, i) => out[i] === null);
    this.builtPieces += htmls.length - rest.length;
    if (rest.length > 0) {
      this.sanitizedChars += rest.reduce((n, html) => n + html.length, 0);
      this.sanitizeCalls += 1;
      const purified = rest.length === 1 ? [sanitize(rest[0]!)] : sanitizeBlocksTogether(rest);
      let next = 0;
      for (let i = 0; i < out.length; i += 1) out[i] ??= purified[next++]!;
    }
    return out.map((fragment) => {
      if (fragment!.textContent?.includes('[sig_')) addChips(fragment!, this.numbering);
      return fragment!;
    });
  }

  /** `build: false` for a block with raw HTML from the service: DOMPurify alone, always. */
  private sanitizeOne(html: string, build = true): DocumentFragment {
    const built = !build || this.options.builder === false ? null : buildPlainMarkup(html);
    if (built) return this.withChips(built);
    // A block just begun is often only bare tags (`<h3></h3>`, an empty list item): DOMPurify
    // makes the same tree of the same string under the same configuration, and with no text there
    // is no chip, so a copy of the first result is that tree (round 7: one document fewer when a
    // block ends and the next begins in one delta). A copy: the plain-text path appends to it.
    if (html.length <= BARE_MAX && BARE_TAGS.test(html)) {
      let bare = bareBlocks.get(html);
      if (!bare) {
        bare = sanitizeToFragment(html, this.numbering);
        // Kept in the builder's own document, so DOMPurify's inert document is not held for the page's life.
        builderDocument ??= document.implementation.createHTMLDocument('');
        if (bareBlocks.size < 64) bareBlocks.set(html, builderDocument.importNode(bare, true));
        this.sanitizeCalls += 1;
      }
      return bare.cloneNode(true) as DocumentFragment;
    }
    this.sanitizedChars += html.length;
    this.sanitizeCalls += 1;
    return sanitizeToFragment(html, this.numbering);
  }

  /** marked's plainest HTML, built (buildPlainMarkup), with its chips as sanitizeToFragment adds them. */
  private withChips(fragment: DocumentFragment): DocumentFragment {
    this.builtPieces += 1;
    if (fragment.textContent?.includes('[sig_')) addChips(fragment, this.numbering);
    return fragment;
  }

  /** Sanitised, without chips (renderByRuns adds them over the whole block). */
  private sanitizeBare(html: string): DocumentFragment {
    const built = this.options.builder === false ? null : buildPlainMarkup(html);
    if (built) {
      this.builtPieces += 1;
      return built;
    }
    this.sanitizedChars += html.length;
    this.sanitizeCalls += 1;
    return sanitize(html);
  }

  private reset(): void {
    this.plain = null;
    this.lastList = null;
    this.pieces = new Map();
    this.frozen = [];
    this.frozenLength = 0;
    this.tail = [];
  }
}

/** A list item's bullet as marked tells lists apart: `-`, `+` or `*`, or an ordered item's `.` or `)`. */
function bulletOf(raw: string): string {
  const bullet = /^ {0,3}(?:([-+*])|\d{1,9}([.)]))/.exec(raw);
  return bullet ? (bullet[1] ?? bullet[2]!) : '';
}

function withLinks(tokens: Token[], links: Lexer['tokens']['links']): Token[] & { links: Lexer['tokens']['links'] } {
  return Object.assign(tokens, { links });
}

/** Sanitised HTML for a whole markdown text at once (saved items, exports). */
export function renderMarkdownHtml(text: string, numbering = new CitationNumbering()): string {
  const tokens = new Lexer({ gfm: true }).lex(text);
  return renderBlockHtml(tokens, numbering);
}
