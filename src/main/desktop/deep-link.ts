/**
 * `clarity-desktop://` links, which any web page, e-mail or chat message can hand to the app.
 * Every link is untrusted input: it is parsed strictly and only these forms are accepted —
 *   clarity-desktop://conversation/cnv_<16 hex>
 *   clarity-desktop://saved/lib_<16 hex>
 *   clarity-desktop://report/run_<16 hex>
 *   clarity-desktop://ask?q=<question>      (prefills the composer; never sent without the user)
 * Anything else is rejected with a reason (logged, never shown as an error dialog an attacker
 * could spam).
 */

export const DEEP_LINK_SCHEME = 'clarity-desktop';
const MAX_LINK_LENGTH = 10_000;
const MAX_QUESTION = 8_000;

import type { DeepLink } from '../../shared/desktop';

export type { DeepLink };

export type DeepLinkResult = { ok: true; link: DeepLink } | { ok: false; reason: string };

const ID_PATTERNS = {
  conversation: /^cnv_[0-9a-f]{16}$/,
  saved: /^lib_[0-9a-f]{16}$/,
  report: /^run_[0-9a-f]{16}$/,
} as const;

/** Control characters (except tab and newline) and bidi overrides have no place in a question. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function parseDeepLink(raw: unknown): DeepLinkResult {
  if (typeof raw !== 'string') return { ok: false, reason: 'not a string' };
  if (raw.length > MAX_LINK_LENGTH) return { ok: false, reason: `longer than ${MAX_LINK_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== `${DEEP_LINK_SCHEME}:`) return { ok: false, reason: `scheme ${url.protocol} is not ${DEEP_LINK_SCHEME}:` };
  if (url.username || url.password || url.port) return { ok: false, reason: 'credentials or a port in the link' };
  if (url.hash) return { ok: false, reason: 'a fragment in the link' };
  const kind = url.hostname.toLowerCase();
  const segments = url.pathname.split('/').filter(Boolean);
  if (kind === 'ask') {
    if (segments.length > 0) return { ok: false, reason: 'ask takes no path' };
    const keys = [...url.searchParams.keys()];
    if (keys.length !== 1 || keys[0] !== 'q') return { ok: false, reason: 'ask takes exactly one parameter, q' };
    const question = (url.searchParams.get('q') ?? '').replace(UNSAFE_CHARACTERS, '').trim();
    if (!question) return { ok: false, reason: 'the question is empty' };
    if (question.length > MAX_QUESTION) return { ok: false, reason: `the question is longer than ${MAX_QUESTION} characters` };
    return { ok: true, link: { kind: 'ask', question } };
  }
  if (kind === 'conversation' || kind === 'saved' || kind === 'report') {
    if (url.search) return { ok: false, reason: `${kind} takes no parameters` };
    if (segments.length !== 1) return { ok: false, reason: `${kind} takes exactly one id` };
    const id = segments[0]!;
    if (!ID_PATTERNS[kind].test(id)) return { ok: false, reason: `"${id.slice(0, 40)}" is not a ${kind} id` };
    return { ok: true, link: { kind, id } };
  }
  return { ok: false, reason: `unknown link kind "${kind.slice(0, 40)}"` };
}

/**
 * The deep link in a command line (Windows and Linux pass it as an argument, to the first launch
 * or, through the single-instance lock, to the running one). Only an argument that starts with
 * the scheme counts, and only the last one; flags never do.
 */
export function deepLinkFromArgv(argv: readonly string[]): string | null {
  const prefix = `${DEEP_LINK_SCHEME}:`;
  const candidates = argv.filter((arg) => typeof arg === 'string' && arg.toLowerCase().startsWith(prefix));
  return candidates.at(-1) ?? null;
}

/** A link for the user to copy (Share, Copy link): the inverse of parseDeepLink. */
export function formatDeepLink(link: DeepLink): string {
  if (link.kind === 'ask') return `${DEEP_LINK_SCHEME}://ask?q=${encodeURIComponent(link.question)}`;
  return `${DEEP_LINK_SCHEME}://${link.kind}/${link.id}`;
}
