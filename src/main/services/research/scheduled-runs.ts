/**
 * Scheduled research runs reach the app (issue 46 item 5). The service announces a scheduled run
 * with changes as the webhook event `research.changed`; a desktop app has no public URL to
 * receive it, so main asks the service for the analyst's schedules (`GET /api/v2/research/schedules`)
 * on each check, and takes each schedule's last run it does not hold yet into the research list,
 * where it is polled like the app's own queued runs. When that run's report carries changes, the
 * research service marks it (the Research nav badge) and notifies (research-service.ts).
 *
 * Checks: when the service becomes ready, every `intervalMs`, and when the renderer asks (the
 * window came back into view).
 *
 * The Research view's schedules (list, create, run now, delete) go through here too, so a list
 * the analyst opens also takes in the runs it names, and a run started now is in the runs list
 * at once. The service's refusals are said in the analyst's words (the plan's cap, the research
 * limit, sign-in), not as its API's.
 */
import type { z } from 'zod';
import { fail, ok, type BridgeError, type Result } from '../../../shared/bridge-contract';
import { INTERFACE_BUCKETS } from '../../../shared/endpoints/limits';
import { fillPath } from '../../../shared/endpoints/define';
import { ENDPOINTS } from '../../../shared/endpoints/table';
import { credentialProblem } from '../../../shared/plain-errors';
import type { ResearchSchedule } from '../../../shared/service-schemas';
import type { ResearchRunSummary } from '../../../shared/research';
import type { ResearchScheduleView, ResearchSchedulesView, ScheduleEvery } from '../../../shared/research-schedules';
import { loggerFor } from '../../logging/logger';
import type { RetailSignalClient } from '../service-client/api-client';
import type { ResearchService } from './research-service';

const log = loggerFor('research');

/** Once a minute: a schedule runs daily or weekly, so a minute late is on time. */
export const SCHEDULE_CHECK_MS = 60_000;

export interface ScheduledRunsDeps {
  research: Pick<ResearchService, 'adoptScheduled' | 'list'>;
  client: () => RetailSignalClient | null;
  /** The base URL of the service in use, or null while it is not ready. */
  serviceUrl: () => string | null;
  intervalMs?: number;
  now?: () => number;
}

export class ScheduledRuns {
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<number> | null = null;

  constructor(private readonly deps: ScheduledRunsDeps) {}

  /** Checks now and then every interval (again from now when called again). */
  start(): void {
    this.stop();
    void this.check();
    this.timer = setInterval(() => void this.check(), this.deps.intervalMs ?? SCHEDULE_CHECK_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** How many scheduled runs were taken in; one check at a time (a second call joins the first). */
  check(): Promise<number> {
    this.checking ??= this.checkOnce().finally(() => (this.checking = null));
    return this.checking;
  }

  private async checkOnce(): Promise<number> {
    const client = this.deps.client();
    const serviceUrl = this.deps.serviceUrl();
    // Schedules are a signed-in caller's: with no credential (and no ownership of the embedded
    // service) there is nothing to ask.
    if (!client || !serviceUrl || !(await client.hasCredential())) return 0;
    const listed = await this.listAndAdopt(client, serviceUrl);
    if (!listed.ok) {
      // A service without schedules (404), a refused credential or a network problem: the next check asks again.
      if (listed.error.status !== 404) log.warn(`research schedules not checked: ${listed.error.message}`);
      return 0;
    }
    return listed.value.adopted;
  }

  /** The analyst's schedules, each with the app's run of its last run (taken in now if new). */
  async list(): Promise<Result<ResearchSchedulesView>> {
    const ready = await this.ready();
    if (!ready.ok) return ready;
    const listed = await this.listAndAdopt(ready.value.client, ready.value.serviceUrl);
    if (!listed.ok && listed.error.status === 404) return fail({ ...listed.error, message: 'This service does not offer research schedules.' });
    if (!listed.ok) return fail(this.inWords(listed.error));
    return ok(this.viewOf(listed.value.schedules, listed.value.limit));
  }

  /** A new schedule of the topic; `at` is a UTC time of day (the renderer converts the analyst's). */
  async create(request: { topic: string; preset: string; every: ScheduleEvery; at?: string | undefined }): Promise<Result<ResearchScheduleView>> {
    const ready = await this.ready();
    if (!ready.ok) return ready;
    const { client } = ready.value;
    const created = await client.call('createResearchSchedule', { body: { topic: request.topic, preset: request.preset, every: request.every, ...(request.at ? { at: request.at } : {}) } }, 'a research schedule');
    if (!created.ok) return fail(await this.refusalInWords(client, created.error));
    return ok(this.viewOf([created.value], 0).schedules[0]!);
  }

  /** Runs the schedule now: the service queues a normal v2 run, which joins the runs list at once. */
  async runNow(id: string): Promise<Result<ResearchRunSummary>> {
    const ready = await this.ready();
    if (!ready.ok) return ready;
    const { client, serviceUrl } = ready.value;
    const queued = await client.call('runResearchSchedule', { params: { id }, body: {} }, 'a queued research run');
    if (!queued.ok) return fail(this.inWords(queued.error));
    const remoteId = typeof queued.value.id === 'string' ? queued.value.id : null;
    // The run is now the schedule's last run: listing takes it in (polled like the app's own).
    const listed = await this.listAndAdopt(client, serviceUrl);
    const run = this.deps.research.list().find((held) => held.scheduleId === id && (remoteId === null || held.remoteId === remoteId));
    if (!run) return fail(listed.ok ? { code: 'bad_response', message: 'The service queued the run but does not list it under the schedule.' } : this.inWords(listed.error));
    return ok(run);
  }

  /**
   * A new cadence and/or time (UTC) for the schedule, changed in place at the service: its id,
   * topic and last run stay, so its runs and their "what changed" carry on (decision 0050).
   */
  async update(id: string, change: { every?: ScheduleEvery | undefined; at?: string | undefined }): Promise<Result<ResearchScheduleView>> {
    const ready = await this.ready();
    if (!ready.ok) return ready;
    const body = { ...(change.every ? { every: change.every } : {}), ...(change.at ? { at: change.at } : {}) };
    const updated = await ready.value.client.call('updateResearchSchedule', { params: { id }, body }, 'a changed research schedule');
    if (!updated.ok && updated.error.status === 405) {
      return fail({ ...updated.error, message: 'This service cannot change a schedule. Delete it and schedule the topic again at the new time.' });
    }
    if (!updated.ok) return fail(this.inWords(updated.error));
    return ok(this.viewOf([updated.value], 0).schedules[0]!);
  }

  async remove(id: string): Promise<Result<{ deleted: true }>> {
    const ready = await this.ready();
    if (!ready.ok) return ready;
    const removed = await ready.value.client.call('deleteResearchSchedule', { params: { id } }, 'a deleted schedule');
    // Gone already (deleted from another window or by an integration): what the analyst wanted.
    if (!removed.ok && removed.error.status !== 404) return fail(this.inWords(removed.error));
    return ok({ deleted: true });
  }

  private async ready(): Promise<Result<{ client: RetailSignalClient; serviceUrl: string }>> {
    const client = this.deps.client();
    const serviceUrl = this.deps.serviceUrl();
    if (!client || !serviceUrl) return fail({ code: 'unavailable', message: 'The service is not ready yet. Try again when the status bar says ready.' });
    if (!(await client.hasCredential())) return fail({ code: 'unauthorized', message: credentialProblem('unauthorized', 'Scheduling research')! });
    return ok({ client, serviceUrl });
  }

  private async listAndAdopt(client: RetailSignalClient, serviceUrl: string): Promise<Result<{ schedules: ListedSchedule[]; limit: number; adopted: number }>> {
    const listed = await client.call('listResearchSchedules', {}, 'a list of research schedules');
    if (!listed.ok) return listed;
    let adopted = 0;
    const startedAt = new Date(this.deps.now?.() ?? Date.now()).toISOString();
    for (const schedule of listed.value.schedules) {
      if (!schedule.last_run_id) continue;
      const run = this.deps.research.adoptScheduled({
        remoteId: schedule.last_run_id,
        scheduleId: schedule.id,
        topic: schedule.topic,
        preset: schedule.preset,
        statusUrl: fillPath(ENDPOINTS.getResearchRunV2.path, { id: schedule.last_run_id }),
        startedAt,
        serviceUrl,
      });
      if (run) adopted += 1;
    }
    return ok({ schedules: listed.value.schedules, limit: listed.value.limit, adopted });
  }

  private viewOf(schedules: ListedSchedule[], limit: number): ResearchSchedulesView {
    const held = this.deps.research.list();
    const bucket = INTERFACE_BUCKETS.research;
    return {
      schedules: schedules.map((schedule) => ({
        id: schedule.id,
        topic: schedule.topic,
        preset: schedule.preset,
        every: schedule.every,
        at: schedule.at,
        createdAt: schedule.created_at,
        nextRunAt: schedule.next_run_at,
        lastRunId: schedule.last_run_id ? (held.find((run) => run.remoteId === schedule.last_run_id)?.id ?? null) : null,
      })),
      limit,
      researchLimit: { runs: bucket.limit, minutes: bucket.windowMs / 60_000 },
    };
  }

  /** The plan's cap with how many the analyst has, when the service refused a new schedule for it. */
  private async refusalInWords(client: RetailSignalClient, error: BridgeError): Promise<BridgeError> {
    if (error.code !== 'limit_reached') return this.inWords(error);
    const listed = await client.call('listResearchSchedules', {}, 'a list of research schedules');
    const cap = listed.ok ? listed.value.limit : null;
    return { ...error, message: `Your plan allows ${cap === null ? 'no more' : cap} research ${cap === 1 ? 'schedule' : 'schedules'}${cap === null ? '' : ', and you have them all'}. Delete one below to schedule another.` };
  }

  private inWords(error: BridgeError): BridgeError {
    if (error.code === 'rate_limited') {
      const { limit, windowMs } = INTERFACE_BUCKETS.research;
      const wait = error.retryAfterS ? ` Try again in ${formatWait(error.retryAfterS)}.` : ' Try again in a few minutes.';
      return { ...error, message: `Research is limited to ${limit} runs every ${windowMs / 60_000} minutes, and scheduling one or running one now counts as a run.${wait}` };
    }
    if (error.code === 'not_found') return { ...error, message: 'That schedule is no longer on the service (deleted elsewhere?).' };
    const words = credentialProblem(error.code, 'Scheduling research', { credentialSet: true });
    return words ? { ...error, message: words } : error;
  }
}

type ListedSchedule = z.infer<typeof ResearchSchedule>;

/** "40 s", "3 min". */
function formatWait(seconds: number): string {
  return seconds < 90 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.ceil(seconds / 60)} min`;
}
