/**
 * Indian fiscal periods and the festive calendar. FY27 runs 1 Apr 2026 – 31 Mar 2027;
 * Q1 = Apr–Jun, Q2 = Jul–Sep, Q3 = Oct–Dec, Q4 = Jan–Mar. A period starts at midnight in the
 * zone given: answers pass the analyst's (time-zone.ts); the sample generator keeps UTC.
 */
import { calendarDayIn, startOfDayIn } from './time-zone';

export interface FiscalQuarter {
  /** Two-digit fiscal year: 27 for FY27 (Apr 2026 – Mar 2027). */
  fy: number;
  q: 1 | 2 | 3 | 4;
  label: string;
  startMs: number;
  /** First instant after the quarter. */
  endMs: number;
}

export function fiscalQuarter(fy: number, q: number, zone = 'UTC'): FiscalQuarter {
  const startYear = 2000 + fy - 1;
  const startMonth = 3 + (q - 1) * 3;
  const startMs = startOfDayIn(startYear, startMonth, 1, zone);
  const endMs = startOfDayIn(startYear, startMonth + 3, 1, zone);
  return { fy, q: q as FiscalQuarter['q'], label: `Q${q} FY${fy}`, startMs, endMs };
}

export function fiscalQuarterOf(ms: number, zone = 'UTC'): FiscalQuarter {
  const { year, month } = calendarDayIn(ms, zone);
  const fyStartYear = month >= 3 ? year : year - 1;
  const q = Math.floor(((month - 3 + 12) % 12) / 3) + 1;
  return fiscalQuarter((fyStartYear + 1) % 100, q, zone);
}

/** The quarter before (the zone kept from `quarter`'s start: pass it again for a zone other than UTC). */
export function previousQuarter(quarter: FiscalQuarter, steps = 1, zone = 'UTC'): FiscalQuarter {
  let { fy, q } = quarter as { fy: number; q: number };
  for (let i = 0; i < steps; i += 1) {
    q -= 1;
    if (q === 0) {
      q = 4;
      fy -= 1;
    }
  }
  return fiscalQuarter(fy, q, zone);
}

export function nextQuarter(quarter: FiscalQuarter): FiscalQuarter {
  return quarter.q === 4 ? fiscalQuarter(quarter.fy + 1, 1) : fiscalQuarter(quarter.fy, quarter.q + 1);
}

/** Diwali (Lakshmi Puja) dates; the festive season is the three weeks up to and the week after. */
export const DIWALI: Record<number, string> = {
  2024: '2024-11-01',
  2025: '2025-10-21',
  2026: '2026-11-08',
  2027: '2027-10-29',
};

export function festiveWindow(year: number, zone = 'UTC'): { startMs: number; endMs: number; diwaliMs: number } | null {
  const day = DIWALI[year];
  if (!day) return null;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const diwaliMs = startOfDayIn(y, m - 1, d, zone);
  return { diwaliMs, startMs: startOfDayIn(y, m - 1, d - 21, zone), endMs: startOfDayIn(y, m - 1, d + 7, zone) };
}
