// Rendered blocks and how a streamed block grows: plain appends, re-rendering a paragraph by its inline runs (split from markdown.ts; lists and tables by their items: markdown-items.ts).
import { Parser, type Token, type Tokens } from 'marked';
import { serialize } from './citation-chips';
import { builderDoc } from './markdown-builder';
import type { ItemsReplaced, ListedItems } from './markdown-items';

/**
 * One rendered block: its sanitised nodes, kept pristine (the view shows copies), and its HTML
 * only when asked (tests, exports): the view never serialises or re-parses it.
 */
export class RenderedBlock {
  private serialized: string | undefined;
  /** The sanitised tree, once made (given, or built on first use from `build`). */
  private built: DocumentFragment | undefined;
  private build: ((doc: Document) => DocumentFragment) | undefined;

  constructor(
    readonly key: number,
    /**
     * The sanitised tree, in an inert document; or, for a block built straight from its markdown
     * (directBlocks), how to build it in a given document: the view's copy is then built in the
     * page's document at once (issue 50: not built in the inert one and copied), and the inert
     * tree only if something asks for `source` (a test, a replaced answer's morph).
     */
    source: DocumentFragment | ((doc: Document) => DocumentFragment),
    /**
     * marked's HTML before sanitising: the same string means the same block. A function for a
     * block built straight from the markdown (directBlocks): written only if asked (tests,
     * exports), as nothing in a finished answer's update reads it.
     */
    rawHtml: string | (() => string),
    extra: BlockExtra = {},
  ) {
    if (typeof source === 'function') this.build = source;
    else this.built = source;
    if (typeof rawHtml === 'string') this.raw = rawHtml;
    else this.writeRaw = rawHtml;
    this.runs = extra.runs ?? [];
    this.grown = extra.grown;
    this.listed = extra.listed;
    this.replaced = extra.replaced;
  }

  /** A paragraph's or heading's sanitised runs (renderByRuns), for the next update to reuse. */
  readonly runs: readonly InlineRun[];
  /**
   * Set when this block is `from` with `text` appended to one text node (the plain-text path):
   * the view appends the same text to its copy instead of comparing the trees. `from` shares
   * this block's tree, which has grown since: a superseded tail block is not to be read again.
   */
  readonly grown: PlainAppend | undefined;
  /** A list or table made of its items' pieces (renderByItems): how, for the next update to replace items in place. */
  readonly listed: ListedItems | undefined;
  /** Set when this block is `from` with the items at the end of its container replaced in place (renderByItems): the view does the same to its copy. */
  readonly replaced: ItemsReplaced | undefined;

  private raw: string | undefined;
  private writeRaw: (() => string) | undefined;
  /** The sanitised tree, in an inert document. Never attach it: copy it (`content()`). */
  get source(): DocumentFragment {
    this.built ??= this.build!(builderDoc());
    return this.built;
  }

  get rawHtml(): string {
    this.raw ??= this.writeRaw!();
    this.writeRaw = undefined;
    return this.raw;
  }

  get html(): string {
    this.serialized ??= serialize(this.source);
    return this.serialized;
  }

  /** A copy of the sanitised nodes, owned by the live document (built there, when the block is built from its markdown). */
  content(): DocumentFragment {
    return this.built ? document.importNode(this.built, true) : this.build!(document);
  }
}

/** What a block may carry beside its tree and HTML (RenderedBlock). */
export interface BlockExtra {
  runs?: readonly InlineRun[];
  grown?: PlainAppend;
  listed?: ListedItems;
  replaced?: ItemsReplaced;
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
export function grownByText(previous: RenderedBlock, html: string): DocumentFragment | null {
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
export const PLAIN_DELTA = /^(?:[^*_~`[\]!<>&#\\:@\s\p{Cc}]| )*$/u;
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
export function escapeQuotes(text: string): string {
  return text.replace(/["']/g, (quote) => (quote === '"' ? '&quot;' : '&#39;'));
}

/**
 * The tail block's shape when later plain text can be appended to it without lexing it again:
 * a paragraph (its text shown with trailing spaces) or a tight list (its last item's text shown
 * trimmed), whose HTML ends in that text, the text node at `path` in its sanitised tree.
 */
export interface PlainTail {
  block: RenderedBlock;
  path: number[];
  text: Text;
  closers: string;
  /** List items trim trailing spaces: those not shown yet, shown once text follows them. */
  trims: boolean;
  pendingSpaces: string;
}

/** Whether a line, once grown, still means what it meant: text, or a list item holding text. */
export function lineStaysText(line: string, list: boolean): boolean {
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
export function plainTailOf(token: Token, block: RenderedBlock, text: string): PlainTail | null {
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

/** Blocks of bare tags and line breaks only (no text, no attribute), sanitised once (sanitizeOne). */
export const BARE_TAGS = /^(?:<\/?[a-z][a-z0-9]*>|\n)+$/;
export const BARE_MAX = 64;
export const bareBlocks = new Map<string, DocumentFragment>();

/** A run of a paragraph's or heading's inline HTML and its sanitised nodes (without chips). */
export interface InlineRun {
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
export function renderByRuns(token: Token, html: string, previous: readonly InlineRun[], sanitizeBare: (html: string) => DocumentFragment): { nodes: DocumentFragment; runs: InlineRun[] } | null {
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
export function hasRawHtml(token: Token): boolean {
  if (token.type === 'html') return true;
  const inner = token as { tokens?: Token[]; items?: Token[]; header?: Array<{ tokens: Token[] }>; rows?: Array<Array<{ tokens: Token[] }>> };
  if (inner.tokens?.some(hasRawHtml) || inner.items?.some(hasRawHtml)) return true;
  if (inner.header?.some((cell) => cell.tokens.some(hasRawHtml))) return true;
  return inner.rows?.some((row) => row.some((cell) => cell.tokens.some(hasRawHtml))) ?? false;
}
