/**
 * Bytes to text as feedparser (and a browser) would read them: a byte order mark first (UTF-8,
 * UTF-16, UTF-32), then UTF-16/32 recognised without one by the bytes of `<?xml`, then the charset
 * the Content-Type header declares (it wins over the XML declaration, as RFC 3023 says), then the
 * XML declaration's `encoding`, then `<meta charset>`; UTF-8 when nothing says otherwise.
 * Windows-1252 bytes met inside UTF-8 (smart quotes from a CMS) are read as Windows-1252, and
 * Latin-1 is read as Windows-1252 as browsers do. Text encoded twice (UTF-8 read as Windows-1252
 * and encoded again: "â€¦") is repaired when the repair is unambiguous.
 */
import iconv from 'iconv-lite';

export function declaredCharset(contentType: string | undefined, head: string): string | null {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (fromHeader) return fromHeader.toLowerCase();
  return prologCharset(head);
}

function prologCharset(head: string): string | null {
  const fromProlog = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1];
  if (fromProlog) return fromProlog.toLowerCase();
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  if (fromMeta) return fromMeta.toLowerCase();
  return null;
}

interface Decoded {
  text: string;
  charset: string;
}

/** The encoding the first bytes give away: a BOM, or `<?` in UTF-16/32. */
function sniff(body: Buffer): { charset: string; skip: number } | null {
  const [a, b, c, d] = [body[0], body[1], body[2], body[3]];
  if (a === 0x00 && b === 0x00 && c === 0xfe && d === 0xff) return { charset: 'utf-32be', skip: 4 };
  if (a === 0xff && b === 0xfe && c === 0x00 && d === 0x00) return { charset: 'utf-32le', skip: 4 };
  if (a === 0xef && b === 0xbb && c === 0xbf) return { charset: 'utf-8', skip: 3 };
  if (a === 0xfe && b === 0xff) return { charset: 'utf-16be', skip: 2 };
  if (a === 0xff && b === 0xfe) return { charset: 'utf-16le', skip: 2 };
  if (a === 0x00 && b === 0x00 && c === 0x00 && d === 0x3c) return { charset: 'utf-32be', skip: 0 };
  if (a === 0x3c && b === 0x00 && c === 0x00 && d === 0x00) return { charset: 'utf-32le', skip: 0 };
  if (a === 0x00 && b === 0x3c && c === 0x00 && d === 0x3f) return { charset: 'utf-16be', skip: 0 };
  if (a === 0x3c && b === 0x00 && c === 0x3f && d === 0x00) return { charset: 'utf-16le', skip: 0 };
  return null;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * UTF-8, with any byte that is not part of a valid sequence read as Windows-1252 (a UTF-8 feed
 * with a CMS's smart quotes). When stray bytes outnumber the valid sequences the document was
 * never UTF-8: it is read as Windows-1252 whole, as feedparser falls back.
 */
function utf8WithFallback(body: Buffer): string {
  try {
    return strictUtf8.decode(body);
  } catch {
    let valid = 0;
    let invalid = 0;
    for (let index = 0; index < body.length; ) {
      if (body[index]! < 0x80) {
        index += 1;
        continue;
      }
      const length = sequenceLength(body, index);
      if (length > 0) valid += 1;
      else invalid += 1;
      index += Math.max(1, length);
    }
    if (invalid > valid) return iconv.decode(body, 'windows-1252');
    const parts: string[] = [];
    let start = 0;
    let index = 0;
    while (index < body.length) {
      const length = sequenceLength(body, index);
      if (length > 0) {
        index += length;
        continue;
      }
      if (index > start) parts.push(body.subarray(start, index).toString('utf8'));
      parts.push(iconv.decode(body.subarray(index, index + 1), 'windows-1252'));
      index += 1;
      start = index;
    }
    if (start < body.length) parts.push(body.subarray(start).toString('utf8'));
    return parts.join('');
  }
}

/** The length of the valid UTF-8 sequence at `index`, or 0. */
function sequenceLength(body: Buffer, index: number): number {
  const lead = body[index]!;
  if (lead < 0x80) return 1;
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length === 0 || index + length > body.length) return 0;
  for (let offset = 1; offset < length; offset += 1) if ((body[index + offset]! & 0xc0) !== 0x80) return 0;
  try {
    strictUtf8.decode(body.subarray(index, index + length));
    return length;
  } catch {
    return 0;
  }
}

function decodeAs(body: Buffer, charset: string): string | null {
  const name = charset.toLowerCase();
  if (name === 'utf-8' || name === 'utf8') return utf8WithFallback(body);
  // ISO-8859-1 and US-ASCII are decoded as Windows-1252, as browsers do (they differ only in 0x80–0x9F).
  const effective = name === 'iso-8859-1' || name === 'latin1' || name === 'us-ascii' || name === 'ascii' ? 'windows-1252' : name;
  if (!iconv.encodingExists(effective)) return null;
  return iconv.decode(body, effective);
}

/** Mojibake of UTF-8 read as Windows-1252: "â€¦", "Ã©", "Â ". */
const DOUBLE_ENCODED = /[ÃÂâ][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]/;

/** Text encoded twice, repaired only when every character maps back to one byte and the bytes are valid UTF-8. */
export function repairDoubleEncoding(text: string): string {
  if (!DOUBLE_ENCODED.test(text)) return text;
  const bytes = iconv.encode(text, 'windows-1252');
  if (iconv.decode(bytes, 'windows-1252') !== text) return text;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return text;
  }
}

export function decodeBody(body: Buffer, contentType: string | undefined): Decoded {
  const sniffed = sniff(body);
  if (sniffed) {
    const rest = body.subarray(sniffed.skip);
    const text = sniffed.charset === 'utf-8' ? utf8WithFallback(rest) : iconv.decode(rest, sniffed.charset);
    return { text: repairDoubleEncoding(text), charset: sniffed.charset };
  }
  // The declarations are ASCII: read the first bytes as latin1 to find them.
  const head = body.subarray(0, 2048).toString('latin1');
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase() ?? null;
  for (const charset of [fromHeader, prologCharset(head)]) {
    if (!charset || /^utf-?(16|32)/.test(charset)) continue; // no BOM and no such bytes: the declaration is wrong
    const text = decodeAs(body, charset);
    if (text !== null) return { text: charset === 'utf-8' || charset === 'utf8' ? repairDoubleEncoding(text) : text, charset };
  }
  return { text: repairDoubleEncoding(utf8WithFallback(body)), charset: 'utf-8' };
}
