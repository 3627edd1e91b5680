/**
 * How the app writes numbers, money, dates and times, in one place (issue #16): Indian digit
 * grouping (12,34,567), lakh and crore in words for large figures, ₹ amounts, a true minus sign,
 * dates as "18 Nov 2026", times with their zone (IST unless the user picks this computer's
 * zone), and ages counted in calendar days of that zone, so yesterday evening is "yesterday".
 * Pure functions; the zone and the cost preference are arguments.
 */

export const MINUS = '\u2212';
export const IST = 'Asia/Kolkata';
const LAKH = 100_000;
const CRORE = 10_000_000;
/** Fixed names: ICU's en-GB writes "Sept", which no analyst expects. */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export type ZonePreference = 'ist' | 'system';
export type CostCurrency = 'usd' | 'inr';

/** What the user chose in Settings › Display. */
export interface DisplayPreferences {
  timeZone: ZonePreference;
  costCurrency: CostCurrency;
  /** Rupees per US dollar, the user's own rate; costs stay in USD while it is unset. */
  inrPerUsd: number | null;
}

export const DEFAULT_DISPLAY: DisplayPreferences = { timeZone: 'ist', costCurrency: 'usd', inrPerUsd: null };

const numberFormats = new Map<string, Intl.NumberFormat>();
function numberFormat(min: number, max: number): Intl.NumberFormat {
  const key = `${min}:${max}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat('en-IN', { minimumFractionDigits: min, maximumFractionDigits: max });
    numberFormats.set(key, format);
  }
  return format;
}

const withMinus = (text: string): string => text.replace(/^-/, MINUS);

/**
 * Text whose negative figures are written with a hyphen ("-1.1 pts", "(-6.4%)") gets the true
 * minus sign (U+2212) before each: only a hyphen that starts a number, never one inside a name
 * or a range ("V-Mart", "FY2026-27", "2026-11-21").
 */
export function withMinusSigns(text: string): string {
  return text.replace(/(^|[\s([:;,/])-(?=[₹#]?\d)/gmu, `$1${MINUS}`);
}

/** 1234567.8 → "12,34,568"; −5 → "−5" (U+2212). */
export function formatNumber(value: number, options: { maxFractionDigits?: number; minFractionDigits?: number } = {}): string {
  if (!Number.isFinite(value)) return '—';
  const max = options.maxFractionDigits ?? 0;
  const text = numberFormat(Math.min(options.minFractionDigits ?? 0, max), max).format(value);
  // "−0" says nothing a reader needs.
  return text === '-0' ? '0' : withMinus(text);
}

/** A large figure in words: 1,23,45,678 → "1.23 crore", 12,34,567 → "12.35 lakh"; below a lakh, grouped digits. */
export function formatInWords(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const size = Math.abs(value);
  if (size >= CRORE) return `${formatNumber(value / CRORE, { maxFractionDigits: 2 })} crore`;
  if (size >= LAKH) return `${formatNumber(value / LAKH, { maxFractionDigits: 2 })} lakh`;
  return formatNumber(value, { maxFractionDigits: 2 });
}

/** A count: grouped digits, with the words beside it where it is large ("12,34,567 (12.35 lakh)"). */
export function formatCount(value: number): string {
  const digits = formatNumber(value);
  return Math.abs(value) >= LAKH ? `${digits} (${formatInWords(value)})` : digits;
}

/** ₹ with Indian grouping: "₹12,34,567", "−₹450"; `words` writes large sums as "₹1.23 crore". */
export function formatRupees(value: number, options: { words?: boolean; maxFractionDigits?: number } = {}): string {
  if (!Number.isFinite(value)) return '—';
  const size = Math.abs(value);
  const body = options.words && size >= LAKH ? formatInWords(size) : formatNumber(size, { maxFractionDigits: options.maxFractionDigits ?? 2 });
  return `${value < 0 ? MINUS : ''}₹${body}`;
}

/** A fraction as a percentage: 0.0345 → "3.5%", −0.02 → "−2.0%". */
export function formatPercent(fraction: number, digits = 1): string {
  if (!Number.isFinite(fraction)) return '—';
  return `${formatNumber(fraction * 100, { minFractionDigits: digits, maxFractionDigits: digits })}%`;
}

/** US dollars as the service sent them, to a sensible precision: "US$1.25", "US$0.012". */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd)) return '—';
  const size = Math.abs(usd);
  const sign = usd < 0 ? MINUS : '';
  if (size === 0) return 'US$0';
  if (size >= 1) return `${sign}US$${formatNumber(size, { minFractionDigits: 2, maxFractionDigits: 2 })}`;
  // Small sums keep two significant digits: a research run costs fractions of a cent.
  const decimals = Math.min(6, Math.max(2, 1 - Math.floor(Math.log10(size))));
  return `${sign}US$${formatNumber(size, { maxFractionDigits: decimals })}`;
}

/** A cost as the user chose: USD as sent, or rupees at their rate with the USD beside it. */
export function formatCost(usd: number | null | undefined, prefs: Pick<DisplayPreferences, 'costCurrency' | 'inrPerUsd'> = DEFAULT_DISPLAY): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return 'cost not reported';
  if (prefs.costCurrency !== 'inr' || !prefs.inrPerUsd || prefs.inrPerUsd <= 0) return formatUsd(usd);
  const inr = usd * prefs.inrPerUsd;
  const digits = Math.abs(inr) >= 1 || inr === 0 ? 2 : Math.min(4, 1 - Math.floor(Math.log10(Math.abs(inr))));
  return `${formatRupees(inr, { maxFractionDigits: digits })} (${formatUsd(usd)})`;
}

/**
 * `name` when it is an IANA time zone this runtime knows ("Asia/Kolkata", "Europe/London", "UTC"),
 * kept as written (ICU would rename Asia/Kolkata to its old alias), or null for anything else (an
 * offset such as "+05:30" is not a zone).
 */
export function canonicalTimeZone(name: unknown): string | null {
  if (typeof name !== 'string' || name.length === 0 || name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name;
  } catch {
    return null;
  }
}

/** This computer's time zone (an IANA name). */
export function systemZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function resolveZone(preference: ZonePreference | undefined): string {
  return preference === 'system' ? systemZone() : IST;
}

type Instant = string | number | Date | null | undefined;

function toDate(value: Instant): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const partFormats = new Map<string, Intl.DateTimeFormat>();
type DateParts = Readonly<{ year: number; month: number; day: number; hour: number; minute: number }>;
// The parts of instants already read, per zone and millisecond: an answer's citation list and its
// markdown format the same few published dates on every render (3.6 ms of a streamed frame's 3.8 in
// the citation list, issue 50 round 6), and ICU's formatToParts is the cost. Bounded: cleared when full.
const knownParts = new Map<string, DateParts>();
const KNOWN_PARTS_MAX = 4_096;
function partsIn(date: Date, zone: string): DateParts {
  const key = `${zone}\u0000${date.getTime()}`;
  const known = knownParts.get(key);
  if (known) return known;
  let format = partFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' });
    partFormats.set(zone, format);
  }
  // One formatToParts per call (it was one per field: five, ≈ 3 % of the service's main thread
  // over a burst of answers, which format every cited signal's date).
  const parts = format.formatToParts(date);
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const read: DateParts = Object.freeze({ year: get('year'), month: get('month'), day: get('day'), hour: get('hour') % 24, minute: get('minute') });
  if (knownParts.size >= KNOWN_PARTS_MAX) knownParts.clear();
  knownParts.set(key, read);
  return read;
}

/** The zone's short name: "IST" for India, "UTC", or what ICU calls it ("GMT+1", "EST"). */
export function zoneLabel(zone: string, at: Date = new Date()): string {
  if (zone === IST || zone === 'Asia/Calcutta') return 'IST';
  if (zone === 'UTC' || zone === 'Etc/UTC') return 'UTC';
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
  return name ?? zone;
}

/** "18 Nov 2026" in the zone; "date unknown" for a missing or unreadable value. */
export function formatDate(value: Instant, zone: string = IST): string {
  const date = toDate(value);
  if (!date) return 'date unknown';
  const p = partsIn(date, zone);
  return `${p.day} ${MONTHS[p.month - 1]} ${p.year}`;
}

/** "14:05 IST": to the minute, with the zone. */
export function formatTime(value: Instant, zone: string = IST): string {
  const date = toDate(value);
  if (!date) return '—';
  const p = partsIn(date, zone);
  return `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')} ${zoneLabel(zone, date)}`;
}

/** "18 Nov 2026, 14:05 IST". */
export function formatDateTime(value: Instant, zone: string = IST): string {
  const date = toDate(value);
  return date ? `${formatDate(date, zone)}, ${formatTime(date, zone)}` : '—';
}

/** Calendar days from `value` to `now` in the zone (0 = same day, 1 = yesterday), whatever the hours. */
export function calendarDaysAgo(value: Instant, now: Instant = Date.now(), zone: string = IST): number | null {
  const date = toDate(value);
  const reference = toDate(now);
  if (!date || !reference) return null;
  const a = partsIn(date, zone);
  const b = partsIn(reference, zone);
  return Math.round((Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / 86_400_000);
}

/** "today", "yesterday", "5 days ago", "in 2 days": calendar days in the zone. */
export function formatDayAge(value: Instant, now: Instant = Date.now(), zone: string = IST): string {
  const days = calendarDaysAgo(value, now, zone);
  if (days === null) return 'date unknown';
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days === -1) return 'tomorrow';
  return days > 0 ? `${formatNumber(days)} days ago` : `in ${formatNumber(-days)} days`;
}

/** A recent moment: "just now", "24 s ago", "5 min ago", "3 h ago", then calendar days. */
export function formatAgo(value: Instant, now: Instant = Date.now(), zone: string = IST): string {
  const date = toDate(value);
  const reference = toDate(now);
  if (!date || !reference) return 'never';
  const seconds = Math.round((reference.getTime() - date.getTime()) / 1000);
  if (seconds < 0) return formatDayAge(date, reference, zone);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 6 * 3_600) return `${Math.floor(seconds / 3_600)} h ago`;
  return formatDayAge(date, reference, zone);
}

/** A duration: "3 s", "1 min 20 s", "2 h 5 min". */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  if (s < 60) return `${s} s`;
  if (s < 3_600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3_600)} h${Math.floor((s % 3_600) / 60) ? ` ${Math.floor((s % 3_600) / 60)} min` : ''}`;
}

/**
 * A day the user typed, day first as in India: "18 Nov 2026", "18/11/2026", "18-11-26", or ISO
 * "2026-11-18". Returns "YYYY-MM-DD", or null when it is not a real day.
 */
export function parseDayInput(text: string): string | null {
  const input = text.trim();
  let year: number;
  let month: number;
  let day: number;
  let m: RegExpMatchArray | null;
  if ((m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(input))) [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$/.exec(input))) [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{1,2})\s+([a-z]{3,9})\.?,?\s+(\d{2}|\d{4})$/i.exec(input))) {
    const index = MONTHS.findIndex((name) => m![2]!.toLowerCase().startsWith(name.toLowerCase()));
    if (index < 0) return null;
    [day, month, year] = [Number(m[1]), index + 1, Number(m[3])];
  } else return null;
  if (year < 100) year += 2000;
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
