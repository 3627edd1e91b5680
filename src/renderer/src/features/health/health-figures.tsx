/** What each figure of the sources-health view means (issue #16: the oracle miss-rate was never explained). */
import { formatPercent } from '../../../../shared/format';

export function HealthFiguresExplained({ oracleWindow, missRate }: { oracleWindow: string | null; missRate: number }) {
  return (
    <details className="health-explain" data-testid="health-explain">
      <summary>What these figures mean</summary>
      <dl>
        <dt>Sources · Healthy · Degraded · Down</dt>
        <dd>How many sources the service watches, and how each is doing: healthy publishes on its usual cadence, degraded publishes less than usual, down has stopped publishing.</dd>
        <dt>Items per hour · Signals, 24 h</dt>
        <dd>How many signals all sources together published, per hour on average and in the last 24 hours.</dd>
        <dt>Oracle miss-rate ({formatPercent(missRate)})</dt>
        <dd data-testid="miss-rate-explained">
          The share of signals that the service’s independent reference check (the “oracle”) found in the sources{oracleWindow ? ` over the last ${oracleWindow.replace(/^(\d+)([a-z])$/, '$1 $2')}` : ''} but the service did not pick up. Lower is better: {formatPercent(missRate)} means about{' '}
          {Math.max(0, Math.round(missRate * 100))} in 100 published items were missed.
        </dd>
        <dt>Health timeline · “since”</dt>
        <dd>The app records a source’s health each time it fetches the snapshot, so the first entry only says it was in that state at least since the app first looked.</dd>
      </dl>
    </details>
  );
}
