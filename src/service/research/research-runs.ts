/**
 * Research runs: v1 holds the request until the report is ready; v2 answers `queued` at once
 * and moves the run through queued → running → completed | failed, polled by id, its
 * `progress` ({stage, done, total}) stored as it works (report-writer.ts does the work).
 * `durationMs` (tests, `--research-ms`) is a least duration spread over the stages, for tests
 * that watch a run in flight; by default a run takes what its work takes.
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
import type { ComposerName, ComposerSettings, SupportSpan } from '../answers/answer-pipeline';
import type { Verification } from '../answers/claim-verifier';
import type { ModelUsage } from '../answers/model-composer';
import type { FigureSeries } from './report-builder';
import { topicKey, type ReportChanges, type RunSnapshot } from './report-changes';
import { writeReport, type Progress } from './report-writer';
import { DEFAULT_TIME_ZONE } from '../world/time-zone';

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
  /** Null when a model wrote it and the operator set no prices. */
  costUsd: number | null;
  error: string | null;
  progress: Progress | null;
  details: RunDetails | null;
  /** Set when a schedule started the run. */
  scheduleId: string | null;
}

/** What a finished run's report carries beyond its markdown (the `details` column). */
export interface RunDetails {
  verification: Verification;
  support: SupportSpan[];
  composer: ComposerName;
  cost_basis: 'local' | 'model_usage';
  usage: ModelUsage | null;
  series: FigureSeries[];
  sections: Array<{ key: string; title: string }>;
  changes: ReportChanges | null;
  snapshot: RunSnapshot;
}

export interface ResearchTiming {
  /** A run's least duration from running to completed (tests; 0 = as long as its work takes). */
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
  cost_usd: number | null;
  error: string | null;
  progress: Progress | null;
  details: RunDetails | null;
  schedule_id: string | null;
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
  progress: row.progress,
  details: row.details,
  scheduleId: row.schedule_id,
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

  /**
   * The time zone each run was asked in (the request's `time_zone`), for its report's dates. Held
   * by the process that took the request: a run another process or a restart picks up is written
   * in the service's own zone (decision 0036).
   */
  private readonly timeZones = new Map<string, string>();

  constructor(
    private readonly store: SignalStore,
    private readonly timing: ResearchTiming,
    private readonly now: () => number,
    private readonly db: Database,
    private readonly settings: () => ComposerSettings,
    /** The analyst's zone when a request names none (`--time-zone`). */
    private readonly timeZone: string = DEFAULT_TIME_ZONE,
  ) {}

  /**
   * Starts this process's queue worker. On an embedded database runs a restart interrupted are
   * queued again at once (no other process can be working on them).
   */
  async restore(): Promise<void> {
    if (this.db.kind === 'embedded') await this.db.query("UPDATE research_runs SET status = 'queued', claimed_by = NULL, lease_until_ms = NULL, run_after_ms = $1 WHERE status = 'running'", [Date.now()]);
    // New runs are polled for at once (create); this tick finds other processes' runs and lapsed leases.
    const every = Math.max(20, Math.min(250, this.timing.queueMs || 250));
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
  async create(owner: string, topic: string, preset: string, options: { queued: boolean; scheduleId?: string; timeZone?: string }): Promise<ResearchRunRecord> {
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
      progress: null,
      details: null,
      scheduleId: options.scheduleId ?? null,
    };
    if (options.timeZone) this.timeZones.set(run.id, options.timeZone);
    const wall = Date.now();
    await this.db.query(
      `INSERT INTO research_runs (id, owner, topic, preset, status, created_at, run_after_ms, claimed_by, lease_until_ms, topic_key, schedule_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [run.id, owner, topic, preset, run.status, run.createdAt, wall + (options.queued ? this.timing.queueMs : 0), options.queued ? null : this.worker, options.queued ? null : wall + this.timing.durationMs + LEASE_MARGIN_MS, topicKey(topic), run.scheduleId],
    );
    if (options.queued) setTimeout(() => this.poll(), this.timing.queueMs + 5).unref();
    return run;
  }

  /** The caller's last completed run of the same topic, before this one: what "changes" compare with. */
  private async previousOf(run: ResearchRunRecord): Promise<{ id: string; createdAt: string; snapshot: RunSnapshot } | null> {
    const [row] = await this.db.query<{ id: string; created_at: string; details: RunDetails | null }>(
      `SELECT id, created_at, details FROM research_runs
       WHERE owner = $1 AND topic_key = $2 AND status = 'completed' AND id <> $3 AND created_at <= $4 AND details IS NOT NULL
       ORDER BY completed_at DESC LIMIT 1`,
      [run.owner, topicKey(run.topic), run.id, run.createdAt],
    );
    return row?.details?.snapshot ? { id: row.id, createdAt: row.created_at, snapshot: row.details.snapshot } : null;
  }

  /** Runs a claimed run to the end and stores the outcome (v1 awaits this). */
  async execute(run: ResearchRunRecord, options: { signal?: AbortSignal } = {}): Promise<ResearchRunRecord> {
    // Tests' least duration (`--research-ms`), spread over the four working stages.
    const pace = this.timing.durationMs / 4;
    let stage: Progress['stage'] | null = null;
    const progress = async (next: Progress): Promise<void> => {
      const entered = next.stage !== stage;
      stage = next.stage;
      run.progress = next;
      await this.db.query('UPDATE research_runs SET progress = $2 WHERE id = $1 AND claimed_by = $3', [run.id, JSON.stringify(next), this.worker]);
      // Each working stage stays visible for its share of the least duration.
      if (pace > 0 && entered && next.stage !== 'done') await sleep(pace, options.signal);
    };
    try {
      const report = await writeReport({
        topic: run.topic,
        preset: run.preset,
        store: this.store,
        settings: this.settings(),
        now: this.now(),
        timeZone: this.timeZones.get(run.id) ?? this.timeZone,
        previous: await this.previousOf(run),
        progress,
        ...(options.signal ? { abort: options.signal } : {}),
      });
      this.timeZones.delete(run.id);
      if (options.signal?.aborted) {
        run.status = 'failed';
        run.error = 'The request was cancelled before the report was ready.';
      } else if (!report) {
        run.status = 'failed';
        run.error = 'Too few signals match this topic to write a report. Name a retailer, a segment or a city.';
      } else {
        run.status = 'completed';
        run.markdown = report.markdown;
        run.citations = report.citations;
        run.costUsd = report.costUsd;
        run.details = {
          verification: report.verification,
          support: report.support,
          composer: report.composer,
          cost_basis: report.costBasis,
          usage: report.usage,
          series: report.series,
          sections: report.sections,
          changes: report.changes,
          snapshot: report.snapshot,
        };
      }
    } catch (error) {
      run.status = 'failed';
      run.error = options.signal?.aborted ? 'The request was cancelled before the report was ready.' : `The research run failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    run.completedAt = new Date(this.now()).toISOString();
    if (run.status === 'completed') run.progress = { stage: 'done', done: 1, total: 1 };
    await this.db.query(
      `UPDATE research_runs SET status = $2, completed_at = $3, markdown = $4, citations = $5, cost_usd = $6, error = $7, lease_until_ms = NULL, progress = $9, details = $10
       WHERE id = $1 AND claimed_by = $8`,
      [run.id, run.status, run.completedAt, run.markdown, JSON.stringify(run.citations), run.costUsd, run.error, this.worker, JSON.stringify(run.progress), run.details ? JSON.stringify(run.details) : null],
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
