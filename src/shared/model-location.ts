/**
 * Where a model API runs, as Settings › Answers says it (issue 28). Zod-free: the renderer
 * imports it to say, while the address is typed, whether questions would leave this machine.
 */

/** The host of an http(s) URL, without IPv6 brackets; null when it is not one. */
function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url.trim());
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    return parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
}

/** True when the URL names this machine (localhost, 127.0.0.0/8, ::1): nothing leaves it. */
export function isOnThisMachine(url: string): boolean {
  const host = hostOf(url);
  return host !== null && (host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host));
}

/** The origin to name to the user (`https://api.example.com`), without path, query or userinfo. */
export function modelOrigin(url: string): string | null {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}
