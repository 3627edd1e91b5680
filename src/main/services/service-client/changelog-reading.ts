// The service's machine-readable changelog: a JSON Feed, else an Atom feed, as the notices view shows it (split from api-client.ts).
import type { Result } from '../../../shared/bridge-contract';
import { fail, ok } from '../../../shared/bridge-contract';
import { ENDPOINTS } from '../../../shared/endpoints/table';
import type { ServiceChangelogView } from '../../../shared/service-notices';
import { ChangelogFeed } from '../../../shared/surface-schemas';
import { parseAtomChangelog } from './changelog-atom';
import { MAX_REPORT_BYTES, readBoundedText, readJson } from './response-bodies';
import type { ServiceTransport } from './service-transport';

/**
 * The service's changelog, machine-readable: a JSON Feed at `/developer/changelog.json` (this
 * service's shape; others that publish one the same way are read too), else, for a service
 * that publishes only an Atom feed, `/developer/changelog.atom`. Absolute URLs in it are
 * resolved against the base URL; only http(s) ones are kept.
 */
export async function readChangelog(transport: ServiceTransport, baseUrl: string): Promise<Result<ServiceChangelogView>> {
  const webUrl = (value: string | undefined | null): string | null => {
    if (!value) return null;
    try {
      const url = new URL(value, baseUrl);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
    } catch {
      return null;
    }
  };
  const serviceLabel = new URL(baseUrl).origin;
  const response = await transport.request('GET', ENDPOINTS.changelogJson.path, undefined, 'application/feed+json, application/json', undefined, { anonymousOk: true });
  if (!response.ok) {
    // No JSON Feed (or not this way): the Atom feed is the other standard form.
    if (response.error.status === 404 || response.error.status === 405 || response.error.status === 406) return readAtomChangelog(transport, serviceLabel, webUrl);
    return response;
  }
  const json = await readJson(response.value);
  if (!json.ok) return json;
  const parsed = ChangelogFeed.safeParse(json.value);
  if (!parsed.success) {
    const atom = await readAtomChangelog(transport, serviceLabel, webUrl);
    return atom.ok ? atom : fail({ code: 'bad_response', message: 'The service sent a changelog the app cannot read (expected a JSON Feed or an Atom feed).' });
  }
  const feed = parsed.data;
  return ok({
    serviceLabel,
    pageUrl: webUrl(feed.home_page_url ?? '/developer/changelog'),
    entries: feed.items.slice(0, 200).map((item) => ({
      version: item._retail_signal?.version ?? null,
      date: item._retail_signal?.date ?? item.date_published?.slice(0, 10) ?? null,
      title: item.title ?? item._retail_signal?.version ?? item.id,
      notes: (item._retail_signal?.notes ?? (item.content_text ?? '').split('\n').map((line) => line.replace(/^-\s*/, ''))).filter((note) => note.trim()).slice(0, 100),
    })),
    deprecations: (feed._retail_signal?.deprecations ?? []).slice(0, 100).map((entry) => ({
      method: entry.method,
      path: entry.path,
      deprecatedAt: entry.deprecated_at,
      sunsetAt: entry.sunset_at ?? null,
      replacement: entry.replacement ? `${entry.replacement.method} ${entry.replacement.path}` : null,
      change: entry.change ?? null,
    })),
  });
}

/** The changelog as an Atom feed (`/developer/changelog.atom`); Atom carries no deprecation records. */
async function readAtomChangelog(transport: ServiceTransport, serviceLabel: string, webUrl: (value: string | null) => string | null): Promise<Result<ServiceChangelogView>> {
  const response = await transport.request('GET', ENDPOINTS.changelogAtom.path, undefined, 'application/atom+xml, application/xml;q=0.9, text/xml;q=0.8', undefined, { anonymousOk: true });
  if (!response.ok) {
    if (response.error.status === 404) return fail({ code: 'not_found', message: 'This service publishes no machine-readable changelog (neither /developer/changelog.json nor /developer/changelog.atom).' });
    return response;
  }
  const text = await readBoundedText(response.value, MAX_REPORT_BYTES);
  if (!text.ok) return text;
  try {
    const atom = parseAtomChangelog(text.value);
    return ok({ serviceLabel, pageUrl: webUrl(atom.pageHref ?? '/developer/changelog'), entries: atom.entries, deprecations: [] });
  } catch (error) {
    return fail({ code: 'bad_response', message: `The service sent a changelog the app cannot read: ${(error as Error).message}` });
  }
}

