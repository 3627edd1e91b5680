/**
 * Feed dates to ISO 8601 (UTC, to the second), read as feedparser reads them: RFC 822 and its
 * common broken forms (no weekday, a weekday with no comma, two-digit years, named and military
 * zones, a missing zone as UTC), ISO 8601 and W3CDTF (basic and extended, reduced precision,
 * ordinal days), and whatever else JavaScript's Date parses. Null when nothing reads.
 */

const MONTHS: Record<string, number> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };

/** Named zones' offsets in minutes east of UTC (RFC 822 and the common US ones). */
const ZONES: Record<string, number> = {
  ut: 0, utc: 0, gmt: 0, z: 0, est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420,
  a: -60, b: -120, c: -180, d: -240, e: -300, f: -360, g: -420, h: -480, i: -540, k: -600, l: -660, m: -720,
  n: 60, o: 120, p: 180, q: 240, r: 300, s: 360, t: 420, u: 480, v: 540, w: 600, x: 660, y: 720,
};

function zoneOffset(zone: string | undefined): number | null {
  if (!zone) return 0;
  const numeric = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone);
  if (numeric) return (numeric[1] === '-' ? -1 : 1) * (Number(numeric[2]) * 60 + Number(numeric[3] ?? 0));
  const named = ZONES[zone.toLowerCase()];
  return named ?? null;
}

function toIso(year: number, month: number, day: number, hour: number, minute: number, second: number, offsetMinutes: number): string | null {
  if (month < 0 || month > 11 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 61) return null;
  const ms = Date.UTC(year, month, day, hour, minute, Math.min(second, 59)) - offsetMinutes * 60_000;
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  if (date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return null;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function fullYear(text: string): number {
  const year = Number(text);
  return text.length <= 2 ? 2000 + year : year;
}

const RFC822 = /^(?:[a-z]{2,}\.?,?\s*)?(\d{1,2})[\s-]+([a-z]{3,})\.?[\s-]+(\d{2,4})(?:[\sT]+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)?\s*([a-z]{1,5}|[+-]\d{1,2}:?\d{2})?\s*$/i;
/** "Mon, Dec 31 2007 10:00 GMT" — month before day. */
const RFC822_MONTH_FIRST = /^(?:[a-z]{2,}\.?,?\s*)?([a-z]{3,})\.?\s+(\d{1,2}),?\s+(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*([a-z]{1,5}|[+-]\d{1,2}:?\d{2})?\s*$/i;
const ISO = /^(\d{4})(?:-?(\d{2})(?:-?(\d{2}))?|-?(\d{3}))?(?:[T\s](\d{2}):?(\d{2})(?::?(\d{2})(?:[.,]\d+)?)?)?\s*(z|[+-]\d{2}(?::?\d{2})?)?$/i;

export function parseFeedDate(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const text = raw.trim().replace(/\s+/g, ' ');
  if (!text) return null;
  const rfc = RFC822.exec(text);
  if (rfc) {
    const month = MONTHS[rfc[2]!.slice(0, 3).toLowerCase()];
    const offset = zoneOffset(rfc[7]);
    if (month !== undefined && offset !== null) return toIso(fullYear(rfc[3]!), month, Number(rfc[1]), Number(rfc[4] ?? 0), Number(rfc[5] ?? 0), Number(rfc[6] ?? 0), offset);
  }
  const monthFirst = RFC822_MONTH_FIRST.exec(text);
  if (monthFirst) {
    const month = MONTHS[monthFirst[1]!.slice(0, 3).toLowerCase()];
    const offset = zoneOffset(monthFirst[7]);
    if (month !== undefined && offset !== null) return toIso(Number(monthFirst[3]), month, Number(monthFirst[2]), Number(monthFirst[4] ?? 0), Number(monthFirst[5] ?? 0), Number(monthFirst[6] ?? 0), offset);
  }
  const iso = ISO.exec(text);
  if (iso) {
    const offset = zoneOffset(iso[8] && iso[8].length === 3 ? `${iso[8]}:00` : iso[8]);
    if (offset === null) return null;
    const year = Number(iso[1]);
    if (iso[4]) {
      // An ordinal date (2003-335): the day of the year.
      const start = Date.UTC(year, 0, 1) + (Number(iso[4]) - 1) * 86_400_000;
      const date = new Date(start);
      return toIso(year, date.getUTCMonth(), date.getUTCDate(), Number(iso[5] ?? 0), Number(iso[6] ?? 0), Number(iso[7] ?? 0), offset);
    }
    return toIso(year, Number(iso[2] ?? 1) - 1, Number(iso[3] ?? 1), Number(iso[5] ?? 0), Number(iso[6] ?? 0), Number(iso[7] ?? 0), offset);
  }
  const parsed = Date.parse(text);
  if (!Number.isFinite(parsed)) return null;
  return new Date(parsed).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
