/**
 * The forecast chart's value axis (issue 47 item 6): round ticks from at or below the lowest
 * value to at or above the highest, whole numbers for counts, and labels with just enough
 * decimals that no two ticks read the same.
 */
import { formatNumber } from '../../../../shared/format';

/** At most this many ticks, whatever the input: the axis never grows without bound. */
const MAX_TICKS = 12;

/** Round values (about five, never fewer than two) from at or below `min` to at or above `max`. */
export function axisTicks(min: number, max: number, whole: boolean): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (min > max) [min, max] = [max, min];
  // One value (or a flat series): a span the size of the value itself, so the axis still has two ticks.
  const span = max - min || Math.abs(max) || 1;
  const raw = span / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  // A count's ticks are whole: 2.5 × 10^k only where that is a whole number, and never below 1.
  const candidates = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).filter((c) => !whole || (c >= 1 && Number.isInteger(c)));
  const step = candidates.find((candidate) => candidate >= raw) ?? (whole ? Math.max(1, Math.ceil(raw)) : 10 * magnitude);
  // A hair of tolerance: 0.0012 / 0.0002 is 5.999… in floating point, and its tick is 0.0012.
  const start = Math.floor(min / step + 1e-9);
  const end = Math.max(Math.ceil(max / step - 1e-9), start + 1);
  const ticks: number[] = [];
  for (let i = start; i <= end && ticks.length < MAX_TICKS; i += 1) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

/** Fraction digits that tell the ticks apart (none for counts and whole steps). */
export function tickDigits(ticks: number[], whole: boolean): number {
  if (whole || ticks.length < 2) return 0;
  const step = Math.abs(ticks[1]! - ticks[0]!);
  for (let digits = 0; digits < 10; digits += 1) if (Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) < 1e-6) return digits;
  return 10;
}

/** The ticks as the axis shows them, in the app's number format. */
export function tickLabels(ticks: number[], whole: boolean): string[] {
  const digits = tickDigits(ticks, whole);
  return ticks.map((tick) => formatNumber(tick, { maxFractionDigits: digits, minFractionDigits: digits }));
}
