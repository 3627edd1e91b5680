// Citation chips: numbering in order of first appearance, markers made chip elements in sanitised trees, and sanitised HTML with chips (split from markdown.ts).
import { Parser, type Token } from 'marked';
import { CITATION_MARKER } from '../../../../shared/cite-format';
import { sanitize } from './markdown-sanitize';

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
export function sanitizeBlocksTogether(htmls: string[]): DocumentFragment[] {
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
export function serialize(fragment: ParentNode): string {
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

export function addChips(root: DocumentFragment, numbering: CitationNumbering): void {
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

/** A chip without its signal and number, per document (the page's, or an inert one). */
const chipShells = new WeakMap<Document, HTMLButtonElement>();

/**
 * The chip's fixed part, made once per document and copied for each chip (issue 50, round 6): a
 * whole answer appended has a chip every line or two, and setting each one's five properties
 * (`dataset` above all) was a third of building its DOM on this machine. Its attributes are in
 * the order the chip always had them (type, class, data-cite, data-testid, title): setting one
 * that is there keeps its place, so a chip's HTML is byte for byte what it was.
 */
function chipShell(doc: Document): HTMLButtonElement {
  let shell = chipShells.get(doc);
  if (!shell) {
    shell = doc.createElement('button');
    shell.type = 'button';
    shell.className = 'cite-chip';
    shell.setAttribute('data-cite', '');
    shell.dataset.testid = 'citation-chip';
    shell.setAttribute('title', '');
    chipShells.set(doc, shell);
  }
  return shell;
}

/**
 * Text with its markers as chips, in order (the marker's number from `numbering`), or null when it
 * has no marker. A chip is the app's own element: only its own attributes, its number as text.
 */
export function withChips(doc: Document, value: string, numbering: CitationNumbering): Array<string | Node> | null {
  const pieces: Array<string | Node> = [];
  let last = 0;
  for (const match of value.matchAll(CITATION_MARKER)) {
    const id = match[1]!;
    if (match.index > last) pieces.push(value.slice(last, match.index));
    const n = numbering.numberFor(id);
    const chip = chipShell(doc).cloneNode(false) as HTMLElement;
    chip.setAttribute('data-cite', id);
    chip.setAttribute('title', `Citation ${n}`);
    chip.textContent = String(n);
    pieces.push(chip);
    last = match.index + match[0].length;
  }
  if (last === 0) return null;
  if (last < value.length) pieces.push(value.slice(last));
  return pieces;
}
