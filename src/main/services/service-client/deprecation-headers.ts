/**
 * Reads what a response says about its own deprecation, from any service: `Deprecation`
 * (RFC 9745: an RFC 9651 Date `@<seconds>`; earlier drafts sent `true` or an HTTP-date),
 * `Sunset` (RFC 8594: an HTTP-date) and a `Link` with relation `deprecation` (or `sunset`).
 * Garbage in a header is never an error: the date is then unknown.
 */

export interface DeprecationObservation {
  deprecated: boolean;
  deprecatedAt: string | null;
  sunsetAt: string | null;
  /** An absolute http(s) URL; anything else is dropped. */
  link: string | null;
}

/** RFC 9651 Date (`@1793491200`), or an HTTP-date, or `true`. */
function readDeprecationDate(value: string): string | null {
  const trimmed = value.trim();
  const structured = /^@(-?\d{1,15})$/.exec(trimmed);
  if (structured) return new Date(Number(structured[1]) * 1000).toISOString();
  return readHttpDate(trimmed);
}

/** An HTTP-date (it has a weekday or month name); bare numbers are not dates here. */
function readHttpDate(value: string): string | null {
  const trimmed = value.trim();
  if (!/[a-z]/i.test(trimmed)) return null;
  const parsed = Date.parse(trimmed);
  return Number.isNaN(parsed) ? null : new Date(parsed).toISOString();
}

/** The first link whose `rel` includes one of `relations` (RFC 8288), resolved against `base`. */
export function findLink(header: string | null, relations: readonly string[], base: string): string | null {
  if (!header) return null;
  for (const value of splitLinkValues(header)) {
    const target = /^<([^>]*)>/.exec(value)?.[1];
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/i.exec(value);
    const names = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (target === undefined || !relations.some((relation) => names.includes(relation))) continue;
    try {
      const url = new URL(target, base);
      // SECURITY: only a web page is ever offered to open; javascript:, file: and the like are dropped.
      if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
    } catch {
      // An unparsable target: try the next link.
    }
  }
  return null;
}

/** Link values are separated by commas outside `<…>` and quoted strings. */
function splitLinkValues(header: string): string[] {
  const values: string[] = [];
  let current = '';
  let inTarget = false;
  let inQuote = false;
  for (const char of header) {
    if (char === '<' && !inQuote) inTarget = true;
    else if (char === '>' && !inQuote) inTarget = false;
    else if (char === '"' && !inTarget) inQuote = !inQuote;
    if (char === ',' && !inTarget && !inQuote) {
      values.push(current.trim());
      current = '';
    } else current += char;
  }
  values.push(current.trim());
  return values.filter(Boolean);
}

export function readDeprecation(headers: Headers, responseUrl: string): DeprecationObservation | null {
  const deprecation = headers.get('deprecation');
  const sunset = headers.get('sunset');
  if (deprecation === null && sunset === null) return null;
  const deprecatedAt = deprecation !== null && deprecation.trim().toLowerCase() !== 'true' ? readDeprecationDate(deprecation) : null;
  // A Deprecation date in the future announces a deprecation to come: still worth telling.
  return {
    deprecated: deprecation !== null,
    deprecatedAt,
    sunsetAt: sunset !== null ? readHttpDate(sunset) : null,
    link: findLink(headers.get('link'), ['deprecation', 'sunset'], responseUrl),
  };
}
