/**
 * SECURITY: the only addresses a citation may put in an `href`: absolute http(s) URLs, parsed
 * with URL. `javascript:`, `file:`, `data:`, `vbscript:`, custom schemes and anything
 * unparsable give null, and the UI shows no link. Pure: used by the renderer and main alike.
 */
export function httpHref(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 8_192) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname || url.username || url.password) return null;
  return url.href;
}
