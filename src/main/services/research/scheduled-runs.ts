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
 */
import { loggerFor } from '../../logging/logger';
import type { RetailSignalClient } from '../service-client/api-client';
import type { ResearchService } from './research-service';

const log = loggerFor('research');

/** Once a minute: a schedule runs daily or weekly, so a minute late is on time. */
export const SCHEDULE_CHECK_MS = 60_000;

export interface ScheduledRunsDeps {
  research: Pick<ResearchService, 'adoptScheduled'>;
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
    const listed = await client.call('listResearchSchedules', {}, 'a list of research schedules');
    if (!listed.ok) {
      // A service without schedules (404), a refused credential or a network problem: the next check asks again.
      if (listed.error.status !== 404) log.warn(`research schedules not checked: ${listed.error.message}`);
      return 0;
    }
    let adopted = 0;
    const startedAt = new Date(this.deps.now?.() ?? Date.now()).toISOString();
    for (const schedule of listed.value.schedules) {
      if (!schedule.last_run_id) continue;
      const run = this.deps.research.adoptScheduled({
        remoteId: schedule.last_run_id,
        scheduleId: schedule.id,
        topic: schedule.topic,
        preset: schedule.preset,
        statusUrl: `/api/v2/research/${encodeURIComponent(schedule.last_run_id)}`,
        startedAt,
        serviceUrl,
      });
      if (run) adopted += 1;
    }
    return adopted;
  }
}
