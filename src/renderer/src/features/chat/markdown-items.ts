// Lists and tables rendered by their items: each item sanitised alone, and on later updates the changed items replaced in place (split from markdown-blocks.ts, issue 50 round 7).
import { Parser, type Token, type Tokens } from 'marked';
import type { RenderedBlock } from './markdown-blocks';

/**
 * A list or table as its items were put in its container: marked's HTML for the container and for
 * each item (the last one possibly older than the block's: the plain-text path appends to it
 * without writing it), where the container is in the tree, and how many child nodes each item
 * put there (its LI or TR and the whitespace after it).
 */
export interface ListedItems {
  readonly open: string;
  readonly close: string;
  readonly items: readonly string[];
  readonly path: readonly number[];
  /** The container's own child nodes before the first item's (a list's first line break; none in a tbody). */
  readonly lead: number;
  readonly counts: readonly number[];
}

/** What renderByItems did to a block's tree when it replaced items in place: the container's child nodes from `start` on are new. */
export interface ItemsReplaced {
  readonly from: RenderedBlock;
  readonly path: readonly number[];
  /** How many child nodes the container had before. */
  readonly before: number;
  readonly start: number;
}

/**
 * marked's HTML for a list item token. A token is never changed once lexed (the lexer's task-item
 * rewrite happens before it returns), and its HTML depends on nothing else: links are resolved
 * when lexing, and an item's looseness is set on it by then.
 */
const itemHtmlCache = new WeakMap<Tokens.ListItem, string>();

/** Sanitised list items and table rows (each in its wrapper), by their HTML. */
export type Pieces = Map<string, DocumentFragment>;

/**
 * marked's HTML for a list or table, in parts: the container's opening and closing HTML, each
 * item's (list item or table row) as marked renders it, and the wrapper each item is sanitised in.
 */
export function itemHtmls(token: Token): { open: string; items: string[]; close: string; wrap(item: string): string } | null {
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
 *
 * Issue 50, round 7: when the previous block was made so too (`previous.listed`, the same
 * container), the items from the first that changed on (at least the previous last one) are
 * replaced in the previous block's own tree, in place, as the plain-text path appends in place:
 * the items before them are neither copied again nor compared by the view, which is told to
 * replace the same child nodes in its copy (`replaced`).
 */
export function renderByItems(token: Token, html: string, sanitizeMany: (htmls: string[]) => DocumentFragment[], previous: Pieces, next: Pieces, listParts?: ReturnType<typeof itemHtmls>, previousBlock?: RenderedBlock): { nodes: DocumentFragment; listed: ListedItems; replaced?: ItemsReplaced } | null {
  const parts = listParts ?? itemHtmls(token);
  // The parts must make exactly marked's HTML for the whole block.
  if (!parts || parts.items.length < 2 || parts.open + parts.items.join('') + parts.close !== html) return null;
  const list = token.type === 'list';
  const listed = previousBlock?.listed;
  const inPlace = listed !== undefined && listed.open === parts.open && listed.close === parts.close && listed.items.length >= 1;
  // The items to put in: all of them, or (in place) those from the first that changed on.
  let from = 0;
  if (inPlace) {
    const last = Math.min(listed.items.length - 1, parts.items.length);
    while (from < last && listed.items[from] === parts.items[from]) from += 1;
  }
  const wanted = inPlace ? parts.items.slice(from).map(parts.wrap) : [parts.open + parts.close, ...parts.items.map(parts.wrap)];
  // The pieces not sanitised yet (a new item, and the one that was last, which changed with it;
  // a new table's container and rows), in ONE DOMPurify call (round 7): a new inert document
  // per piece was most of a new item's cost. In order, so citation numbers still follow first appearance.
  const missing = [...new Set(wanted)].filter((piece) => !next.has(piece) && !previous.has(piece));
  if (missing.length > 0) sanitizeMany(missing).forEach((fragment, i) => next.set(missing[i]!, fragment));
  const sanitized = (pieceHtml: string): DocumentFragment => {
    const fragment = next.get(pieceHtml) ?? previous.get(pieceHtml)!;
    next.set(pieceHtml, fragment);
    return fragment;
  };
  /** An item's nodes (exactly one LI or TR, then only whitespace), or null. */
  const itemNodes = (item: string): ChildNode[] | null => {
    const container = containerOf(sanitized(parts.wrap(item)), list);
    const kids = container ? [...container.childNodes] : [];
    const [element, ...after] = kids;
    if (!(element instanceof Element) || element.tagName !== (list ? 'LI' : 'TR') || after.some((kid) => !(kid instanceof Text) || kid.data.trim() !== '')) return null;
    return kids;
  };
  if (inPlace) {
    // The kept items' pieces stay known for a later update that cannot replace in place.
    for (let i = 0; i < from; i += 1) {
      const piece = parts.wrap(parts.items[i]!);
      const fragment = previous.get(piece);
      if (fragment) next.set(piece, fragment);
    }
    const tree = previousBlock!.source;
    let into: Node | undefined = tree;
    for (const index of listed.path) into = into?.childNodes[index];
    const before = listed.lead + listed.counts.reduce((n, count) => n + count, 0);
    const added = parts.items.slice(from).map(itemNodes);
    if (into && into.childNodes.length === before && added.every((kids) => kids !== null)) {
      let start = listed.lead;
      for (let i = 0; i < from; i += 1) start += listed.counts[i]!;
      while (into.childNodes.length > start) into.lastChild!.remove();
      const counts = listed.counts.slice(0, from);
      for (const kids of added) {
        for (const kid of kids!) into.appendChild(kid.cloneNode(true));
        counts.push(kids!.length);
      }
      return { nodes: tree, listed: { ...listed, items: parts.items, counts }, replaced: { from: previousBlock!, path: listed.path, before, start } };
    }
    // (Not as it was left: made whole below.)
    for (const piece of [parts.open + parts.close, ...parts.items.map(parts.wrap)]) if (!next.has(piece) && !previous.has(piece)) return null;
  }
  const block = sanitized(parts.open + parts.close).cloneNode(true) as DocumentFragment;
  const into = containerOf(block, list);
  // The empty container: a list holds only its first line break, a tbody nothing.
  const lead = list ? 1 : 0;
  if (!into || into.childNodes.length !== lead) return null;
  const counts: number[] = [];
  for (const item of parts.items) {
    const kids = itemNodes(item);
    if (!kids) return null;
    for (const kid of kids) into.appendChild(kid.cloneNode(true));
    counts.push(kids.length);
  }
  // Where the container is: its index at the top (and a tbody's in its table).
  const path: number[] = [];
  for (let node: Node = into; node !== block; node = node.parentNode!) path.unshift([...node.parentNode!.childNodes].indexOf(node as ChildNode));
  return { nodes: block, listed: { open: parts.open, close: parts.close, items: parts.items, path, lead, counts } };
}
