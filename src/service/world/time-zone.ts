/**
 * The analyst's day (issue 43 item 4, decision 0036): every date the service writes into an
 * answer or a report is the calendar date in the analyst's time zone, the same date the app
 * shows for that signal. One rule, shared with the app: `formatDate` of src/shared/format.ts
 * in that zone. Asia/Kolkata unless the service is started with `--time-zone` or the request
 * names its own (`time_zone`, an extension field). Periods ("this year", "Q2 FY27") start at
 * midnight in that zone, so a signal is in the period its shown date says.
 */
import { canonicalTimeZone, formatDate, IST } from '../../shared/format';

export const DEFAULT_TIME_ZONE = IST;

const MS_PER_DAY = 86_400_000;
const partFormats = new Map<string, Intl.DateTimeFormat>();

/** `name` when it is an IANA time zone, or null (src/shared/format.ts: the app checks zones the same way). */
export const timeZoneOrNull = canonicalTimeZone;

/** What a bad zone is told (CLI and API alike). */
export const timeZoneError = (name: string): string =>
  `"${name}" is not a time zone: give an IANA zone name such as Asia/Kolkata, Europe/London or UTC.`;

function formatIn(zone: string): Intl.DateTimeFormat {
  let format = partFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' });
    partFormats.set(zone, format);
  }
  return format;
}

/** The wall-clock reading in `zone` at `ms`: month 0-based, as Date.UTC takes it. */
function wallClock(ms: number, zone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = formatIn(zone).formatToParts(new Date(ms));
  const get = (type: string): number => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return { year: get('year'), month: get('month') - 1, day: get('day'), hour: get('hour') % 24, minute: get('minute'), second: get('second') };
}

/** How far `zone`'s clock is ahead of UTC at `ms` (IST: +5 h 30 min). */
function offsetMs(ms: number, zone: string): number {
  const clock = wallClock(ms, zone);
  const whole = ms - (((ms % 1000) + 1000) % 1000);
  return Date.UTC(clock.year, clock.month, clock.day, clock.hour, clock.minute, clock.second) - whole;
}

/** The calendar day `ms` falls on in `zone`: { year, month (0-based), day }. */
export function calendarDayIn(ms: number, zone: string): { year: number; month: number; day: number } {
  // UTC without Intl: the sample generator asks this for every signal it makes.
  if (zone === 'UTC') {
    const date = new Date(ms);
    return { year: date.getUTCFullYear(), month: date.getUTCMonth(), day: date.getUTCDate() };
  }
  const { year, month, day } = wallClock(ms, zone);
  return { year, month, day };
}

/** "2026-11-13": the day `ms` falls on in `zone`. */
export function isoDayIn(value: string | number, zone: string): string {
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (Number.isNaN(ms)) return typeof value === 'string' ? value.slice(0, 10) : '';
  const { year, month, day } = calendarDayIn(ms, zone);
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The first instant of a calendar day in `zone` (month 0-based; an overflowing month or day
 * rolls over as Date.UTC does). Two passes find it across a daylight-saving change too.
 */
export function startOfDayIn(year: number, month: number, day: number, zone: string): number {
  const wall = Date.UTC(year, month, day);
  if (zone === 'UTC') return wall;
  let at = wall - offsetMs(wall, zone);
  at = wall - offsetMs(at, zone);
  return at;
}

/** The first instant of the day after the one `ms` falls on, in `zone`. */
export function endOfDayIn(ms: number, zone: string): number {
  const { year, month, day } = calendarDayIn(ms, zone);
  return startOfDayIn(year, month, day + 1, zone);
}

/** "13 Nov 2026": an instant's date in `zone`, as the app shows it. */
export const formatDayIn = (value: string | number | Date, zone: string): string => formatDate(value, zone);

/** "13 Nov 2026" for a calendar day named "2026-11-13" (no instant: no zone to apply). */
export const formatCalendarDay = (isoDay: string): string => formatDate(`${isoDay}T12:00:00Z`, 'UTC');

/** Whole calendar days between two days in `zone` (for "the last N days" and the like). */
export const daysBetween = (fromMs: number, toMs: number, zone: string): number => {
  const a = calendarDayIn(fromMs, zone);
  const b = calendarDayIn(toMs, zone);
  return Math.round((Date.UTC(b.year, b.month, b.day) - Date.UTC(a.year, a.month, a.day)) / MS_PER_DAY);
};
