/**
 * Research runs: v1 holds the request until the report is ready; v2 answers `queued` at once
 * and moves the run through queued → running → completed | failed, polled by id.
 * A duration setting simulates the real 30–90 s of the standard preset.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { CorpusSignal } from '../corpus/generator';
import type { SignalStore } from '../signal-store';
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

export class ResearchRuns {
  private readonly runs = new Map<string, ResearchRunRecord>();
  private writing: Promise<void> = Promise.resolve();
  private readonly settledListeners = new Set<(run: ResearchRunRecord) => void>();

  constructor(
    private readonly store: SignalStore,
    private readonly timing: ResearchTiming,
    private readonly now: () => number,
    /** Where runs are kept across restarts (a durable queue); null keeps them in memory. */
    private readonly dataDir: string | null = null,
  ) {}

  /** Loads kept runs and resumes the ones a restart interrupted. */
  async restore(): Promise<void> {
    if (!this.dataDir) return;
    let stored: ResearchRunRecord[] = [];
    try {
      stored = JSON.parse(await readFile(join(this.dataDir, 'research-runs.json'), 'utf8')) as ResearchRunRecord[];
    } catch {
      return;
    }
    for (const run of stored) {
      this.runs.set(run.id, run);
      if (run.status === 'queued' || run.status === 'running') {
        run.status = 'queued';
        void this.execute(run, { queued: true });
      }
    }
  }

  private persist(): Promise<void> {
    if (!this.dataDir) return Promise.resolve();
    const dir = this.dataDir;
    const runs = [...this.runs.values()].slice(-500);
    this.writing = this.writing
      .then(async () => {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await writeFileAtomic(join(dir, 'research-runs.json'), JSON.stringify(runs), { mode: 0o600 });
      })
      .catch(() => undefined);
    return this.writing;
  }

  /** Called when a run completes or fails (webhook `research.completed`); returns its undo. */
  onSettled(listener: (run: ResearchRunRecord) => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  get(id: string): ResearchRunRecord | undefined {
    return this.runs.get(id);
  }

  create(owner: string, topic: string, preset: string): ResearchRunRecord {
    const run: ResearchRunRecord = {
      id: `rsr_${randomBytes(8).toString('hex')}`,
      owner,
      topic,
      preset,
      status: 'queued',
      createdAt: new Date(this.now()).toISOString(),
      completedAt: null,
      markdown: null,
      citations: [],
      costUsd: 0,
      error: null,
    };
    this.runs.set(run.id, run);
    void this.persist();
    return run;
  }

  /** Runs to the end (v1 awaits this; v2 fires it and returns). */
  async execute(run: ResearchRunRecord, options: { queued: boolean; signal?: AbortSignal }): Promise<ResearchRunRecord> {
    if (options.queued) await sleep(this.timing.queueMs, options.signal);
    run.status = 'running';
    void this.persist();
    await sleep(this.timing.durationMs, options.signal);
    if (options.signal?.aborted) {
      run.status = 'failed';
      run.error = 'The request was cancelled before the report was ready.';
      void this.persist();
      return run;
    }
    const hits = this.store.index.search(run.topic, { now: this.now(), limit: 200 });
    const report = buildReport(run.topic, hits, this.store.sourcesById, { facts: this.store.facts, now: this.now(), isKnownWord: (word) => this.store.index.hasTerm(word) });
    run.completedAt = new Date(this.now()).toISOString();
    if (!report) {
      run.status = 'failed';
      run.error = 'Too few signals match this topic to write a report. Name a retailer, a segment or a city.';
    } else {
      run.status = 'completed';
      run.markdown = report.markdown;
      run.citations = report.citations;
      run.costUsd = report.costUsd;
    }
    await this.persist();
    for (const listener of this.settledListeners) listener(run);
    return run;
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
