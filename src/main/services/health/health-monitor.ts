/**
 * Watches the sources-health snapshot: refreshes on the snapshot's own cache lifetime (never
 * faster), revalidates with its ETag, keeps a history (trends, sparklines, health timelines)
 * in `<dataDir>/health/history.json`, marks what changed since the previous snapshot, and
 * keeps the last good snapshot, marked stale, while the service cannot be reached. On errors it
 * backs off (10 s doubling to 5 min); on a 429 it waits as long as `Retry-After` says.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { SOURCE_TEXT_COLLATOR, type HealthView, type ReadHealthSnapshot as HealthSnapshot, type ShownHealth as SourceHealth, type SourceRow, type StatsPoint } from '../../../shared/health';
import type { RetailSignalClient } from '../service-client/api-client';
import { loggerFor } from '../../logging/logger';

const log = loggerFor('health');

const HISTORY_POINTS = 48;
const MIN_INTERVAL_S = 5;
/** After a failed refresh: 10 s, doubling per further failure, at most 5 minutes. */
export const ERROR_BACKOFF_S = { first: 10, max: 300 } as const;

interface SourceHistory {
  items: number[];
  timeline: Array<{ at: string; health: SourceHealth }>;
}

interface StoredHistory {
  serviceUrl: string | null;
  stats: StatsPoint[];
  sources: Record<string, SourceHistory>;
}

export interface HealthMonitorDeps {
  dataDir: string;
  client: () => RetailSignalClient | null;
  onUpdate: (view: HealthView) => void;
  now?: () => number;
}

export class HealthMonitor {
  private snapshot: HealthSnapshot | null = null;
  private previous: Map<string, { health: SourceHealth; items: number }> | null = null;
  private etag: string | null = null;
  private history: StoredHistory = { serviceUrl: null, stats: [], sources: {} };
  private nameRanks: { snapshot: HealthSnapshot; ranks: Map<string, number> } | null = null;
  private view: HealthView = { snapshot: null, rows: [], statsHistory: [], generatedAt: null, fetchedAt: null, lastSuccessAt: null, stale: false, error: null, nextRefreshAt: null, serviceUrl: null };
  private timer: NodeJS.Timeout | null = null;
  private watchers = 0;
  private refreshing: Promise<void> | null = null;
  private stopped = false;
  /** Aborted by stop(): a refresh under way ends at once instead of at its 8 s deadline. */
  private readonly stopping = new AbortController();
  private failures = 0;

  private constructor(private readonly deps: HealthMonitorDeps) {}

  static async open(deps: HealthMonitorDeps): Promise<HealthMonitor> {
    const monitor = new HealthMonitor(deps);
    try {
      monitor.history = JSON.parse(await readFile(join(deps.dataDir, 'health', 'history.json'), 'utf8')) as StoredHistory;
    } catch {
      // No history yet.
    }
    return monitor;
  }

  current(): HealthView {
    return this.view;
  }

  /** The health view is watched while open; refreshes run only while someone watches. */
  watch(): HealthView {
    this.watchers += 1;
    if (!this.snapshot || this.due()) void this.refresh();
    else this.schedule();
    return this.view;
  }

  unwatch(): void {
    this.watchers = Math.max(0, this.watchers - 1);
    if (this.watchers === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /**
   * Stops refreshing; resolves when a refresh under way (and its history write) is done. Its
   * request is aborted: a snapshot that has arrived is still kept, one not yet come is not waited for.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopping.abort();
    await this.refreshing?.catch(() => undefined);
  }

  /** The service changed (another URL): start a fresh history. */
  reset(): void {
    this.snapshot = null;
    this.previous = null;
    this.etag = null;
    this.failures = 0;
    this.view = { ...this.view, snapshot: null, rows: [], stale: false, error: null };
    if (this.watchers > 0) void this.refresh();
  }

  /**
   * The service answers again: a refresh that failed while it was away (now waiting out its
   * back-off, up to 5 minutes) is tried at once, so the open view does not keep the old error.
   */
  serviceReady(): void {
    if (this.view.error === null || this.watchers === 0 || this.stopped) return;
    this.failures = 0;
    void this.refresh();
  }

  private due(): boolean {
    return !this.view.nextRefreshAt || Date.parse(this.view.nextRefreshAt) <= this.now();
  }

  private schedule(): void {
    if (this.stopped || this.watchers === 0 || !this.view.nextRefreshAt) return;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Date.parse(this.view.nextRefreshAt) - this.now());
    this.timer = setTimeout(() => void this.refresh(), wait);
  }

  async refresh(): Promise<void> {
    // Stopped: no new refresh, so none writes the history after stop() has resolved.
    if (this.stopped) return this.refreshing ?? undefined;
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const client = this.deps.client();
    const fetchedAt = new Date(this.now()).toISOString();
    if (!client) {
      this.publish({ stale: this.snapshot !== null, error: 'The service is not ready.', nextRefreshAt: new Date(this.now() + MIN_INTERVAL_S * 1000).toISOString() });
      this.schedule();
      return;
    }
    if (this.history.serviceUrl !== client.baseUrl) {
      // The embedded service comes back on another port with the same sources: keep history
      // if the roster matches, which the first snapshot will tell.
      this.history.serviceUrl = client.baseUrl;
    }
    const result = await client.getHealth(this.etag, undefined, this.stopping.signal);
    // Stopped meanwhile (quit): nothing to show or schedule; the history keeps what it had.
    if (!result.ok && this.stopped) return;
    if (!result.ok) {
      this.failures += 1;
      const backoffS = Math.min(ERROR_BACKOFF_S.max, ERROR_BACKOFF_S.first * 2 ** (this.failures - 1));
      // A 429 says how long to wait; never sooner than that, never sooner than the backoff.
      const waitS = Math.max(backoffS, result.error.retryAfterS ?? 0);
      this.publish({ stale: this.snapshot !== null, error: result.error.message, nextRefreshAt: new Date(this.now() + waitS * 1000).toISOString() });
      this.schedule();
      return;
    }
    this.failures = 0;
    const next = new Date(this.now() + Math.max(MIN_INTERVAL_S, result.value.maxAgeS) * 1000).toISOString();
    if (result.value.kind === 'not-modified') {
      this.publish({ stale: false, error: null, fetchedAt, lastSuccessAt: fetchedAt, nextRefreshAt: next });
      this.schedule();
      return;
    }
    this.etag = result.value.etag;
    this.ingest(result.value.snapshot, fetchedAt);
    this.publish({ stale: false, error: null, fetchedAt, lastSuccessAt: fetchedAt, nextRefreshAt: next, serviceUrl: client.baseUrl });
    this.schedule();
    await this.saveHistory();
  }

  private ingest(snapshot: HealthSnapshot, fetchedAt: string): void {
    const before = this.snapshot ? new Map(this.snapshot.sources.map((s) => [s.id, { health: s.health, items: s.items_24h }])) : null;
    this.previous = before;
    this.snapshot = snapshot;
    const at = snapshot.generated_at ?? fetchedAt;
    this.history.stats = [
      ...this.history.stats,
      { at, healthy: snapshot.stats.healthy, degraded: snapshot.stats.degraded, down: snapshot.stats.down, itemsPerHour: snapshot.stats.items_per_hour, signals24h: snapshot.stats.signals_24h, missRate: snapshot.oracle.miss_rate },
    ].slice(-HISTORY_POINTS);
    for (const source of snapshot.sources) {
      const history = (this.history.sources[source.id] ??= { items: [], timeline: [] });
      history.items = [...history.items, source.items_24h].slice(-HISTORY_POINTS);
      const last = history.timeline[history.timeline.length - 1];
      if (!last || last.health !== source.health) history.timeline = [...history.timeline, { at, health: source.health }].slice(-HISTORY_POINTS);
    }
  }

  private rows(): SourceRow[] {
    if (!this.snapshot) return [];
    const nameRanks = this.nameRanksOf(this.snapshot);
    return this.snapshot.sources.map((source) => {
      const history = this.history.sources[source.id];
      const before = this.previous?.get(source.id);
      let change: SourceRow['change'] = null;
      if (this.previous && !before) change = { isNew: true };
      else if (before && (before.health !== source.health || before.items !== source.items_24h)) {
        change = {
          ...(before.health !== source.health ? { health: { from: before.health, to: source.health } } : {}),
          ...(before.items !== source.items_24h ? { itemsDelta: source.items_24h - before.items } : {}),
        };
      }
      return { ...source, itemsHistory: history?.items ?? [source.items_24h], healthTimeline: history?.timeline ?? [], change, nameRank: nameRanks.get(source.id)! };
    });
  }

  /** Each source's place in name order, collated once per snapshot (see SourceRow.nameRank). */
  private nameRanksOf(snapshot: HealthSnapshot): Map<string, number> {
    if (this.nameRanks?.snapshot !== snapshot) {
      const byName = [...snapshot.sources].sort((a, b) => SOURCE_TEXT_COLLATOR.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      this.nameRanks = { snapshot, ranks: new Map(byName.map((source, rank) => [source.id, rank])) };
    }
    return this.nameRanks.ranks;
  }

  private publish(patch: Partial<HealthView>): void {
    this.view = {
      ...this.view,
      ...patch,
      snapshot: this.snapshot ? { generated_at: this.snapshot.generated_at, stats: this.snapshot.stats, oracle: this.snapshot.oracle, health_rule: this.snapshot.health_rule ?? null } : null,
      rows: this.rows(),
      statsHistory: this.history.stats,
      generatedAt: this.snapshot?.generated_at ?? null,
    };
    this.deps.onUpdate(this.view);
  }

  private async saveHistory(): Promise<void> {
    const dir = join(this.deps.dataDir, 'health');
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(join(dir, 'history.json'), JSON.stringify(this.history), { mode: 0o600 });
    } catch (error) {
      log.error('could not save history', error);
    }
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}
