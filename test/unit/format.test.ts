/** The one formatting module (src/shared/format.ts): what an analyst in India reads. */
import { describe, expect, it } from 'vitest';
import {
  MINUS, calendarDaysAgo, formatAgo, formatCost, formatCount, formatDate, formatDateTime, formatDayAge, formatDuration,
  formatInWords, formatNumber, formatPercent, formatRupees, formatTime, formatUsd, parseDayInput, zoneLabel,
} from '../../src/shared/format';

describe('numbers', () => {
  it('groups digits the Indian way', () => {
    expect(formatNumber(1234567)).toBe('12,34,567');
    expect(formatNumber(1234567.891, { maxFractionDigits: 2 })).toBe('12,34,567.89');
    expect(formatNumber(999)).toBe('999');
    expect(formatNumber(100000)).toBe('1,00,000');
  });
  it('writes a true minus sign, and never "−0"', () => {
    expect(formatNumber(-1234567)).toBe(`${MINUS}12,34,567`);
    expect(formatNumber(-1234567).charCodeAt(0)).toBe(0x2212);
    expect(formatNumber(-0.001)).toBe('0');
    expect(formatPercent(-0.025)).toBe(`${MINUS}2.5%`);
  });
  it('says lakh and crore where figures are large', () => {
    expect(formatInWords(1234567)).toBe('12.35 lakh');
    expect(formatInWords(12345678)).toBe('1.23 crore');
    expect(formatInWords(-25_000_000)).toBe(`${MINUS}2.5 crore`);
    expect(formatInWords(45_000)).toBe('45,000');
    expect(formatCount(1234567)).toBe('12,34,567 (12.35 lakh)');
    expect(formatCount(5000)).toBe('5,000');
  });
  it('writes rupees with ₹ and Indian grouping', () => {
    expect(formatRupees(1234567)).toBe('₹12,34,567');
    expect(formatRupees(-450.5)).toBe(`${MINUS}₹450.5`);
    expect(formatRupees(52_000_000, { words: true })).toBe('₹5.2 crore');
  });
});

describe('costs', () => {
  it('keeps USD as sent, to a readable precision', () => {
    expect(formatUsd(0.0123)).toBe('US$0.012');
    expect(formatUsd(0.5)).toBe('US$0.5');
    expect(formatUsd(1234.5)).toBe('US$1,234.50');
    expect(formatCost(0.0123)).toBe('US$0.012');
    expect(formatCost(null)).toBe('cost not reported');
  });
  it('converts to rupees at the user’s rate, keeping the USD beside it', () => {
    expect(formatCost(0.5, { costCurrency: 'inr', inrPerUsd: 84 })).toBe('₹42 (US$0.5)');
    expect(formatCost(0.0123, { costCurrency: 'inr', inrPerUsd: 84 })).toBe('₹1.03 (US$0.012)');
    // No rate set: nothing to convert with, so USD as sent.
    expect(formatCost(0.5, { costCurrency: 'inr', inrPerUsd: null })).toBe('US$0.5');
  });
});

describe('dates and times', () => {
  it('writes dates as "18 Nov 2026", in IST by default', () => {
    expect(formatDate('2026-11-18T10:00:00Z')).toBe('18 Nov 2026');
    // 20:00 UTC is already the next day in India.
    expect(formatDate('2026-11-18T20:00:00Z')).toBe('19 Nov 2026');
    expect(formatDate('2026-11-18T20:00:00Z', 'UTC')).toBe('18 Nov 2026');
    expect(formatDate('2026-09-03T10:00:00Z')).toBe('3 Sep 2026');
    expect(formatDate(undefined)).toBe('date unknown');
    expect(formatDate('not a date')).toBe('date unknown');
  });
  it('writes times to the minute with the zone', () => {
    expect(formatTime('2026-11-18T08:35:12Z')).toBe('14:05 IST');
    expect(formatTime('2026-11-18T08:35:12Z', 'UTC')).toBe('08:35 UTC');
    expect(formatTime('2026-11-18T08:35:12Z', 'America/New_York')).toBe('03:35 EST');
    expect(formatDateTime('2026-11-18T08:35:12Z')).toBe('18 Nov 2026, 14:05 IST');
    expect(zoneLabel('Asia/Kolkata')).toBe('IST');
  });
  it('counts ages in calendar days, right across midnight', () => {
    const now = '2026-11-18T19:00:00Z'; // 00:30 on 19 Nov in India
    // 23:30 IST the evening before: an hour ago, but yesterday.
    expect(calendarDaysAgo('2026-11-18T18:00:00Z', now)).toBe(1);
    expect(formatDayAge('2026-11-18T18:00:00Z', now)).toBe('yesterday');
    expect(formatDayAge('2026-11-18T19:10:00Z', '2026-11-18T20:00:00Z')).toBe('today');
    expect(formatDayAge('2026-11-13T12:00:00Z', now)).toBe('6 days ago');
    expect(formatDayAge('2026-11-21T12:00:00Z', now)).toBe('in 2 days');
    // In UTC the same two moments are on one day.
    expect(formatDayAge('2026-11-18T18:00:00Z', now, 'UTC')).toBe('today');
  });
  it('says how long ago something recent happened', () => {
    const now = Date.parse('2026-11-18T12:00:00Z');
    expect(formatAgo(now - 24_000, now)).toBe('24 s ago');
    expect(formatAgo(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(formatAgo(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(formatAgo(now - 2 * 86_400_000, now)).toBe('2 days ago');
    expect(formatAgo(null, now)).toBe('never');
    expect(formatDuration(3)).toBe('3 s');
    expect(formatDuration(80)).toBe('1 min 20 s');
  });
  it('reads days typed day first', () => {
    expect(parseDayInput('18 Nov 2026')).toBe('2026-11-18');
    expect(parseDayInput('18/11/2026')).toBe('2026-11-18');
    expect(parseDayInput('3-9-26')).toBe('2026-09-03');
    expect(parseDayInput('2026-11-18')).toBe('2026-11-18');
    expect(parseDayInput('31/02/2026')).toBeNull();
    expect(parseDayInput('11/31/2026')).toBeNull();
    expect(parseDayInput('soon')).toBeNull();
  });
});

describe('a true minus sign in displayed text (issue 29)', () => {
  it('replaces a hyphen that starts a figure, never one inside a name, a range or a date', async () => {
    const { withMinusSigns } = await import('../../src/shared/format');
    expect(withMinusSigns('Zepto (-1.1 pts, to 23.4%); prices moved -6.4% [sig_1]')).toBe('Zepto (\u22121.1 pts, to 23.4%); prices moved \u22126.4% [sig_1]');
    expect(withMinusSigns('-₹450 on 2026-11-21 for V-Mart in FY2026-27, tier-2 cities')).toBe('\u2212₹450 on 2026-11-21 for V-Mart in FY2026-27, tier-2 cities');
    expect(withMinusSigns('- a list item with 5 stores')).toBe('- a list item with 5 stores');
  });
});
