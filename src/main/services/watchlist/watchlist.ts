/**
 * The watchlist: follows live on the service; main polls the follow feed within the tier's
 * hourly budget (and waits out any Retry-After), keeps every item in
 * `<dataDir>/watchlist.json` for offline reading, counts unread items and reports fresh ones
 * (the renderer shows a notice; Electron also a system notification).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { fail, ok, type Result } from '../../../shared/bridge-contract';
import type { Follow } from '../../../shared/surface-schemas';
import { FEED_READS_PER_HOUR, type FollowTargetArgs, type WatchlistItem, type WatchlistView } from '../../../shared/watchlist';
import type { RetailSignalClient } from '../service-client/api-client';

const ITEMS_KEPT = 500;
/** Never poll faster than this, whatever the tier allows. */
const MIN_POLL_MS = 5_000;
/** Spend at most this share of the tier's hourly feed reads on background polling. */
const BUDGET_SHARE = 0.9;

interface Stored {
  serviceUrl: string | null;
  cursor: string | null;
  items: WatchlistItem[];
}

export interface WatchlistDeps {
  dataDir: string;
  client: () => RetailSignalClient | null;
  serviceUrl: () => string | null;
  onUpdate: (view: WatchlistView) => void;
  notify?: (title: string, body: string) => void;
  now?: () => number;
}

export class Watchlist {
  private stored: Stored = { serviceUrl: null, cursor: null, items: [] };
  private follows: Follow[] = [];
  private tier: string | null = null;
  private followLimit: number | null = null;
  private lastPolledAt: string | null = null;
  private nextPollAt: number | null = null;
  private error: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  /** The saves of watchlist.json, one after another; stop() waits for the last. */
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  /**
   * Aborted by stop(): ends the feed and follow reads under way at once. stop() waits for a
   * poll, so without it a service that took the request and never answered held quit for the
   * request's whole deadline (15 s a page, five pages a poll).
   */
  private readonly stopping = new AbortController();

  private constructor(private readonly deps: WatchlistDeps) {}

  static async open(deps: WatchlistDeps): Promise<Watchlist> {
    const watchlist = new Watchlist(deps);
    try {
      watchlist.stored = JSON.parse(await readFile(join(deps.dataDir, 'watchlist.json'), 'utf8')) as Stored;
    } catch {
      // Nothing kept yet.
    }
    return watchlist;
  }

  private get now(): number {
    return (this.deps.now ?? Date.now)();
  }

  view(fresh: string[] = []): WatchlistView {
    return {
      follows: this.follows,
      items: this.stored.items,
      unread: this.stored.items.filter((item) => !item.read).length,
      tier: this.tier,
      followLimit: this.followLimit,
      lastPolledAt: this.lastPolledAt,
      nextPollAt: this.nextPollAt ? new Date(this.nextPollAt).toISOString() : null,
      error: this.error,
      fresh,
    };
  }

  /** Loads the follows and starts polling (again after a change of service). */
  async start(): Promise<WatchlistView> {
    const url = this.deps.serviceUrl();
    if (url && this.stored.serviceUrl && this.stored.serviceUrl !== url) {
      // Another service: its feed cursor means nothing here. Kept items stay readable.
      this.stored = { ...this.stored, serviceUrl: url, cursor: null };
    }
    await this.loadFollows();
    this.schedule(0);
    return this.view();
  }

  /**
   * Stops polling and resolves once a poll under way and every save are done: the read under
   * way is aborted, the items already read are on disk at quit, and nothing is written into the
   * data folder after this resolves.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopping.abort();
    await this.polling;
    await this.writing;
  }

  async follow(target: FollowTargetArgs): Promise<Result<WatchlistView>> {
    const client = this.deps.client();
    if (!client) return fail({ code: 'unavailable', message: 'The service is not connected yet.' });
    const created = await client.call('follow', { body: { target }, signal: this.stopping.signal }, 'a follow');
    if (!created.ok) return created;
    await this.loadFollows();
    this.schedule(0);
    return ok(this.publish());
  }

  async unfollow(id: string): Promise<Result<WatchlistView>> {
    const client = this.deps.client();
    if (!client) return fail({ code: 'unavailable', message: 'The service is not connected yet.' });
    const removed = await client.call('unfollow', { params: { id }, signal: this.stopping.signal }, 'an answer');
    if (!removed.ok && removed.error.code !== 'not_found') return removed;
    this.follows = this.follows.filter((follow) => follow.id !== id);
    return ok(this.publish());
  }

  markRead(ids?: string[]): WatchlistView {
    const wanted = ids ? new Set(ids) : null;
    this.stored.items = this.stored.items.map((item) => (!wanted || wanted.has(item.signal.id) ? { ...item, read: true } : item));
    void this.persist();
    return this.publish();
  }

  /** A read of the feed now (the user asked), unless a Retry-After is still running. */
  async refresh(): Promise<WatchlistView> {
    if (this.nextPollAt && this.error?.startsWith('Rate limited') && this.nextPollAt > this.now) return this.view();
    await this.poll();
    return this.view();
  }

  private async loadFollows(): Promise<void> {
    const client = this.deps.client();
    if (!client) return;
    const listed = await client.call('listFollows', { signal: this.stopping.signal }, 'the follows');
    if (this.stopped) return;
    if (listed.ok) {
      this.follows = listed.value.follows;
      this.tier = listed.value.tier ?? null;
      this.followLimit = listed.value.limit ?? null;
      this.error = null;
    } else {
      this.error = listed.error.message;
    }
  }

  /** Spacing between polls so background reads stay inside the tier's hourly budget. */
  private pollInterval(): number {
    const perHour = FEED_READS_PER_HOUR[this.tier ?? 'free'] ?? FEED_READS_PER_HOUR.free!;
    return Math.max(MIN_POLL_MS, Math.ceil(3_600_000 / (perHour * BUDGET_SHARE)));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextPollAt = this.now + delayMs;
    this.timer = setTimeout(() => void this.poll(), delayMs);
    this.timer.unref?.();
  }

  private poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    const client = this.deps.client();
    // No follows known yet (or a credential arrived since): ask the service again.
    if (client && this.follows.length === 0) await this.loadFollows();
    if (!client || this.follows.length === 0) {
      this.schedule(this.pollInterval());
      return;
    }
    const fresh: string[] = [];
    let delay = this.pollInterval();
    for (let page = 0; page < 5; page += 1) {
      const query = this.stored.cursor ? new URLSearchParams({ cursor: this.stored.cursor }) : undefined;
      const read = await client.call('followFeed', { query, signal: this.stopping.signal }, 'a feed');
      // Stopped while reading (quit): the pages read before are kept below; this one is not an error.
      if (this.stopped && !read.ok) break;
      this.lastPolledAt = new Date(this.now).toISOString();
      if (!read.ok) {
        if (read.error.retryAfterS !== undefined && read.error.status === 429) {
          // Honour Retry-After: not one request before it has passed.
          delay = Math.max(delay, read.error.retryAfterS * 1000);
          this.error = `Rate limited: the next read is in ${read.error.retryAfterS} s.`;
        } else {
          this.error = `Could not read the feed: ${read.error.message}`;
        }
        break;
      }
      this.error = null;
      const known = new Set(this.stored.items.map((item) => item.signal.id));
      const added = read.value.items
        .filter((item) => !known.has(item.signal.id))
        .map((item): WatchlistItem => ({ signal: item.signal, matched: item.matched, arrivedAt: item.arrived_at, read: false }));
      fresh.push(...added.map((item) => item.signal.id));
      this.stored = { serviceUrl: this.deps.serviceUrl(), cursor: read.value.next_cursor, items: [...added.reverse(), ...this.stored.items].slice(0, ITEMS_KEPT) };
      if (!read.value.has_more) break;
    }
    if (fresh.length > 0) {
      await this.persist();
      const first = this.stored.items.find((item) => item.signal.id === fresh[0]);
      // At quit they are saved, unread, and shown at the next start; no notification now.
      if (!this.stopped) this.deps.notify?.(`${fresh.length} new on your watchlist`, first?.signal.title ?? '');
    }
    this.publish(fresh);
    this.schedule(delay);
  }

  private publish(fresh: string[] = []): WatchlistView {
    const view = this.view(fresh);
    this.deps.onUpdate(view);
    return view;
  }

  /** Saves the items as they are now; saves are chained, so a fire-and-forget one is still awaited by stop(). */
  private persist(): Promise<void> {
    const text = JSON.stringify(this.stored);
    this.writing = this.writing.then(async () => {
      try {
        await mkdir(this.deps.dataDir, { recursive: true });
        await writeFileAtomic(join(this.deps.dataDir, 'watchlist.json'), text, { mode: 0o600 });
      } catch {
        this.error = 'The watchlist could not be saved to the data folder; new items are kept until the app closes.';
      }
    });
    return this.writing;
  }
}
