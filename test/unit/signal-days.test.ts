/** Signals' days are kept between answers, and a kept day is the day the analyst's zone gives. */
import { describe, expect, it } from 'vitest';
import { isoDayOf, shownDayOf } from '../../src/service/answers/signal-days';

describe('signal days', () => {
  it('dates a signal in the zone asked, the same day on every call (kept or not)', () => {
    // 20:00 UTC on 17 Nov is already 18 Nov in India, still 17 Nov in New York.
    const at = '2026-11-17T20:00:00.000Z';
    for (let i = 0; i < 2; i += 1) {
      expect(shownDayOf(at, 'Asia/Kolkata')).toBe('18 Nov 2026');
      expect(shownDayOf(at, 'America/New_York')).toBe('17 Nov 2026');
      expect(isoDayOf(at, 'Asia/Kolkata')).toBe('2026-11-18');
      expect(isoDayOf(at, 'UTC')).toBe('2026-11-17');
    }
  });

  it('keeps giving the right day past the number it keeps', () => {
    const start = Date.parse('2020-01-01T12:00:00.000Z');
    for (let i = 0; i < 60_000; i += 1) isoDayOf(new Date(start + i * 3_600_000).toISOString(), 'UTC');
    expect(isoDayOf('2020-01-02T12:00:00.000Z', 'UTC')).toBe('2020-01-02');
    expect(shownDayOf('not a date', 'UTC')).toBe('date unknown');
  });
});
