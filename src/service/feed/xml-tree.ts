/**
 * A forgiving XML reader for feeds: htmlparser2 in XML mode builds a small tree whatever the
 * document's errors (an unescaped `&`, an unclosed tag, a truncated end), as feedparser's loose
 * parser does. Namespaces are resolved to short names (dc, atom, content, …) so `dc:date` is found
 * whatever prefix a feed chose; `xml:base` and `xml:lang` are inherited down the tree.
 * SECURITY: the caller refuses entity declarations first (src/shared/safe-xml.ts); this reader
 * never loads a DTD and decodes only XML's own entities and character references.
 */
import { Parser } from 'htmlparser2';

export interface XmlElement {
  /** Local name, lower case. */
  local: string;
  /** Short namespace name ('' for none, 'atom', 'dc', …; an undeclared prefix stands for itself). */
  ns: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** The base URL in force here (xml:base resolved against its parent's). */
  base: string;
  lang: string | null;
}

export type XmlNode = XmlElement | string;

const NAMESPACES: Record<string, string> = {
  'http://www.w3.org/2005/atom': 'atom',
  'http://purl.org/atom/ns#': 'atom03',
  'http://purl.org/rss/1.0/': 'rss1',
  'http://my.netscape.com/rdf/simple/0.9/': 'rss09',
  'http://backend.userland.com/rss2': '',
  'http://blogs.law.harvard.edu/tech/rss': '',
  'http://backend.userland.com/rss': '',
  'http://www.w3.org/1999/02/22-rdf-syntax-ns#': 'rdf',
  'http://purl.org/dc/elements/1.1/': 'dc',
  'http://purl.org/dc/terms/': 'dcterms',
  'http://purl.org/rss/1.0/modules/content/': 'content',
  'http://www.w3.org/1999/xhtml': 'xhtml',
  'http://www.itunes.com/dtds/podcast-1.0.dtd': 'itunes',
  'http://search.yahoo.com/mrss/': 'media',
  'http://search.yahoo.com/mrss': 'media',
  'http://www.w3.org/xml/1998/namespace': 'xml',
};

function shortName(uri: string): string {
  const known = NAMESPACES[uri.toLowerCase()];
  return known ?? uri;
}

function resolve(href: string, base: string): string {
  try {
    return new URL(href, base || undefined).href;
  } catch {
    return base || href;
  }
}

/** The document's root elements (one for a feed), read whatever its errors. */
export function parseXmlTree(text: string, documentUrl: string): XmlElement[] {
  const roots: XmlElement[] = [];
  const stack: Array<{ element: XmlElement; scope: Record<string, string> }> = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const top = stack[stack.length - 1];
        const scope = { ...(top?.scope ?? { xml: 'xml' }) };
        for (const [key, value] of Object.entries(attribs)) {
          if (key === 'xmlns') scope[''] = shortName(value.trim());
          else if (key.startsWith('xmlns:')) scope[key.slice(6).toLowerCase()] = shortName(value.trim());
        }
        const colon = name.indexOf(':');
        const prefix = colon >= 0 ? name.slice(0, colon).toLowerCase() : '';
        const ns = scope[prefix] ?? prefix;
        const parentBase = top?.element.base ?? documentUrl;
        const xmlBase = attribs['xml:base'];
        const element: XmlElement = {
          local: (colon >= 0 ? name.slice(colon + 1) : name).toLowerCase(),
          ns,
          attrs: attribs,
          children: [],
          base: xmlBase !== undefined ? resolve(xmlBase, parentBase) : parentBase,
          lang: attribs['xml:lang'] ?? top?.element.lang ?? null,
        };
        if (top) top.element.children.push(element);
        else roots.push(element);
        stack.push({ element, scope });
      },
      onclosetag() {
        stack.pop();
      },
      ontext(data) {
        const top = stack[stack.length - 1];
        if (!top) return;
        const last = top.element.children[top.element.children.length - 1];
        if (typeof last === 'string') top.element.children[top.element.children.length - 1] = last + data;
        else top.element.children.push(data);
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeCDATA: true, recognizeSelfClosing: true },
  );
  parser.write(text);
  parser.end();
  return roots;
}

export function isElement(node: XmlNode): node is XmlElement {
  return typeof node !== 'string';
}

export function childElements(element: XmlElement): XmlElement[] {
  return element.children.filter(isElement);
}

/** An attribute by its local name, whatever prefix or case the feed wrote it with. */
export function attr(element: XmlElement, name: string): string | null {
  if (element.attrs[name] !== undefined) return element.attrs[name]!;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(element.attrs)) {
    const local = key.slice(key.indexOf(':') + 1).toLowerCase();
    if (local === wanted && !key.startsWith('xmlns')) return value;
  }
  return null;
}

/** All text inside an element, markup left out. */
export function textOf(element: XmlElement): string {
  let out = '';
  for (const node of element.children) out += typeof node === 'string' ? node : textOf(node);
  return out;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An element's content as markup again (inline XHTML), prefixes dropped. */
export function innerXml(element: XmlElement): string {
  let out = '';
  for (const node of element.children) {
    if (typeof node === 'string') out += escapeXml(node);
    else {
      const attrs = Object.entries(node.attrs)
        .filter(([key]) => !key.startsWith('xmlns'))
        .map(([key, value]) => ` ${key}="${escapeXml(value).replace(/"/g, '&quot;')}"`)
        .join('');
      out += `<${node.local}${attrs}>${innerXml(node)}</${node.local}>`;
    }
  }
  return out;
}

export function resolveAgainst(href: string, element: XmlElement): string {
  return resolve(href.trim(), element.base);
}
