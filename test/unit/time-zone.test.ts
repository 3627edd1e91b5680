/**
 * The analyst's day (decision 0036): the service's dates and the app's are one rule, the calendar
 * date in the analyst's zone. The edge: an item published at 23:30 UTC is the next day in India.
 */
import { describe, expect, it } from 'vitest';
import { formatDate } from '../../src/shared/format';
import { formatDay } from '../../src/service/answers/composer';
import { parsePeriod } from '../../src/service/answers/question';
import { fiscalQuarter, fiscalQuarterOf } from '../../src/service/world/periods';
import { DEFAULT_TIME_ZONE, formatCalendarDay, isoDayIn, startOfDayIn, timeZoneOrNull } from '../../src/service/world/time-zone';

const LATE = '2026-11-12T23:30:00Z';

describe('one date for a signal', () => {
  it('an item at 23:30 UTC is 13 Nov 2026 in India, in the service\'s text and the app\'s formatting alike', () => {
    expect(DEFAULT_TIME_ZONE).toBe('Asia/Kolkata');
    expect(formatDay(LATE)).toBe('13 Nov 2026');
    expect(formatDay(LATE)).toBe(formatDate(LATE)); // the app's default (IST)
    expect(isoDayIn(LATE, 'Asia/Kolkata')).toBe('2026-11-13');
    // Another zone, the same rule on both sides.
    for (const zone of ['UTC', 'America/New_York', 'Europe/London', 'Asia/Tokyo']) expect(formatDay(LATE, zone), zone).toBe(formatDate(LATE, zone));
    expect(formatDay(LATE, 'UTC')).toBe('12 Nov 2026');
    expect(formatDay(LATE, 'Asia/Tokyo')).toBe('13 Nov 2026');
    // One minute before India's midnight is still the 12th there.
    expect(formatDay('2026-11-12T18:29:00Z')).toBe('12 Nov 2026');
    expect(formatDay('2026-11-12T18:30:00Z')).toBe('13 Nov 2026');
    expect(formatCalendarDay('2026-11-21')).toBe('21 Nov 2026');
  });

  it('periods start at midnight in the zone, and their labels name its days', () => {
    expect(new Date(startOfDayIn(2026, 0, 1, 'Asia/Kolkata')).toISOString()).toBe('2025-12-31T18:30:00.000Z');
    // Across a daylight-saving change: London's clocks went forward on 29 Mar 2026.
    expect(new Date(startOfDayIn(2026, 2, 30, 'Europe/London')).toISOString()).toBe('2026-03-29T23:00:00.000Z');
    expect(new Date(fiscalQuarter(27, 1, 'Asia/Kolkata').startMs).toISOString()).toBe('2026-03-31T18:30:00.000Z');
    // 1 Apr 2026 at 02:00 IST is still 31 Mar in UTC: FY27 Q1 in India, Q4 FY26 in UTC.
    const early = Date.parse('2026-03-31T20:30:00Z');
    expect(fiscalQuarterOf(early, 'Asia/Kolkata').label).toBe('Q1 FY27');
    expect(fiscalQuarterOf(early).label).toBe('Q4 FY26');
    // Just past midnight on 1 Jan in India: "this year" is 2026 there, and today is 1 Jan.
    const newYear = Date.parse('2025-12-31T18:40:00Z');
    expect(parsePeriod('openings this year', newYear, 'openings', 'Asia/Kolkata')).toMatchObject({ label: '2026 so far (1 Jan – 1 Jan 2026)', startMs: Date.parse('2025-12-31T18:30:00Z') });
    expect(parsePeriod('openings this year', newYear, 'openings', 'UTC')).toMatchObject({ label: '2025 so far (1 Jan – 31 Dec 2025)' });
    expect(parsePeriod('revenue in fy27', Date.parse('2026-12-01T00:00:00Z'), 'revenue', 'Asia/Kolkata')).toMatchObject({ label: 'FY27 (1 Apr 2026 – 31 Mar 2027)' });
  });

  it('takes IANA zones only, as written', () => {
    expect(timeZoneOrNull('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(timeZoneOrNull('Europe/London')).toBe('Europe/London');
    for (const bad of ['Mars/Olympus', '+05:30', '', 'Asia/Kolkata; rm -rf /', 42, null]) expect(timeZoneOrNull(bad), String(bad)).toBeNull();
  });
});
