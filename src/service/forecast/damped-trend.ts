/**
 * Damped-trend exponential smoothing (Holt's linear method with a damped trend, Gardner &
 * McKenzie), the forecasting method of `POST /api/v1/predict`. Chosen because it is simple,
 * well understood and honest on short, noisy series: the trend flattens out instead of
 * running away. Missing periods carry the level and trend forward without an update.
 *
 * The interval comes from the one-step residuals: their standard deviation, widened for
 * the horizon with the ETS(A,Ad,N) variance formula and by Student's t for a short series.
 */

export interface DampedTrendFit {
  alpha: number;
  beta: number;
  phi: number;
  level: number;
  trend: number;
  /** One-step-ahead errors over the fitted series. */
  residuals: number[];
}

export interface PointForecast {
  value: number;
  low: number;
  high: number;
  level: number;
}

const ALPHAS = [0.1, 0.2, 0.3, 0.5, 0.7, 0.9];
const BETAS = [0.05, 0.1, 0.2];
export const PHI = 0.9;

/** Fits by grid search on the one-step squared error (a small grid: the method stays explainable). */
export function fitDampedTrend(series: ReadonlyArray<number | null>): DampedTrendFit {
  let best: DampedTrendFit | null = null;
  let bestSse = Infinity;
  for (const alpha of ALPHAS) {
    for (const beta of BETAS) {
      const fit = run(series, alpha, beta, PHI);
      const sse = fit.residuals.reduce((sum, r) => sum + r * r, 0);
      if (sse < bestSse) {
        bestSse = sse;
        best = fit;
      }
    }
  }
  if (!best) throw new Error('empty series');
  return best;
}

function run(series: ReadonlyArray<number | null>, alpha: number, beta: number, phi: number): DampedTrendFit {
  const observed = series.filter((value): value is number => value !== null);
  if (observed.length < 2) throw new Error('need at least two observations');
  let level = observed[0]!;
  let trend = 0;
  const residuals: number[] = [];
  let started = false;
  for (const value of series) {
    if (!started) {
      if (value !== null) started = true;
      continue;
    }
    const predicted = level + phi * trend;
    if (value === null) {
      level = predicted;
      trend *= phi;
      continue;
    }
    const error = value - predicted;
    residuals.push(error);
    const newLevel = predicted + alpha * error;
    trend = phi * trend + alpha * beta * error;
    level = newLevel;
  }
  return { alpha, beta, phi, level, trend, residuals };
}

/** The forecast `steps` periods after the end of the fitted series, with a `level` interval. */
export function forecastAhead(fit: DampedTrendFit, steps: number, level = 0.8): PointForecast {
  let dampedSum = 0;
  for (let i = 1; i <= steps; i += 1) dampedSum += fit.phi ** i;
  const value = fit.level + dampedSum * fit.trend;
  // ETS(A,Ad,N): var_h = σ² (1 + Σ_{j=1}^{h-1} (α + αβ Σ_{i=1}^{j} φ^i)²)
  let multiplier = 1;
  let inner = 0;
  for (let j = 1; j < steps; j += 1) {
    inner += fit.phi ** j;
    multiplier += (fit.alpha + fit.alpha * fit.beta * inner) ** 2;
  }
  // The first error compares two raw observations (the level starts at the first one): twice
  // the noise of a fitted step, so it is left out of the spread once there are enough others.
  const residuals = fit.residuals.length > 3 ? fit.residuals.slice(1) : fit.residuals;
  const n = residuals.length;
  const mean = residuals.reduce((sum, r) => sum + r, 0) / n;
  const variance = residuals.reduce((sum, r) => sum + (r - mean) ** 2, 0) / Math.max(1, n - 1);
  const spread = studentT(level, Math.max(1, n - 1)) * Math.sqrt(variance * multiplier);
  return { value, low: value - spread, high: value + spread, level };
}

/** Two-sided Student's t quantile for the common levels (table; linear in 1/df between rows). */
function studentT(level: number, df: number): number {
  const tables: Record<string, Array<[number, number]>> = {
    '0.8': [[1, 3.078], [2, 1.886], [3, 1.638], [4, 1.533], [5, 1.476], [6, 1.44], [8, 1.397], [10, 1.372], [15, 1.341], [20, 1.325], [30, 1.31], [Infinity, 1.2816]],
    '0.95': [[1, 12.706], [2, 4.303], [3, 3.182], [4, 2.776], [5, 2.571], [6, 2.447], [8, 2.306], [10, 2.228], [15, 2.131], [20, 2.086], [30, 2.042], [Infinity, 1.96]],
  };
  const table = tables[String(level)] ?? tables['0.8']!;
  for (let i = 0; i < table.length; i += 1) {
    const [rowDf, t] = table[i]!;
    if (df <= rowDf) {
      if (i === 0 || rowDf === df) return t;
      const [prevDf, prevT] = table[i - 1]!;
      const x = (1 / df - 1 / prevDf) / (1 / (rowDf === Infinity ? 1e9 : rowDf) - 1 / prevDf);
      return prevT + x * (t - prevT);
    }
  }
  return table[table.length - 1]![1];
}
