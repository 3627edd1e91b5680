/**
 * SECURITY: the one gate for opening links outside the app. Only http(s) and mailto, parsed
 * with URL, no credentials in the URL. Every caller (Electron shell, browser host) goes here.
 */
export function safeExternalUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol === 'mailto:') return url.href;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || !url.hostname) return null;
  return url.href;
}
