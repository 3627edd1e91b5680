// The markup builder: marked's plain HTML made into elements directly, without a parser, when it holds only the tags it knows (split from markdown.ts).

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
/** The inert document the builders make their elements in (never the page's: nothing in it runs), made at first use. */
let builderDocument: Document | null = null;
export function builderDoc(): Document {
  builderDocument ??= document.implementation.createHTMLDocument('');
  return builderDocument;
}

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

export function buildPlainMarkup(html: string): DocumentFragment | null {
  if (html === '' || /^[\s]|[\0\r]/.test(html)) return null;
  const doc = builderDoc();
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
