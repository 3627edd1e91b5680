// A source's fetch history in the Sources view: when, the result in words, items, new items, how long.
import { useEffect, useState } from 'react';
import { formatNumber } from '../../../../shared/format';
import type { FetchRecordView } from '../../../../shared/sources';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { DroppedItems, ReadWithErrors } from './DroppedItems';

export function FetchHistory({ id, lastFetchAt }: { id: string; lastFetchAt: string | null }) {
  const display = useDisplay();
  const [history, setHistory] = useState<FetchRecordView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void clarity()
      .invoke('sources.history', { id })
      .then((result) => {
        if (!live) return;
        if (result.ok) setHistory(result.value.history);
        else setError(result.error.message);
      });
    return () => {
      live = false;
    };
  }, [id, lastFetchAt]);
  if (error) return <p className="notice">{error}</p>;
  if (!history) return <p className="hint">Loading its fetches…</p>;
  if (history.length === 0) return <p className="hint">Not fetched yet.</p>;
  return (
    <table className="fetch-history" data-testid="source-history">
      <thead>
        <tr>
          <th>When</th>
          <th>Result</th>
          <th className="num">Items</th>
          <th className="num">New</th>
          <th className="num">Took</th>
        </tr>
      </thead>
      <tbody>
        {history.map((fetch) => (
          <tr key={fetch.at} data-testid="history-row" data-ok={fetch.ok ? 'true' : 'false'}>
            <td title={display.dateTime(fetch.at)}>{display.ago(fetch.at)}</td>
            <td>
              {fetch.ok && fetch.readWithErrors ? (
                <ReadWithErrors message={fetch.readWithErrors} />
              ) : fetch.ok ? (
                <span className="health health-healthy">{fetch.notModified ? 'not modified (304)' : `ok${fetch.status ? ` (${fetch.status})` : ''}`}</span>
              ) : (
                <span className="fetch-failed">
                  <span className="health health-down">failed</span> {fetch.error?.message ?? `HTTP ${fetch.status ?? '?'}`}
                </span>
              )}
              <DroppedItems dropped={fetch.dropped} total={fetch.itemsTotal} />
            </td>
            <td className="num" title={fetch.itemsTotal !== null ? `${formatNumber(fetch.itemsTotal)} given by the source, ${formatNumber(fetch.dropped.length)} not kept` : undefined}>
              {formatNumber(fetch.items)}
            </td>
            <td className="num">{formatNumber(fetch.newItems)}</td>
            <td className="num">{formatNumber(fetch.durationMs)} ms</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
