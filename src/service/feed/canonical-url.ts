/** A URL's canonical form, so the same story fetched twice (or with tracking tags) is one signal. */
import { createHash } from 'node:crypto';

const TRACKING = /^(utm_\w+|fbclid|gclid|dclid|msclkid|yclid|mc_cid|mc_eid|igshid|_ga|_gl|ref|ref_src|cmpid|ocid|src|share|spm)$/i;

export function canonicalUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'file:') return null;
  url.hash = '';
  const kept = [...url.searchParams.entries()].filter(([name]) => !TRACKING.test(name)).sort(([a], [b]) => a.localeCompare(b));
  url.search = '';
  for (const [name, value] of kept) url.searchParams.append(name, value);
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.slice(0, -1);
  return url.href;
}

/** `sig_` and 16 hex characters of the canonical URL's SHA-256: stable across refetches and restarts. */
export function signalIdFor(canonical: string): string {
  return `sig_${createHash('sha256').update(canonical).digest('hex').slice(0, 16)}`;
}
