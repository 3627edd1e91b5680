/**
 * What this service has deprecated, announced the standard way on every response of the
 * deprecated operation: `Deprecation` (RFC 9745, a structured-field date `@<unix seconds>`),
 * `Sunset` (RFC 8594, an HTTP-date) and `Link: <…/developer/changelog>; rel="deprecation"`.
 * The changelog (page, JSON, Atom) lists the same records, so the two cannot disagree.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The deprecation window the interface promises (§9): six months after the announcement. */
export const DEPRECATION_WINDOW_MONTHS = 6;

export interface Deprecation {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** The changelog date v2 was announced on (YYYY-MM-DD): the day the operation is deprecated. */
  announced: string;
  replacement: { method: string; path: string };
  /** What changes for a caller, in one sentence. */
  change: string;
}

/** v2 research was announced in the changelog's 2.0.0-preview entry (2026-11-01). */
export const DEPRECATIONS: readonly Deprecation[] = [
  {
    method: 'POST',
    path: '/api/v1/research',
    announced: '2026-11-01',
    replacement: { method: 'POST', path: '/api/v2/research' },
    change:
      'POST /api/v2/research answers 202 "queued" at once with a status_url to poll (GET /api/v1/research/{id}) instead of holding the request until the report is ready.',
  },
];

export const CHANGELOG_PATH = '/developer/changelog';

/** Midnight UTC of the announcement, in whole seconds. */
export function deprecatedAt(deprecation: Deprecation): Date {
  return new Date(`${deprecation.announced}T00:00:00Z`);
}

/** The announcement date plus the window, same day of the month (UTC). */
export function sunsetAt(deprecation: Deprecation): Date {
  const at = deprecatedAt(deprecation);
  at.setUTCMonth(at.getUTCMonth() + DEPRECATION_WINDOW_MONTHS);
  return at;
}

/** The three headers, as sent. */
export function deprecationHeaders(deprecation: Deprecation): Record<'deprecation' | 'sunset' | 'link', string> {
  return {
    // RFC 9745 §2.1: an RFC 9651 Date item, `@` + seconds since the epoch.
    deprecation: `@${Math.floor(deprecatedAt(deprecation).getTime() / 1000)}`,
    // RFC 8594 §3: an HTTP-date (IMF-fixdate), which toUTCString writes.
    sunset: sunsetAt(deprecation).toUTCString(),
    // RFC 9745 §3: where a person reads about it. Relative: resolved against the request's URL.
    link: `<${CHANGELOG_PATH}>; rel="deprecation"; type="text/html"`,
  };
}

/**
 * A route's `onSend` hook: every response of the operation carries the headers, errors included
 * (an `onSend` hook of the route runs even when a global `onRequest` hook refused the request).
 */
export function announceDeprecation(deprecation: Deprecation) {
  const headers = deprecationHeaders(deprecation);
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    void reply.headers(headers);
    return payload;
  };
}
