/**
 * Research schedules: a topic run daily or weekly at a UTC time of day. Schedules are rows of
 * the service's database; each process ticks, and a due schedule is claimed by moving its
 * `next_run_ms` on with a compare-and-set, so on a team server each period's run is started by
 * one process. A run it starts is a normal v2 run (queued, taken by the research queue) marked
 * with the schedule's id; one with changes is announced as the `research.changed` webhook event.
 * The next time is croner's (a cron pattern in UTC), not date arithmetic of our own.
 */
import { randomBytes } from 'node:crypto';
import { Cron } from 'croner';
import type { Database } from '../store/database';
import type { ResearchRunRecord, ResearchRuns } from './research-runs';

export type Every = 'daily' | 'weekly';

export interface ScheduleRecord {
  id: string;
  owner: string;
  topic: string;
  preset: string;
  every: Every;
  /** HH:MM, UTC. */
  at: string;
  createdAt: string;
  nextRunMs: number;
  lastRunId: string | null;
}

interface ScheduleRow {
  id: string;
  owner: string;
  topic: string;
  preset: string;
  every: Every;
  at_time: string;
  created_at: string;
  next_run_ms: number;
  last_run_id: string | null;
}

const record = (row: ScheduleRow): ScheduleRecord => ({
  id: row.id,
  owner: row.owner,
  topic: row.topic,
  preset: row.preset,
  every: row.every,
  at: row.at_time,
  createdAt: row.created_at,
  nextRunMs: Number(row.next_run_ms),
  lastRunId: row.last_run_id,
});

/**
 * The cron pattern of a schedule: daily at its time, or weekly on the weekday it was created,
 * in UTC.
 */
export function cronPattern(every: Every, at: string, createdAtMs: number): string {
  const [hour, minute] = at.split(':').map(Number);
  return every === 'daily' ? `${minute} ${hour} * * *` : `${minute} ${hour} * * ${new Date(createdAtMs).getUTCDay()}`;
}

export function nextRunAfter(every: Every, at: string, createdAtMs: number, afterMs: number): number {
  const next = new Cron(cronPattern(every, at, createdAtMs), { timezone: 'UTC', paused: true }).nextRun(new Date(afterMs));
  if (!next) throw new Error(`No next run for ${every} at ${at}`);
  return next.getTime();
}

const TICK_MS = 30_000;

export class ResearchSchedules {
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(
    private readonly db: Database,
    private readonly runs: ResearchRuns,
    private readonly now: () => number,
    /** Whether the owner may start a run now (the research limit); a refused period is skipped. */
    private readonly allowRun: (owner: string) => Promise<boolean>,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async create(owner: string, input: { topic: string; preset: string; every: Every; at?: string }): Promise<ScheduleRecord> {
    const now = this.now();
    const at = input.at ?? new Date(now).toISOString().slice(11, 16);
    const schedule: ScheduleRecord = {
      id: `rsc_${randomBytes(8).toString('hex')}`,
      owner,
      topic: input.topic,
      preset: input.preset,
      every: input.every,
      at,
      createdAt: new Date(now).toISOString(),
      nextRunMs: nextRunAfter(input.every, at, now, now),
      lastRunId: null,
    };
    await this.db.query(
      'INSERT INTO research_schedules (id, owner, topic, preset, every, at_time, created_at, next_run_ms, last_run_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)',
      [schedule.id, owner, schedule.topic, schedule.preset, schedule.every, schedule.at, schedule.createdAt, schedule.nextRunMs],
    );
    return schedule;
  }

  async count(owner: string): Promise<number> {
    const [row] = await this.db.query<{ n: number | string }>('SELECT count(*) AS n FROM research_schedules WHERE owner = $1', [owner]);
    return Number(row?.n ?? 0);
  }

  async list(owner: string): Promise<ScheduleRecord[]> {
    return (await this.db.query<ScheduleRow>('SELECT * FROM research_schedules WHERE owner = $1 ORDER BY created_at, id', [owner])).map(record);
  }

  /** The owner's schedule, or undefined (someone else's is not theirs to see). */
  async get(owner: string, id: string): Promise<ScheduleRecord | undefined> {
    const [row] = await this.db.query<ScheduleRow>('SELECT * FROM research_schedules WHERE id = $1 AND owner = $2', [id, owner]);
    return row ? record(row) : undefined;
  }

  /**
   * A new cadence and/or time for the owner's schedule; undefined when it is not theirs. The row
   * is changed in place (id, topic, creation time and last run kept, so its history carries on)
   * and the next run is worked out again from now; a tick that read the old next run loses its
   * compare-and-set, so the old time does not also run.
   */
  async update(owner: string, id: string, change: { every?: Every | undefined; at?: string | undefined }): Promise<ScheduleRecord | undefined> {
    const schedule = await this.get(owner, id);
    if (!schedule) return undefined;
    const every = change.every ?? schedule.every;
    const at = change.at ?? schedule.at;
    const nextRunMs = nextRunAfter(every, at, Date.parse(schedule.createdAt), this.now());
    const rows = await this.db.query<ScheduleRow>('UPDATE research_schedules SET every = $3, at_time = $4, next_run_ms = $5 WHERE id = $1 AND owner = $2 RETURNING *', [id, owner, every, at, nextRunMs]);
    return rows[0] ? record(rows[0]) : undefined;
  }

  async remove(owner: string, id: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>('DELETE FROM research_schedules WHERE id = $1 AND owner = $2 RETURNING id', [id, owner]);
    return rows.length > 0;
  }

  /** Starts the schedule's run now (a normal queued v2 run), outside its times. */
  async runNow(schedule: ScheduleRecord): Promise<ResearchRunRecord> {
    const run = await this.runs.create(schedule.owner, schedule.topic, schedule.preset, { queued: true, scheduleId: schedule.id });
    await this.db.query('UPDATE research_schedules SET last_run_id = $2 WHERE id = $1', [schedule.id, run.id]);
    return run;
  }

  /** Starts every due schedule's run once: the process whose compare-and-set moves `next_run_ms` on starts it. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const now = this.now();
      const due = (await this.db.query<ScheduleRow>('SELECT * FROM research_schedules WHERE next_run_ms <= $1 ORDER BY next_run_ms LIMIT 50', [now])).map(record);
      for (const schedule of due) {
        const next = nextRunAfter(schedule.every, schedule.at, Date.parse(schedule.createdAt), now);
        const claimed = await this.db.query<{ id: string }>('UPDATE research_schedules SET next_run_ms = $2 WHERE id = $1 AND next_run_ms = $3 RETURNING id', [schedule.id, next, schedule.nextRunMs]);
        if (claimed.length === 0) continue;
        if (await this.allowRun(schedule.owner)) await this.runNow(schedule);
      }
    } catch {
      // The database is unavailable: the next tick tries again.
    } finally {
      this.ticking = false;
    }
  }
}
