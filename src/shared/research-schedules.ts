/**
 * Research schedules as the app shows them (issue 46 item 5): the service keeps them (a topic run
 * every day or week at a UTC time of day); the analyst picks and reads the time in their display
 * zone, and the schedule is said in words ("Every week on Monday at 09:00 IST"). Platform-free and
 * without zod: the renderer imports it at runtime.
 */
import { zoneLabel } from './format';

export type ScheduleEvery = 'daily' | 'weekly';

/** One of the analyst's schedules, as main hands it to the renderer. */
export interface ResearchScheduleView {
  id: string;
  topic: string;
  preset: string;
  every: ScheduleEvery;
  /** HH:MM, UTC (the service's time of day). */
  at: string;
  createdAt: string;
  nextRunAt: string;
  /** The app's run (an id of `research.list`) of the schedule's last run, when the app holds it. */
  lastRunId: string | null;
}

export interface ResearchSchedulesView {
  schedules: ResearchScheduleView[];
  /** How many schedules the analyst's plan allows. */
  limit: number;
  /** The research limit that creating a schedule and running one now count toward. */
  researchLimit: { runs: number; minutes: number };
}

/** HH:MM, 00:00–23:59. */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** How far the zone's clock is ahead of UTC at `at`, in minutes (330 for IST). */
export function zoneOffsetMinutes(zone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(new Date(at));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'));
  return Math.round((asUtc - Math.floor(at / MINUTE_MS) * MINUTE_MS) / MINUTE_MS);
}

const pad = (n: number): string => String(n).padStart(2, '0');
const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const timeOf = (minutes: number): string => {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
};

/** The analyst's time of day in their zone (HH:MM) as the service's UTC time of day, by today's offset. */
export function utcTimeOfDay(local: string, zone: string, now: number = Date.now()): string {
  return timeOf(minutesOf(local) - zoneOffsetMinutes(zone, now));
}

/** The service's UTC time of day in the analyst's zone (HH:MM), by today's offset. */
export function localTimeOfDay(utc: string, zone: string, now: number = Date.now()): string {
  return timeOf(minutesOf(utc) + zoneOffsetMinutes(zone, now));
}

/**
 * When a schedule made now would first run: the next `at` (UTC) after now, daily, or weekly on
 * today's UTC weekday (the service's rule: the weekday the schedule was made). A preview for the
 * form; the service's own answer (`nextRunAt`) is what the list shows.
 */
export function firstRunOf(every: ScheduleEvery, atUtc: string, now: number = Date.now()): number {
  const midnight = Math.floor(now / DAY_MS) * DAY_MS;
  const today = midnight + minutesOf(atUtc) * MINUTE_MS;
  return today > now ? today : today + (every === 'daily' ? DAY_MS : 7 * DAY_MS);
}

/**
 * When a schedule made at `createdAtMs` runs next after `now` at `atUtc`: daily, or weekly on its
 * creation's UTC weekday (the service's rule, kept when a schedule's time is changed). A preview
 * for the edit form; the service's own answer is what the list shows after.
 */
export function nextRunOf(every: ScheduleEvery, atUtc: string, createdAtMs: number, now: number = Date.now()): number {
  let next = firstRunOf('daily', atUtc, now);
  if (every === 'weekly') while (new Date(next).getUTCDay() !== new Date(createdAtMs).getUTCDay()) next += DAY_MS;
  return next;
}

function weekdayIn(at: number, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'long' }).format(new Date(at));
}

/** "Every day at 09:00 IST", "Every week on Monday at 09:00 IST": when it runs, read from a run time. */
export function scheduleInWords(every: ScheduleEvery, runAt: string | number, zone: string): string {
  const at = typeof runAt === 'number' ? runAt : Date.parse(runAt);
  if (Number.isNaN(at)) return every === 'daily' ? 'Every day' : 'Every week';
  const time = `${localTimeOfDay(`${pad(new Date(at).getUTCHours())}:${pad(new Date(at).getUTCMinutes())}`, zone, at)} ${zoneLabel(zone, new Date(at))}`;
  return every === 'daily' ? `Every day at ${time}` : `Every week on ${weekdayIn(at, zone)} at ${time}`;
}
