/**
 * The forecast chart's value axis (issue 47 item 6), as an analyst reads it: every value lies
 * between the first and last tick, ticks are evenly spaced round numbers, counts get whole
 * numbers, and no two labels read the same — for one point, a flat series, negatives and huge values.
 */
import { describe, expect, it } from 'vitest';
import { axisTicks, tickLabels } from '../../src/renderer/src/features/discover/forecast-axis';

/** What a reader checks on any axis. */
function expectReadableAxis(values: number[], whole: boolean): { ticks: number[]; labels: string[] } {
  const ticks = axisTicks(Math.min(...values), Math.max(...values), whole);
  const labels = tickLabels(ticks, whole);
  expect(ticks.length).toBeGreaterThanOrEqual(2);
  expect(ticks.length).toBeLessThanOrEqual(12);
  expect(ticks[0]).toBeLessThanOrEqual(Math.min(...values));
  expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(Math.max(...values));
  const step = ticks[1]! - ticks[0]!;
  expect(step).toBeGreaterThan(0);
  for (let i = 1; i < ticks.length; i += 1) expect(ticks[i]! - ticks[i - 1]!).toBeCloseTo(step, 6);
  // Round: the step is 1, 2, 2.5 or 5 times a power of ten.
  const mantissa = step / 10 ** Math.floor(Math.log10(step));
  expect([1, 2, 2.5, 5, 10].some((m) => Math.abs(m - mantissa) < 1e-9)).toBe(true);
  expect(new Set(labels).size).toBe(labels.length);
  if (whole) for (const tick of ticks) expect(Number.isInteger(tick)).toBe(true);
  if (whole) for (const label of labels) expect(label).toMatch(/^−?[\d,]+$/);
  return { ticks, labels };
}

describe('forecast value axis', () => {
  it('a store count: whole, round ticks with grouped digits, never "927.4"', () => {
    const { ticks, labels } = expectReadableAxis([927, 941, 955, 970, 988.6], true);
    expect(ticks).toEqual([920, 940, 960, 980, 1000]);
    expect(labels).toEqual(['920', '940', '960', '980', '1,000']);
  });

  it('a small count (1 to 3) is labelled 1, 2, 3, not 0.5 steps', () => {
    expect(expectReadableAxis([1, 2, 3], true).labels).toEqual(['1', '2', '3']);
    expect(expectReadableAxis([1, 2], true).ticks).toEqual([1, 2]);
    // A count of 0 to 10: steps of 2.5 would not be whole.
    expect(expectReadableAxis([0, 10], true).ticks.every((tick) => tick % 5 === 0 || tick % 2 === 0)).toBe(true);
  });

  it('a count between two whole numbers still gets whole ticks around it', () => {
    expect(expectReadableAxis([0.2, 0.8], true).ticks).toEqual([0, 1]);
  });

  it('one point: two ticks around it', () => {
    expect(expectReadableAxis([927], true).ticks).toEqual([750, 1000]);
    expect(expectReadableAxis([12.5], false).ticks.length).toBeGreaterThanOrEqual(2);
  });

  it('a flat series at zero, and at a value: two ticks, distinct labels', () => {
    expect(expectReadableAxis([0, 0, 0], true).ticks).toEqual([0, 1]);
    expectReadableAxis([0, 0], false);
    expectReadableAxis([42, 42, 42], true);
    expectReadableAxis([-3.5, -3.5], false);
  });

  it('negative values (a growth rate falling below zero) keep their sign and order', () => {
    const { ticks, labels } = expectReadableAxis([-12.5, -4, 3.2], false);
    expect(ticks).toEqual([-15, -10, -5, 0, 5]);
    expect(labels).toEqual(['−15', '−10', '−5', '0', '5']);
    expect(expectReadableAxis([-980, -902], true).ticks).toEqual([-980, -960, -940, -920, -900]);
  });

  it('rates with fine steps show the decimals that tell ticks apart', () => {
    const { labels } = expectReadableAxis([0.0012, 0.0019], false);
    expect(labels).toEqual(['0.0012', '0.0014', '0.0016', '0.0018', '0.0020']);
    expect(expectReadableAxis([1.05, 1.95], false).labels).toEqual(['1.00', '1.25', '1.50', '1.75', '2.00']);
  });

  it('huge values (₹ crore at a trillion) stay round and readable', () => {
    const { ticks, labels } = expectReadableAxis([1e12, 1.2e12], true);
    expect(ticks).toEqual([1e12, 1.05e12, 1.1e12, 1.15e12, 1.2e12]);
    expect(labels[0]).toBe('10,00,00,00,00,000');
    expectReadableAxis([1e15, 3.7e15], false);
  });

  it('no finite values: no ticks rather than a runaway loop', () => {
    expect(axisTicks(Number.NaN, 5, false)).toEqual([]);
    expect(axisTicks(0, Number.POSITIVE_INFINITY, true)).toEqual([]);
  });
});
