/**
 * Research runs: v1 holds the request until the report is ready; v2 answers `queued` at once
 * and moves the run through queued → running → completed | failed, polled by id.
 * A duration setting simulates the real 30–90 s of the standard preset.
 *
 * Runs live in the service's database, which is also the v2 queue: each process's worker claims
 * the next due run with `FOR UPDATE SKIP LOCKED`, so on a team server a run is taken by exactly
 * one worker; a run whose worker died (kill -9) is taken again when its lease runs out (at once
 * on an embedded database, which only this process can open).
 */
import { randomBytes } from 'node:crypto';
import type { CorpusSignal } from '../world/signal-types';
import type { SignalStore } from '../signal-store';
import type { Database } from '../store/database';
import { buildReport } from './report-builder';

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface ResearchRunRecord {
  id: string;
  owner: string;
  topic: string;
  preset: string;
  status: RunStatus;
  createdAt: string;
  completedAt: string | null;
  markdown: string | null;
  citations: CorpusSignal[];
  costUsd: number;
  error: string | null;
}

export interface ResearchTiming {
  /** How long a run takes from running to completed. */
  durationMs: number;
  /** How long a v2 run waits in the queue before it starts. */
  queueMs: number;
}

interface RunRow {
  id: string;
  owner: string;
  topic: string;
  preset: string;
  status: RunStatus;
  created_at: string;
  completed_at: string | null;
  markdown: string | null;
  citations: CorpusSignal[];
  cost_usd: number;
  error: string | null;
}

const runRecord = (row: RunRow): ResearchRunRecord => ({
  id: row.id,
  owner: row.owner,
  topic: row.topic,
  preset: row.preset,
  status: row.status,
  createdAt: row.created_at,
  completedAt: row.completed_at,
  markdown: row.markdown,
  citations: row.citations,
  costUsd: row.cost_usd,
  error: row.error,
});

/** A claimed run's lease beyond its duration: a worker silent this long is taken for dead. */
const LEASE_MARGIN_MS = 60_000;

export class ResearchRuns {
  private readonly settledListeners = new Set<(run: ResearchRunRecord) => void>();
  private readonly worker = `wrk_${randomBytes(6).toString('hex')}`;
  private pollTimer: NodeJS.Timeout | null = null;
  private polling = false;
  private closed = false;
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly store: SignalStore,
    private readonly timing: ResearchTiming,
    private readonly now: () => number,
    private readonly db: Database,
  ) {}

  /**
   * Starts this process's queue worker. On an embedded database runs a restart interrupted are
   * queued again at once (no other process can be working on them).
   */
  async restore(): Promise<void> {
    if (this.db.kind === 'embedded') await this.db.query("UPDATE research_runs SET status = 'queued', claimed_by = NULL, lease_until_ms = NULL, run_after_ms = $1 WHERE status = 'running'", [Date.now()]);
    const every = Math.max(20, Math.min(250, this.timing.queueMs));
    this.pollTimer = setInterval(() => this.poll(), every);
    this.pollTimer.unref();
    this.poll();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await Promise.allSettled([...this.running]);
  }

  /** Called when a run completes or fails (webhook `research.completed`); returns its undo. */
  onSettled(listener: (run: ResearchRunRecord) => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  async get(id: string): Promise<ResearchRunRecord | undefined> {
    const [row] = await this.db.query<RunRow>('SELECT * FROM research_runs WHERE id = $1', [id]);
    return row ? runRecord(row) : undefined;
  }

  /**
   * Stores a new run: `queued` for the workers (v2), or `running`, held by this process, for a
   * caller that waits for it (v1: then call `execute`).
   */
  async create(owner: string, topic: string, preset: string, options: { queued: boolean }): Promise<ResearchRunRecord> {
    const run: ResearchRunRecord = {
      id: `rsr_${randomBytes(8).toString('hex')}`,
      owner,
      topic,
      preset,
      status: options.queued ? 'queued' : 'running',
      createdAt: new Date(this.now()).toISOString(),
      completedAt: null,
      markdown: null,
      citations: [],
      costUsd: 0,
      error: null,
    };
    const wall = Date.now();
    await this.db.query(
      `INSERT INTO research_runs (id, owner, topic, preset, status, created_at, run_after_ms, claimed_by, lease_until_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [run.id, owner, topic, preset, run.status, run.createdAt, wall + (options.queued ? this.timing.queueMs : 0), options.queued ? null : this.worker, options.queued ? null : wall + this.timing.durationMs + LEASE_MARGIN_MS],
    );
    if (options.queued) setTimeout(() => this.poll(), this.timing.queueMs + 5).unref();
    return run;
  }

  /** Runs a claimed run to the end and stores the outcome (v1 awaits this). */
  async execute(run: ResearchRunRecord, options: { signal?: AbortSignal } = {}): Promise<ResearchRunRecord> {
    await sleep(this.timing.durationMs, options.signal);
    if (options.signal?.aborted) {
      run.status = 'failed';
      run.error = 'The request was cancelled before the report was ready.';
    } else {
      const hits = this.store.index.search(run.topic, { now: this.now(), limit: 200 });
      const report = buildReport(run.topic, hits, this.store.sourcesById, { facts: this.store.facts, now: this.now(), isKnownWord: (word) => this.store.index.hasTerm(word), healthOf: this.store.healthOf });
      if (!report) {
        run.status = 'failed';
        run.error = 'Too few signals match this topic to write a report. Name a retailer, a segment or a city.';
      } else {
        run.status = 'completed';
        run.markdown = report.markdown;
        run.citations = report.citations;
        run.costUsd = report.costUsd;
      }
    }
    run.completedAt = new Date(this.now()).toISOString();
    await this.db.query(
      `UPDATE research_runs SET status = $2, completed_at = $3, markdown = $4, citations = $5, cost_usd = $6, error = $7, lease_until_ms = NULL
       WHERE id = $1 AND claimed_by = $8`,
      [run.id, run.status, run.completedAt, run.markdown, JSON.stringify(run.citations), run.costUsd, run.error, this.worker],
    );
    if (!options.signal?.aborted) for (const listener of this.settledListeners) listener(run);
    return run;
  }

  /** Claims due runs (one at a time, skipping rows another worker holds) and executes them. */
  private poll(): void {
    if (this.polling || this.closed) return;
    this.polling = true;
    const work = (async () => {
      try {
        for (;;) {
          if (this.closed) return;
          const wall = Date.now();
          const [row] = await this.db.query<RunRow>(
            `UPDATE research_runs SET status = 'running', claimed_by = $2, lease_until_ms = $3
             WHERE id = (
               SELECT id FROM research_runs
               WHERE (status = 'queued' AND run_after_ms <= $1) OR (status = 'running' AND lease_until_ms < $1)
               ORDER BY run_after_ms LIMIT 1 FOR UPDATE SKIP LOCKED)
             RETURNING *`,
            [wall, this.worker, wall + this.timing.durationMs + LEASE_MARGIN_MS],
          );
          if (!row) return;
          const execution = this.execute(runRecord(row));
          this.running.add(execution);
          void execution.catch(() => undefined).finally(() => this.running.delete(execution));
        }
      } catch {
        // The database is unavailable: the next tick tries again.
      } finally {
        this.polling = false;
      }
    })();
    void work;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
