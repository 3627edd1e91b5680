/**
 * SECURITY: the renderer's Content-Security-Policy, one rule for every place it is set: the
 * Electron protocol handler (header, no network at all), the browser host (header, its own
 * bridge socket only) and `src/renderer/index.html` (meta, a baseline for both; a test checks
 * the page carries exactly `rendererCsp({ connectSrc: PAGE_CONNECT_SRC, delivery: 'meta' })`).
 */

/** The page's baseline: a bridge socket on this machine, any port. */
export const PAGE_CONNECT_SRC = ['ws://127.0.0.1:*', 'ws://localhost:*'];

export interface CspOptions {
  /** Where the page may connect; empty means nowhere. */
  connectSrc: readonly string[];
  /** A meta tag cannot carry frame-ancestors (browsers ignore it there); a header can. */
  delivery: 'header' | 'meta';
}

export function rendererCsp({ connectSrc, delivery }: CspOptions): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connectSrc.length > 0 ? connectSrc.join(' ') : "'none'"}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    ...(delivery === 'header' ? ["frame-ancestors 'none'"] : []),
    "frame-src 'none'",
  ].join('; ');
}
