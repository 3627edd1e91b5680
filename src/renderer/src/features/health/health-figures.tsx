/**
 * What each figure of the sources-health view means (issue #16: the oracle miss-rate was never
 * explained). Issue 47: the health words are the service's own `health_rule`, set out clause by
 * clause, never a rule the app made up; the miss-rate is "not measured" until a reference feed exists.
 */
import { formatPercent } from '../../../../shared/format';

/** The rule's clauses (`healthy: …; down: …; degraded: …`) as word and meaning; null if it is not in that form. */
export function ruleClauses(rule: string): Array<{ word: string; meaning: string }> | null {
  const clauses = rule.split(/;\s*/).map((clause) => /^\s*(healthy|degraded|down)\s*:\s*(.+?)\.?\s*$/i.exec(clause));
  if (clauses.some((match) => !match)) return null;
  return clauses.map((match) => ({ word: match![1]!.toLowerCase(), meaning: match![2]!.replace(/(\d) × cadence/g, '$1 × its fetch interval').replace(/\bcadence\b/g, 'fetch interval') }));
}

/**
 * Whether the miss-rate measures anything: a reference (oracle) feed is listed, or the service
 * counted reference items. A service that says neither is taken at its word.
 */
export function oracleMeasured(oracle: Record<string, unknown>, hasReferenceFeed: boolean): boolean {
  if (hasReferenceFeed) return true;
  return typeof oracle.counted !== 'number' || oracle.counted > 0;
}

export function HealthFiguresExplained({ oracleWindow, missRate, measured, healthRule }: { oracleWindow: string | null; missRate: number; measured: boolean; healthRule: string | null }) {
  const clauses = healthRule ? ruleClauses(healthRule) : null;
  return (
    <details className="health-explain" data-testid="health-explain">
      <summary>What these figures mean</summary>
      <dl>
        <dt>Sources · Healthy · Degraded · Down</dt>
        <dd data-testid="health-rule-explained">
          How many sources the service fetches, and how each is doing, by the service&apos;s own rule
          {clauses ? (
            <>
              :
              <ul>
                {clauses.map((clause) => (
                  <li key={clause.word}>
                    <strong>{clause.word[0]!.toUpperCase() + clause.word.slice(1)}</strong>: {clause.meaning}.
                  </li>
                ))}
              </ul>
            </>
          ) : healthRule ? (
            <>: “{healthRule}”</>
          ) : (
            ' (this service does not state it).'
          )}
        </dd>
        <dt>Items per hour · Signals, 24 h</dt>
        <dd>How many signals all sources together published, per hour on average and in the last 24 hours.</dd>
        <dt>Oracle miss-rate ({measured ? formatPercent(missRate) : 'not measured'})</dt>
        <dd data-testid="miss-rate-explained">
          The share of items that an independent reference feed (the “oracle”) published{oracleWindow ? ` over the last ${oracleWindow.replace(/^(\d+)([a-z])$/, '$1 $2')}` : ''} but the sources did not bring in. Lower is better.{' '}
          {measured
            ? `${formatPercent(missRate)} means about ${Math.max(0, Math.round(missRate * 100))} in 100 reference items were missed.`
            : 'Nothing is measured until a source is added as a reference feed, so no figure is shown.'}
        </dd>
        <dt>Health timeline · “since”</dt>
        <dd>The app records a source’s health each time it fetches the snapshot, so the first entry only says it was in that state at least since the app first looked.</dd>
      </dl>
    </details>
  );
}
