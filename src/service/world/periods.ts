/**
 * Indian fiscal periods and the festive calendar. FY27 runs 1 Apr 2026 – 31 Mar 2027;
 * Q1 = Apr–Jun, Q2 = Jul–Sep, Q3 = Oct–Dec, Q4 = Jan–Mar. All dates are UTC. Answers and the sample generator both use them.
 */

export interface FiscalQuarter {
  /** Two-digit fiscal year: 27 for FY27 (Apr 2026 – Mar 2027). */
  fy: number;
  q: 1 | 2 | 3 | 4;
  label: string;
  startMs: number;
  /** First instant after the quarter. */
  endMs: number;
}

export function fiscalQuarter(fy: number, q: number): FiscalQuarter {
  const startYear = 2000 + fy - 1;
  const startMonth = 3 + (q - 1) * 3;
  const startMs = Date.UTC(startYear, startMonth, 1);
  const endMs = Date.UTC(startYear, startMonth + 3, 1);
  return { fy, q: q as FiscalQuarter['q'], label: `Q${q} FY${fy}`, startMs, endMs };
}

export function fiscalQuarterOf(ms: number): FiscalQuarter {
  const date = new Date(ms);
  const month = date.getUTCMonth();
  const fyStartYear = month >= 3 ? date.getUTCFullYear() : date.getUTCFullYear() - 1;
  const q = Math.floor(((month - 3 + 12) % 12) / 3) + 1;
  return fiscalQuarter((fyStartYear + 1) % 100, q);
}

export function previousQuarter(quarter: FiscalQuarter, steps = 1): FiscalQuarter {
  let { fy, q } = quarter as { fy: number; q: number };
  for (let i = 0; i < steps; i += 1) {
    q -= 1;
    if (q === 0) {
      q = 4;
      fy -= 1;
    }
  }
  return fiscalQuarter(fy, q);
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

export function festiveWindow(year: number): { startMs: number; endMs: number; diwaliMs: number } | null {
  const day = DIWALI[year];
  if (!day) return null;
  const diwaliMs = Date.parse(`${day}T00:00:00Z`);
  return { diwaliMs, startMs: diwaliMs - 21 * 86_400_000, endMs: diwaliMs + 7 * 86_400_000 };
}

const dayFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
export const formatDate = (ms: number): string => dayFormat.format(new Date(ms));
