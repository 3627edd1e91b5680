/**
 * robots.txt, fetched once an hour per origin with the feed's own User-Agent and honoured for
 * every URL the feed reads (feeds, listing pages, articles, PDFs). A missing robots.txt (4xx)
 * allows everything; a server error disallows for now (RFC 9309 §2.3.1.4).
 */
import robotsParser from 'robots-parser';
import { fetchResource, type FetchLimits } from './http-fetcher';

const ROBOTS_TTL_MS = 3_600_000;

interface Entry {
  at: number;
  robots: { isAllowed(url: string, ua?: string): boolean | undefined } | null;
  /** Set when the server failed: everything is disallowed until the entry expires. */
  unavailable: string | null;
}

export class RobotsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: { userAgent: string; productToken: string; allowPrivate: boolean; allowedPrivateHosts?: string[]; signal?: AbortSignal; now: () => number; limits?: Partial<FetchLimits> }) {}

  /** Null when allowed, else why not. */
  async check(target: string): Promise<string | null> {
    const url = new URL(target);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    const entry = await this.entry(url.origin);
    if (entry.unavailable) return `robots.txt at ${url.origin} is unavailable (${entry.unavailable}); fetching waits until it answers`;
    if (entry.robots && entry.robots.isAllowed(url.href, this.options.productToken) === false) return `robots.txt at ${url.origin} disallows ${url.pathname}`;
    return null;
  }

  private async entry(origin: string): Promise<Entry> {
    const cached = this.entries.get(origin);
    if (cached && this.options.now() - cached.at < ROBOTS_TTL_MS) return cached;
    const robotsUrl = `${origin}/robots.txt`;
    let entry: Entry;
    try {
      const response = await fetchResource({ url: robotsUrl, userAgent: this.options.userAgent, allowPrivate: this.options.allowPrivate, allowedPrivateHosts: this.options.allowedPrivateHosts, signal: this.options.signal, accept: 'text/plain', limits: { ...this.options.limits, maxBodyBytes: 512 * 1024, maxDecompressedBytes: 512 * 1024 } });
      if (response.status >= 500) entry = { at: this.options.now(), robots: null, unavailable: `HTTP ${response.status}` };
      else if (response.status >= 400) entry = { at: this.options.now(), robots: null, unavailable: null };
      else entry = { at: this.options.now(), robots: robotsParser(robotsUrl, response.body.toString('utf8')), unavailable: null };
    } catch {
      // Unreachable: the fetch of the feed itself will say why, in its own words.
      entry = { at: this.options.now(), robots: null, unavailable: null };
    }
    this.entries.set(origin, entry);
    return entry;
  }
}
