/**
 * Untrusted XML (fetched feeds, another service's Atom changelog) parsed one way, safely.
 * SECURITY: fast-xml-parser never loads external entities, and a document that declares
 * entities (billion laughs, XXE) or references an external DTD is refused before parsing, so
 * no expansion ever runs. Only the five XML entities and character references are decoded.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export class UnsafeXmlError extends Error {
  constructor(
    readonly kind: 'entity_declarations' | 'external_dtd' | 'malformed_xml',
    message: string,
  ) {
    super(message);
    this.name = 'UnsafeXmlError';
  }
}

/**
 * Any entity declaration is refused outright, wherever it sits: the whole text is searched, so a
 * long comment before the DOCTYPE cannot hide one. An HTML doctype is allowed (it names no DTD file).
 */
export function refuseEntityDeclarations(text: string): void {
  if (/<!ENTITY/i.test(text)) throw new UnsafeXmlError('entity_declarations', 'The XML declares entities in its DOCTYPE (a billion-laughs or external-entity risk); it is refused.');
  const doctype = /<!DOCTYPE[\s\S]*?(?:\[[\s\S]*?\]\s*>|>)/i.exec(text)?.[0];
  if (doctype && /\bSYSTEM\b|\bPUBLIC\b/.test(doctype) && !/^<!DOCTYPE\s+html/i.test(doctype)) {
    throw new UnsafeXmlError('external_dtd', 'The XML references an external DTD; external entities are never loaded, so it is refused.');
  }
}

const parsers = new Map<string, XMLParser>();

/**
 * The document as nested records (attributes as `@_name`, text of an element with attributes as
 * `#text`, namespace prefixes removed, values left as strings). `arrays` names the elements that
 * are always arrays, even when there is one.
 */
export function parseUntrustedXml(text: string, arrays: readonly string[]): Record<string, unknown> {
  refuseEntityDeclarations(text);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new UnsafeXmlError('malformed_xml', `The XML is malformed: ${valid.err.msg} (line ${valid.err.line}).`);
  const key = arrays.join(',');
  let parser = parsers.get(key);
  if (!parser) {
    const always = new Set(arrays);
    parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@_',
      removeNSPrefix: true,
      processEntities: true,
      htmlEntities: false,
      parseTagValue: false,
      trimValues: true,
      isArray: (name) => always.has(name),
    });
    parsers.set(key, parser);
  }
  return parser.parse(text) as Record<string, unknown>;
}
