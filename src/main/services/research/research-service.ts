/**
 * Research runs, kept by the main process in `<dataDir>/research/`: v1 runs are held here
 * (the renderer stays free and can cancel); queued (v2) runs are polled with capped backoff
 * and polling resumes after a restart. Finished reports are stored with a snapshot of every
 * cited signal, so they open offline. Polling gives up, saying why, after POLL_LIMIT_MS, after
 * POLL_MAX_FAILURES failed polls in a row, and at once on a status it cannot read.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ensureDataFolder } from '../data-folder/data-notices';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { CITATION_MARKER } from '../../../shared/cite-format';
import { citationSnapshotOf } from '../../../shared/citation';
import type { CitationSnapshot } from '../../../shared/conversation';
import { credentialProblem } from '../../../shared/plain-errors';
import { changesInWords, ResearchRunSummarySchema, StoredReportSchema, type ResearchMode, type ResearchRunSummary, type StoredReport } from '../../../shared/research';
import { ANSWER_LIMITS } from '../conversations/answer-limits';
import type { RetailSignalClient } from '../service-client/api-client';
import { asText, type ReadReport } from '../service-client/service-readers';
import { loggerFor } from '../../logging/logger';

const log = loggerFor('research');

const POLL_MIN_MS = 1_000;
const POLL_MAX_MS = 15_000;
/** A queued run is polled for at most this long (the standard preset takes 30–90 s). */
export const POLL_LIMIT_MS = 30 * 60_000;
const STOPPED_BEFORE_REPORT = 'The app stopped before the report arrived. Retry to run it again.';
/** Failed polls in a row (network, 5xx, unreadable bodies) before giving up. */
export const POLL_MAX_FAILURES = 8;

/**
 * A URL the service gave, as it should be fetched now: on the run's own service it is
 * re-based on the current base URL (the embedded service may have restarted on another port);
 * on another host it stays as it is (the client only follows it if that host is trusted).
 */
function locate(url: string, serviceUrl: string, client: RetailSignalClient): string {
  const parsed = new URL(url, serviceUrl);
  if (parsed.origin !== new URL(serviceUrl).origin && parsed.origin !== new URL(client.baseUrl).origin) return parsed.href;
  return client.resolve(`${parsed.pathname}${parsed.search}`);
}

export interface ResearchServiceDeps {
  dataDir: string;
  client: () => RetailSignalClient | null;
  onUpdate: (run: ResearchRunSummary) => void;
  /** Tells the user a report is ready (system notification in Electron). */
  notify?: (title: string, body: string) => void;
  now?: () => number;
  pollMinMs?: number;
  /** Overrides POLL_LIMIT_MS (tests). */
  pollLimitMs?: number;
  /**
   * The service in use has deprecated v1 research (its Deprecation header): runs asked to wait
   * go through v2 instead (queued, then polled). A service without v2 still gets v1.
   */
  prefersQueued?: () => boolean;
}

export class ResearchService {
  private readonly runs = new Map<string, ResearchRunSummary>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly dir: string;
  private writing: Promise<void> = Promise.resolve();
  private disposed = false;
  /** Runs being started or polled; dispose() waits for them (their last update and report write). */
  private readonly tasks = new Set<Promise<void>>();
  /**
   * Aborted by dispose(): ends a poll's wait at once instead of after up to POLL_MAX_MS, and
   * every request under way (status, report, citation lookups) instead of at its deadline, so
   * a service that took a request and never answered does not hold quit.
   */
  private readonly stopping = new AbortController();

  private constructor(private readonly deps: ResearchServiceDeps) {
    this.dir = join(deps.dataDir, 'research');
  }

  static async open(deps: ResearchServiceDeps): Promise<ResearchService> {
    const service = new ResearchService(deps);
    await ensureDataFolder(join(service.dir, 'reports'));
    try {
      const stored = z.array(ResearchRunSummarySchema).parse(JSON.parse(await readFile(join(service.dir, 'runs.json'), 'utf8')));
      for (const run of stored) service.runs.set(run.id, run);
    } catch {
      // First run, or an unreadable file: start with no runs rather than not at all.
    }
    for (const run of service.runs.values()) {
      if (run.state === 'queued' && run.statusUrl) service.track(service.poll(run));
      else if (run.state === 'starting' || run.state === 'running') {
        // A v1 request dies with the process that held it.
        service.update(run, { state: 'failed', finishedAt: service.iso(), error: STOPPED_BEFORE_REPORT });
      }
    }
    return service;
  }

  /**
   * Stops polling, aborts the requests under way and waits for the runs to settle and the runs
   * file to be written: nothing is lost at quit, and nothing is written into the data folder
   * after this resolves. A v1 run aborted here records that it failed; a queued run whose
   * status or report had not arrived stays queued (polled again at the next start); a report
   * that had arrived is stored, its citations as the report gave them if their lookups were cut.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.stopping.abort();
    for (const controller of this.controllers.values()) controller.abort();
    await Promise.all(this.tasks);
    await this.writing;
  }

  /** Keeps a run's work where dispose() can wait for it. */
  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => log.error('research run failed', error)).finally(() => this.tasks.delete(tracked));
    this.tasks.add(tracked);
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
    this.track(this.execute(run));
    return run;
  }

  retry(id: string): ResearchRunSummary | null {
    const run = this.runs.get(id);
    if (!run || (run.state !== 'failed' && run.state !== 'cancelled')) return null;
    this.update(run, { state: 'starting', error: null, errorCode: null, startedAt: this.iso(), finishedAt: null, remoteState: null, statusUrl: null, reportUrl: null, costUsd: null, citationCount: null });
    this.track(this.execute(run));
    return run;
  }

  /**
   * A run a service schedule started (issue 46 item 5), taken into the list and polled like a
   * queued run of the app's own; null when the app holds it already.
   */
  adoptScheduled(remote: { remoteId: string; scheduleId: string; topic: string; preset: string; statusUrl: string; startedAt: string; serviceUrl: string }): ResearchRunSummary | null {
    if (this.disposed || [...this.runs.values()].some((run) => run.remoteId === remote.remoteId)) return null;
    const { remoteId, scheduleId, topic, preset, statusUrl, startedAt, serviceUrl } = remote;
    const run: ResearchRunSummary = { id: `run_${randomBytes(8).toString('hex')}`, topic, preset, mode: 'queue', state: 'queued', remoteState: 'queued', startedAt, finishedAt: null, costUsd: null, citationCount: null, error: null, remoteId, statusUrl, reportUrl: null, serviceUrl, scheduleId };
    this.runs.set(run.id, run);
    this.update(run, {});
    this.track(this.poll(run));
    return run;
  }

  /** The analyst opened the report: what changed has been seen (the nav badge goes). */
  markSeen(id: string): ResearchRunSummary | null {
    const run = this.runs.get(id);
    if (!run) return null;
    if (run.unseenChanges) this.update(run, { unseenChanges: false });
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
    const preferV2 = run.mode === 'wait' && (this.deps.prefersQueued?.() ?? false);
    if (preferV2) this.update(run, { mode: 'queue' });
    this.update(run, { state: run.mode === 'wait' ? 'running' : 'starting' });
    let started = await client.startResearch(run.topic, run.preset, { queue: run.mode === 'queue', signal: controller.signal });
    // v2 preferred but not offered here after all (404, 405): v1, as the user asked.
    if (preferV2 && !started.ok && (started.error.status === 404 || started.error.status === 405) && this.runs.get(run.id)?.state !== 'cancelled') {
      this.update(run, { mode: 'wait', state: 'running' });
      started = await client.startResearch(run.topic, run.preset, { queue: false, signal: controller.signal });
    }
    this.controllers.delete(run.id);
    if (this.runs.get(run.id)?.state === 'cancelled') return;
    if (this.disposed && !started.ok) {
      // Aborted by dispose (the app quits): said as the next start would say it.
      this.update(run, { state: 'failed', finishedAt: this.iso(), error: STOPPED_BEFORE_REPORT });
      return;
    }
    if (!started.ok) {
      // A missing or refused credential is said in plain words, and the view links to Settings.
      this.update(run, { state: 'failed', finishedAt: this.iso(), error: credentialProblem(started.error.code, 'Research', { credentialSet: await client.hasCredential() }) ?? started.error.message, errorCode: started.error.code });
      return;
    }
    if (started.value.kind === 'queued') {
      this.update(run, { state: 'queued', remoteState: started.value.reported, statusUrl: started.value.statusUrl, remoteId: started.value.remoteId });
      await this.poll(run);
      return;
    }
    const { reportUrl, inlineReport, costUsd, citationCount, remoteId } = started.value;
    // The service's id of a run it held (v1): a later run of the topic names it as its previous one.
    if (remoteId) this.update(run, { remoteId });
    await this.complete(run, client, reportUrl, inlineReport, costUsd, citationCount);
  }

  /** Polls a queued run with capped exponential backoff until it ends, is cancelled or gives up. */
  private async poll(run: ResearchRunSummary): Promise<void> {
    let delay = this.deps.pollMinMs ?? POLL_MIN_MS;
    const limitMs = this.deps.pollLimitMs ?? POLL_LIMIT_MS;
    const since = Date.parse(run.startedAt);
    let failures = 0;
    let lastProblem = '';
    const giveUp = (error: string): void => this.update(run, { state: 'failed', finishedAt: this.iso(), error });
    while (!this.disposed && run.state === 'queued' && run.statusUrl) {
      await this.pause(delay);
      if (this.disposed || run.state !== 'queued') return;
      if (this.nowMs() - since > limitMs) {
        giveUp(`The service did not finish this report within ${Math.round(limitMs / 60_000) || 1} min (last status: ${run.remoteState ?? 'queued'}), so the app stopped asking.${lastProblem ? ` Last problem: ${lastProblem}` : ''} Retry to run it again.`);
        return;
      }
      const client = this.deps.client();
      if (!client) continue; // the service is (re)starting; try again later
      const status = await client.pollResearch(locate(run.statusUrl, run.serviceUrl, client), this.stopping.signal);
      // Aborted by dispose: the run stays queued on disk, and the next start polls it again.
      if (!status.ok && this.disposed) return;
      if (!status.ok) {
        const final = ['not_found', 'unauthorized', 'forbidden', 'payment_required'].includes(status.error.code);
        // A status the app cannot read will not become readable by asking again.
        if (final || status.error.code === 'bad_response') {
          giveUp(final ? `The service no longer reports this run: ${status.error.message}` : `The app stopped polling: ${status.error.message}`);
          return;
        }
        failures += 1;
        lastProblem = status.error.message;
        if (failures >= POLL_MAX_FAILURES) {
          giveUp(`The research status could not be fetched ${failures} times in a row (${status.error.message}), so the app stopped asking. Retry to run it again.`);
          return;
        }
        delay = Math.min(POLL_MAX_MS, delay * 2);
        continue;
      }
      failures = 0;
      const remote = status.value;
      if (remote.state === 'completed') {
        if (!remote.reportUrl && !remote.inlineReport) {
          giveUp('The service says the report is complete but gave no report_url to fetch it from.');
          return;
        }
        await this.complete(run, client, remote.reportUrl ? locate(remote.reportUrl, run.serviceUrl, client) : null, remote.inlineReport, remote.costUsd, remote.citationCount);
        return;
      }
      if (remote.state === 'failed') {
        this.update(run, { state: 'failed', finishedAt: this.iso(), remoteState: remote.reported, error: remote.error ?? 'The service could not complete this report.' });
        return;
      }
      if (remote.reported !== run.remoteState) this.update(run, { remoteState: remote.reported });
      delay = Math.min(POLL_MAX_MS, Math.round(delay * 1.6));
    }
  }

  private async complete(run: ResearchRunSummary, client: RetailSignalClient, reportUrl: string | null, inline: ReadReport | null, costUsd: number | null, citationCount: number | null): Promise<void> {
    let fetched: Awaited<ReturnType<RetailSignalClient['getReport']>> | null = null;
    if (reportUrl) {
      fetched = await client.getReport(reportUrl, this.stopping.signal);
      if (!fetched.ok && !inline && this.disposed) {
        // Cut short by dispose: a queued run stays queued (its status is asked again at the
        // next start, and the report fetched then); a v1 run cannot be asked again, but what the
        // service said of it (where its report is, what it cost) is kept, as any failed fetch keeps it.
        if (run.state !== 'queued') this.update(run, { state: 'failed', finishedAt: this.iso(), reportUrl, costUsd, error: STOPPED_BEFORE_REPORT });
        return;
      }
      if (!fetched.ok && !inline) {
        this.update(run, { state: 'failed', finishedAt: this.iso(), reportUrl, error: `The report could not be fetched: ${fetched.error.message}` });
        return;
      }
    }
    const createdAt = this.iso();
    let report: StoredReport;
    const json = fetched?.ok && fetched.value.format === 'json' ? fetched.value.report : fetched?.ok ? null : inline;
    if (json) {
      const ids = [...new Set([...json.citations.map((c) => c.id), ...[...json.markdown.matchAll(CITATION_MARKER)].map((m) => m[1]!)])];
      const citations = await this.snapshots(client, ids, new Map(json.citations.map((c) => [c.id, c.fields])));
      report = {
        runId: run.id,
        topic: json.topic ?? run.topic,
        preset: json.preset ?? run.preset,
        createdAt: json.createdAt ?? createdAt,
        markdown: json.markdown,
        html: null,
        citations,
        citationCount: json.citationCount ?? citationCount ?? citations.length,
        costUsd: json.costUsd ?? costUsd,
        costBasis: json.costBasis,
        verification: json.verification,
        changes: json.changes,
        series: json.series,
      };
    } else {
      const { format, text } = fetched!.ok && fetched!.value.format !== 'json' ? fetched!.value : { format: 'markdown' as const, text: '' };
      const ids = [...new Set([...text.matchAll(CITATION_MARKER)].map((m) => m[1]!))];
      const citations = await this.snapshots(client, ids, new Map());
      report = {
        runId: run.id,
        topic: run.topic,
        preset: run.preset,
        createdAt,
        markdown: format === 'markdown' ? text : '',
        html: format === 'html' ? text : null,
        citations,
        citationCount: citationCount ?? citations.length,
        costUsd,
      };
    }
    // The same caps as a streamed answer (SECURITY.md): a report is refused whole rather than
    // stored and pushed to the renderer without bound.
    const overCap = reportOverCap(report);
    if (overCap) {
      this.update(run, { state: 'failed', finishedAt: this.iso(), reportUrl, error: `The service sent more than ${overCap}; the report was not kept.` });
      return;
    }
    await writeFileAtomic(join(this.dir, 'reports', `${run.id}.json`), JSON.stringify(report), { mode: 0o600, fsync: true });
    // A scheduled run that found changes is what the service announces as research.changed:
    // the app marks it for the nav badge and says what changed.
    const changed = run.scheduleId ? changesInWords(report.changes) : null;
    this.update(run, { state: 'completed', remoteState: 'completed', finishedAt: this.iso(), reportUrl, costUsd: report.costUsd ?? costUsd, costBasis: report.costBasis ?? null, citationCount: report.citationCount, ...(changed ? { unseenChanges: true } : {}) });
    if (changed) this.deps.notify?.(`What changed: ${run.topic}`, `${changed} since the last run.`);
    else this.deps.notify?.('Research report ready', run.topic);
  }

  /** The cited signals' snapshots, a few lookups at a time. */
  private async snapshots(
    client: RetailSignalClient,
    ids: string[],
    known: Map<string, Record<string, unknown>>,
  ): Promise<CitationSnapshot[]> {
    // Past the citation cap the report is refused anyway: look up no more than that, a few at a
    // time, so a report with 100,000 markers cannot start 100,000 requests.
    const wanted = ids.slice(0, ANSWER_LIMITS.citations + 1);
    const snapshots: CitationSnapshot[] = [];
    for (let start = 0; start < wanted.length; start += LOOKUP_CONCURRENCY) {
      snapshots.push(...(await Promise.all(wanted.slice(start, start + LOOKUP_CONCURRENCY).map((id) => this.snapshot(client, id, known)))));
    }
    return snapshots;
  }

  /** One cited signal with its source's health now (= when cited), best effort. */
  private async snapshot(client: RetailSignalClient, id: string, known: Map<string, Record<string, unknown>>): Promise<CitationSnapshot> {
    // Aborted by dispose: the report is stored at once, this citation as the report gave it.
    const lookup = await client.getSignal(id, this.stopping.signal);
    if (lookup.ok) return { ...citationSnapshotOf(lookup.value.signal, lookup.value.source, this.iso()), id };
    // No lookup extension: keep whatever the report said about the signal (maybe only its id).
    const fields = known.get(id) ?? {};
    const text = (key: string): Record<string, string> => {
      const value = asText(fields[key]);
      return value ? { [key]: value } : {};
    };
    const snippet = asText(fields.snippet) ?? asText(fields.summary);
    return { id, ...text('title'), ...text('source_id'), ...text('source_name'), ...text('published_at'), ...text('url'), ...text('slug'), ...(snippet ? { snippet } : {}) };
  }

  private update(run: ResearchRunSummary, patch: Partial<ResearchRunSummary>): void {
    Object.assign(run, patch);
    const snapshot = [...this.runs.values()];
    this.writing = this.writing
      .then(() => writeFileAtomic(join(this.dir, 'runs.json'), JSON.stringify(snapshot), { mode: 0o600 }))
      .catch((error: unknown) => log.error('could not save runs', error));
    this.deps.onUpdate({ ...run });
  }

  /** Waits `ms`, or less if the service is disposed meanwhile (no timer is left behind). */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stopping.signal.addEventListener('abort', done, { once: true });
    });
  }

  private iso(): string {
    return new Date(this.nowMs()).toISOString();
  }

  private nowMs(): number {
    return this.deps.now?.() ?? Date.now();
  }
}

/** Signal lookups in flight at once while snapshotting a report's citations. */
const LOOKUP_CONCURRENCY = 8;

/** Which answer cap a report breaks, in words, or null. */
function reportOverCap(report: StoredReport): string | null {
  const text = report.markdown.length + (report.html?.length ?? 0);
  if (text > ANSWER_LIMITS.textChars) return `${(ANSWER_LIMITS.textChars / 1_000_000).toLocaleString('en-IN')} M characters of report text`;
  if (report.citations.length > ANSWER_LIMITS.citations) return `${ANSWER_LIMITS.citations} citations in one report`;
  const long = report.citations.flatMap((citation) => Object.values(citation)).find((value) => typeof value === 'string' && value.length > ANSWER_LIMITS.fieldChars);
  if (long !== undefined || (report.topic?.length ?? 0) > ANSWER_LIMITS.fieldChars) return `${ANSWER_LIMITS.fieldChars.toLocaleString('en-IN')} characters in one field`;
  return null;
}
