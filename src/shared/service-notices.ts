/**
 * What a service announces about itself, as the app keeps and shows it: a deprecation read from
 * `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) response headers, and the service's changelog
 * ("What's new in the service"). Plain types: main builds them, the renderer shows them.
 */
import { formatDate, IST } from './format';

export interface ServiceNotice {
  id: string;
  /** Which service: `local` for the embedded one, else its base URL. */
  service: string;
  /** The service as the user knows it ("the local service", or its address). */
  serviceLabel: string;
  method: string;
  /** Path relative to the service's base URL. */
  path: string;
  /** What is going away, in the user's words ("Research reports (v1)"). */
  what: string;
  /** When the service says it was deprecated (ISO), if it said. */
  deprecatedAt: string | null;
  /** When it may stop answering (ISO), if it said. */
  sunsetAt: string | null;
  /** Where the service explains it (an http(s) URL), if it linked one. */
  link: string | null;
  /** What changes for the user, in a sentence or two. */
  change: string;
  firstSeenAt: string;
  /** The user has been told (dismissed the one-time notice or opened the list). */
  acknowledged: boolean;
  /**
   * Issue 47: the app handles this change itself (e.g. research moves to v2), so the analyst is
   * not interrupted: it is listed under Settings › Developer › Service notices only.
   */
  handledByApp?: boolean;
}

export interface ChangelogEntryView {
  version: string | null;
  date: string | null;
  title: string;
  notes: string[];
}

export interface ServiceChangelogView {
  serviceLabel: string;
  /** The changelog page to open in a browser, if the service has one. */
  pageUrl: string | null;
  entries: ChangelogEntryView[];
  /** Deprecations the changelog itself lists (method, path, until when). */
  deprecations: Array<{ method: string; path: string; deprecatedAt: string | null; sunsetAt: string | null; replacement: string | null; change: string | null }>;
}

/** The one-time message: what, until when, what changes for the user. */
export function noticeText(notice: ServiceNotice, zone: string = IST): string {
  const since = notice.deprecatedAt ? ` since ${formatDate(notice.deprecatedAt, zone)}` : '';
  const until = notice.sunsetAt ? `It may stop working after ${formatDate(notice.sunsetAt, zone)}.` : 'It has not said until when it keeps it.';
  return `${capitalise(notice.serviceLabel)} has deprecated ${notice.what}${since}. ${until} ${notice.change}`;
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
