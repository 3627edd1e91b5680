/**
 * Research runs, kept by the main process in `<dataDir>/research/`: v1 runs are held here
 * (the renderer stays free and can cancel); queued (v2) runs are polled with capped backoff
 * and polling resumes after a restart. Finished reports are stored with a snapshot of every
 * cited signal, so they open offline.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { CITATION_MARKER } from '../../shared/cite-format';
import { citationSnapshotOf } from '../../shared/citation';
import type { CitationSnapshot } from '../../shared/conversation';
import type { Signal } from '../../shared/service-schemas';
import { ResearchRunSummarySchema, StoredReportSchema, type ResearchMode, type ResearchRunSummary, type StoredReport } from '../../shared/research';
import type { RetailSignalClient } from './api-client';
import { loggerFor } from '../logging/logger';

const log = loggerFor('research');

const POLL_MIN_MS = 1_000;
const POLL_MAX_MS = 15_000;

/** The path (and query) of a service URL, to resolve against the current base URL. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

export interface ResearchServiceDeps {
  dataDir: string;
  client: () => RetailSignalClient | null;
  onUpdate: (run: ResearchRunSummary) => void;
  /** Tells the user a report is ready (system notification in Electron). */
  notify?: (title: string, body: string) => void;
  now?: () => number;
  pollMinMs?: number;
}

export class ResearchService {
  private readonly runs = new Map<string, ResearchRunSummary>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly dir: string;
  private writing: Promise<void> = Promise.resolve();
  private disposed = false;

  private constructor(private readonly deps: ResearchServiceDeps) {
    this.dir = join(deps.dataDir, 'research');
  }

  static async open(deps: ResearchServiceDeps): Promise<ResearchService> {
    const service = new ResearchService(deps);
    await mkdir(join(service.dir, 'reports'), { recursive: true, mode: 0o700 });
    try {
      const stored = z.array(ResearchRunSummarySchema).parse(JSON.parse(await readFile(join(service.dir, 'runs.json'), 'utf8')));
      for (const run of stored) service.runs.set(run.id, run);
    } catch {
      // First run, or an unreadable file: start with no runs rather than not at all.
    }
    for (const run of service.runs.values()) {
      if (run.state === 'queued' && run.statusUrl) void service.poll(run);
      else if (run.state === 'starting' || run.state === 'running') {
        // A v1 request dies with the process that held it.
        service.update(run, { state: 'failed', finishedAt: service.iso(), error: 'The app stopped before the report arrived. Retry to run it again.' });
      }
    }
    return service;
  }

  dispose(): void {
    this.disposed = true;
    for (const controller of this.controllers.values()) controller.abort();
  }

  list(): ResearchRunSummary[] {
    return [...this.runs.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  start(topic: string, preset: string, mode: ResearchMode, serviceUrl: string): ResearchRunSummary {
    const run: ResearchRunSummary = {
      id: `run_${randomBytes(8).toString('hex')}`,
      topic,
      preset,
      mode,
      state: 'starting',
      remoteState: null,
      startedAt: this.iso(),
      finishedAt: null,
      costUsd: null,
      citationCount: null,
      error: null,
      remoteId: null,
      statusUrl: null,
      reportUrl: null,
      serviceUrl,
    };
    this.runs.set(run.id, run);
    this.update(run, {});
    void this.execute(run);
    return run;
  }

  retry(id: string): ResearchRunSummary | null {
    const run = this.runs.get(id);
    if (!run || (run.state !== 'failed' && run.state !== 'cancelled')) return null;
    this.update(run, { state: 'starting', error: null, startedAt: this.iso(), finishedAt: null, remoteState: null, statusUrl: null, reportUrl: null, costUsd: null, citationCount: null });
    void this.execute(run);
    return run;
  }

  cancel(id: string): ResearchRunSummary | null {
    const run = this.runs.get(id);
    if (!run || !['starting', 'running', 'queued'].includes(run.state)) return null;
    this.controllers.get(id)?.abort();
    this.update(run, { state: 'cancelled', finishedAt: this.iso(), error: null });
    return run;
  }

  async report(id: string): Promise<StoredReport | null> {
    try {
      return StoredReportSchema.parse(JSON.parse(await readFile(join(this.dir, 'reports', `${id}.json`), 'utf8')));
    } catch {
      return null;
    }
  }

  /** Completed reports that cite a source (for the health view's drill-down). */
  async reportsCiting(sourceId: string): Promise<ResearchRunSummary[]> {
    const found: ResearchRunSummary[] = [];
    for (const run of this.list()) {
      if (run.state !== 'completed') continue;
      const report = await this.report(run.id);
      if (report?.citations.some((citation) => citation.source_id === sourceId)) found.push(run);
    }
    return found;
  }

  private async execute(run: ResearchRunSummary): Promise<void> {
    const client = this.deps.client();
    if (!client) {
      this.update(run, { state: 'failed', finishedAt: this.iso(), error: 'The service is not ready. Retry when the status bar says ready.' });
      return;
    }
    const controller = new AbortController();
    this.controllers.set(run.id, controller);
    this.update(run, { state: run.mode === 'wait' ? 'running' : 'starting' });
    const started = await client.startResearch(run.topic, run.preset, { queue: run.mode === 'queue', signal: controller.signal });
    this.controllers.delete(run.id);
    if (this.runs.get(run.id)?.state === 'cancelled') return;
    if (!started.ok) {
      this.update(run, { state: 'failed', finishedAt: this.iso(), error: started.error.message });
      return;
    }
    if (started.value.kind === 'queued') {
      this.update(run, { state: 'queued', remoteState: 'queued', statusUrl: started.value.statusUrl, remoteId: started.value.remoteId });
      await this.poll(run);
      return;
    }
    await this.complete(run, client, started.value.reportUrl, started.value.costUsd, started.value.citationCount);
  }

  /** Polls a queued run with capped exponential backoff until it ends (or is cancelled). */
  private async poll(run: ResearchRunSummary): Promise<void> {
    let delay = this.deps.pollMinMs ?? POLL_MIN_MS;
    while (!this.disposed && run.state === 'queued' && run.statusUrl) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.disposed || run.state !== 'queued') return;
      const client = this.deps.client();
      if (!client) continue; // the service is (re)starting; try again later
      // Resolved against the service as it is now: the embedded one may have restarted on
      // another port since the run was queued.
      const status = await client.pollResearch(pathOf(run.statusUrl));
      if (!status.ok) {
        if (status.error.code === 'not_found' || status.error.code === 'unauthorized') {
          this.update(run, { state: 'failed', finishedAt: this.iso(), error: `The service no longer reports this run: ${status.error.message}` });
          return;
        }
        delay = Math.min(POLL_MAX_MS, delay * 2);
        continue;
      }
      const remote = status.value;
      if (remote.status === 'completed' && remote.report_url) {
        await this.complete(run, client, client.resolve(pathOf(client.resolve(remote.report_url))), remote.cost_usd ?? null, remote.citation_count ?? null);
        return;
      }
      if (remote.status === 'failed') {
        this.update(run, { state: 'failed', finishedAt: this.iso(), remoteState: 'failed', error: remote.error ?? 'The service could not complete this report.' });
        return;
      }
      if (remote.status !== run.remoteState) this.update(run, { remoteState: remote.status });
      delay = Math.min(POLL_MAX_MS, Math.round(delay * 1.6));
    }
  }

  private async complete(run: ResearchRunSummary, client: RetailSignalClient, reportUrl: string, costUsd: number | null, citationCount: number | null): Promise<void> {
    const fetched = await client.getReport(reportUrl);
    if (!fetched.ok) {
      this.update(run, { state: 'failed', finishedAt: this.iso(), reportUrl, error: `The report could not be fetched: ${fetched.error.message}` });
      return;
    }
    const createdAt = this.iso();
    let report: StoredReport;
    if (fetched.value.format === 'json') {
      const body = fetched.value.report;
      const citations = await this.snapshots(client, body.citations.map((signal) => signal.id), new Map(body.citations.map((signal) => [signal.id, signal])));
      report = { runId: run.id, topic: body.topic, preset: body.preset, createdAt: body.created_at ?? createdAt, markdown: body.markdown, html: null, citations, citationCount: body.citation_count, costUsd: body.cost_usd };
    } else {
      const text = fetched.value.text;
      const ids = [...new Set([...text.matchAll(CITATION_MARKER)].map((m) => m[1]!))];
      const citations = await this.snapshots(client, ids, new Map());
      report = {
        runId: run.id,
        topic: run.topic,
        preset: run.preset,
        createdAt,
        markdown: fetched.value.format === 'markdown' ? text : '',
        html: fetched.value.format === 'html' ? text : null,
        citations,
        citationCount: citationCount ?? citations.length,
        costUsd,
      };
    }
    await writeFileAtomic(join(this.dir, 'reports', `${run.id}.json`), JSON.stringify(report), { mode: 0o600, fsync: true });
    this.update(run, { state: 'completed', remoteState: 'completed', finishedAt: this.iso(), reportUrl, costUsd: report.costUsd ?? costUsd, citationCount: report.citationCount });
    this.deps.notify?.('Research report ready', run.topic);
  }

  /** Each cited signal with its source's health now (= when cited), best effort. */
  private async snapshots(
    client: RetailSignalClient,
    ids: string[],
    known: Map<string, Signal>,
  ): Promise<CitationSnapshot[]> {
    return Promise.all(
      ids.map(async (id): Promise<CitationSnapshot> => {
        const lookup = await client.getSignal(id);
        const signal = lookup.ok ? lookup.value.signal : known.get(id);
        const source = lookup.ok ? lookup.value.source : null;
        if (!signal) return { id };
        return { ...citationSnapshotOf(signal, source, this.iso()), id };
      }),
    );
  }

  private update(run: ResearchRunSummary, patch: Partial<ResearchRunSummary>): void {
    Object.assign(run, patch);
    const snapshot = [...this.runs.values()];
    this.writing = this.writing
      .then(() => writeFileAtomic(join(this.dir, 'runs.json'), JSON.stringify(snapshot), { mode: 0o600 }))
      .catch((error: unknown) => log.error('could not save runs', error));
    this.deps.onUpdate({ ...run });
  }

  private iso(): string {
    return new Date(this.deps.now?.() ?? Date.now()).toISOString();
  }
}
