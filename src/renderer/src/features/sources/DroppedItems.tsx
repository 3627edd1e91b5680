// Items a source gave that are not kept, each with why (issue 44): in the add-source preview and each fetch of the history.
import { formatNumber } from '../../../../shared/format';
import type { DroppedItemView } from '../../../../shared/sources';

/** The list of dropped items, titled; nothing when none was dropped. */
export function DroppedItems({ dropped, total }: { dropped: DroppedItemView[]; total: number | null }) {
  if (dropped.length === 0) return null;
  return (
    <div className="dropped-items" data-testid="dropped-items" data-count={dropped.length}>
      <p className="hint">
        <strong>{formatNumber(dropped.length)}</strong> item{dropped.length === 1 ? '' : 's'}
        {total !== null ? ` of ${formatNumber(total)}` : ''} not kept:
      </p>
      <ul>
        {dropped.map((item, index) => (
          <li key={`${item.id ?? ''}:${index}`} data-testid="dropped-item">
            <span className="dropped-title">{item.title.trim() || '(untitled item)'}</span> — <span data-testid="dropped-reason">{item.reason}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** An ill-formed document read anyway: says so with its first error. */
export function ReadWithErrors({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p className="read-with-errors" data-testid="read-with-errors">
      <span className="health health-degraded">read with errors</span> {firstError(message)}
    </p>
  );
}

/** The service words it "read with errors (the first: …)"; the badge says the first part. */
function firstError(message: string): string {
  const match = /^read with errors \((the first: .*)\)$/s.exec(message);
  return match ? `${match[1]!.charAt(0).toUpperCase()}${match[1]!.slice(1)}` : message;
}
