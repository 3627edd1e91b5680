/**
 * Bytes to text the way a browser would: a BOM first, then the charset the Content-Type header
 * declares, then the XML prolog's `encoding`, then `<meta charset>` / `http-equiv`; UTF-8 when
 * nothing says otherwise. Windows-1252 and ISO-8859-1 feeds are common in the wild.
 */
import iconv from 'iconv-lite';

export function declaredCharset(contentType: string | undefined, head: string): string | null {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (fromHeader) return fromHeader.toLowerCase();
  const fromProlog = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1];
  if (fromProlog) return fromProlog.toLowerCase();
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  if (fromMeta) return fromMeta.toLowerCase();
  return null;
}

export function decodeBody(body: Buffer, contentType: string | undefined): { text: string; charset: string } {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { text: body.subarray(3).toString('utf8'), charset: 'utf-8' };
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { text: iconv.decode(body.subarray(2), 'utf-16le'), charset: 'utf-16le' };
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { text: iconv.decode(body.subarray(2), 'utf-16be'), charset: 'utf-16be' };
  // The declarations are ASCII: read the first bytes as latin1 to find them.
  const charset = declaredCharset(contentType, body.subarray(0, 2048).toString('latin1'));
  if (charset && charset !== 'utf-8' && charset !== 'utf8' && iconv.encodingExists(charset)) {
    // ISO-8859-1 is decoded as Windows-1252, as browsers do (the two differ only in 0x80–0x9F).
    const effective = charset === 'iso-8859-1' || charset === 'latin1' || charset === 'us-ascii' ? 'windows-1252' : charset;
    return { text: iconv.decode(body, effective), charset };
  }
  return { text: body.toString('utf8'), charset: 'utf-8' };
}
