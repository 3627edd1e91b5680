/** A run's or report's cost as the analyst reads it. */
export const COMPUTED_LOCALLY = 'Computed locally';

/** Bought tokens priced; a report written on this machine said to be local (not US$0.00); unpriced as a dash. */
export function runCost(run: { costUsd: number | null; costBasis?: 'local' | 'model_usage' | null }, cost: (usd: number) => string): string {
  if (run.costBasis === 'local') return COMPUTED_LOCALLY;
  return run.costUsd !== null ? cost(run.costUsd) : '—';
}
