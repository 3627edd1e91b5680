/**
 * Scheduling fetches: which sources are due (the longest overdue first), one request at a time per
 * host with a minimum interval between them — across all processes of a team server, a lease in the
 * database (withHostSlot, decision 0040) — and each source fetched by one process at a time.
 */
import type { FeedRepository, SourceState } from './feed-repository';
import { sleep } from './source-reader';
import type { FeedSourceRecord } from './source-registry';

/** How long a fetch lease lasts unrenewed; renewed every third of it while the fetch runs. */
export const LEASE_MS = 60_000;
/** A "fetch now" waiting for its host's slot (another process's request in flight) looks again this often. */
const HOST_SLOT_POLL_MS = 100;

export interface SchedulerHost {
  repository: FeedRepository;
  /** Names this process in leases. */
  owner: string;
  now: () => number;
  politeIntervalMs: number;
  isClosed(): boolean;
  sources(): Iterable<FeedSourceRecord>;
  stateOf(id: string): SourceState;
  /** Another process holds the source's lease: its stored state is read instead. */
  keep(source: FeedSourceRecord, state: SourceState): void;
  /** Fetches and stores; resolves with the host's rest (the politeness interval, or a 429/503's wait). */
  fetchAndIngest(source: FeedSourceRecord, before: SourceState): Promise<number>;
}

export class FetchScheduler {
  readonly inFlight = new Map<string, Promise<void>>();
  private readonly hostBusy = new Set<string>();
  private readonly hostLastAt = new Map<string, number>();

  constructor(private readonly host: SchedulerHost) {}

  /** Starts a fetch of every due source whose host is free. */
  tick(): void {
    const now = this.host.now();
    const polite = this.host.politeIntervalMs;
    // The longest overdue first: a host's turn goes to the source that has waited longest, so
    // sources sharing a busy host (one request at a time, team-wide) take turns, none starves.
    const due: Array<{ source: FeedSourceRecord; at: number }> = [];
    for (const source of this.host.sources()) {
      if (source.paused || this.inFlight.has(source.id)) continue;
      const next = this.host.stateOf(source.id).next_fetch_at;
      const at = next ? Date.parse(next) : 0;
      if (at <= now) due.push({ source, at });
    }
    for (const { source } of due.sort((x, y) => x.at - y.at)) {
      const host = hostOf(source.url);
      if (this.hostBusy.has(host) || now - (this.hostLastAt.get(host) ?? 0) < polite) continue;
      void this.run(source, false);
    }
  }

  run(source: FeedSourceRecord, force: boolean): Promise<void> {
    const running = this.inFlight.get(source.id);
    if (running) return running;
    const host = hostOf(source.url);
    this.hostBusy.add(host);
    const done = this.withHostSlot(host, force, () => this.claimAndFetch(source, force))
      .catch(() => undefined)
      .finally(() => {
        this.hostBusy.delete(host);
        this.hostLastAt.set(host, this.host.now());
        this.inFlight.delete(source.id);
      });
    this.inFlight.set(source.id, done);
    return done;
  }

  /**
   * Runs `fetch` holding the host's slot, which a team server's processes share (decision 0040):
   * one request per host in flight for all of them. A scheduled fetch that finds the slot taken
   * (or the host resting) is tried again at a later tick; a "fetch now" waits for the request in
   * flight, up to a lease's length. The slot is freed with the host's rest: the politeness
   * interval after a request, or what a 429/503 asked for (Retry-After, else the backoff).
   */
  private async withHostSlot(host: string, force: boolean, fetch: () => Promise<number>): Promise<void> {
    const { repository, owner } = this.host;
    const waitUntil = Date.now() + LEASE_MS;
    while (!(await repository.claimHost(host, owner, Date.now(), Date.now() + LEASE_MS, force))) {
      if (!force || this.host.isClosed() || Date.now() > waitUntil) return;
      await sleep(HOST_SLOT_POLL_MS);
    }
    const renew = setInterval(() => void repository.renewHost(host, owner, Date.now() + LEASE_MS).catch(() => undefined), LEASE_MS / 3);
    renew.unref();
    let restMs = 0;
    try {
      restMs = await fetch();
    } finally {
      clearInterval(renew);
      await repository.releaseHost(host, owner, Date.now() + restMs).catch(() => undefined);
    }
  }

  /**
   * Takes the source's fetch lease (no other process is fetching it, and it is still due there),
   * fetches it and stores the outcome. Without the lease, the stored state is read instead.
   * Resolves with how long the host should rest before its next request (0: none was made).
   */
  private async claimAndFetch(source: FeedSourceRecord, force: boolean): Promise<number> {
    const { repository, owner } = this.host;
    const state = await repository.claim(source.id, owner, this.host.now(), Date.now() + LEASE_MS, force);
    if (!state) {
      const stored = await repository.loadSource(source.id);
      if (stored) this.host.keep(stored.source, stored.state);
      return 0;
    }
    const renew = setInterval(() => void repository.renewLease(source.id, owner, Date.now() + LEASE_MS).catch(() => undefined), LEASE_MS / 3);
    renew.unref();
    try {
      return await this.host.fetchAndIngest(source, state);
    } finally {
      clearInterval(renew);
    }
  }
}

/** Requests are spaced per host; a folder's files are one "host". */
export function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' ? 'file:' : parsed.host;
  } catch {
    return url;
  }
}
