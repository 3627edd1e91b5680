// One fetched source in the Sources view: its health and why, the facts of its fetches, pause, edit, remove, and its history.
import { useState } from 'react';
import { formatDuration, formatNumber, formatPercent } from '../../../../shared/format';
import type { FetchedSource } from '../../../../shared/sources';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { FetchHistory } from './FetchHistory';
import { cadenceOptions } from './source-kinds';

function HealthBadge({ source }: { source: FetchedSource }) {
  if (source.paused) return <span className="health health-unknown" data-testid="source-health" data-health="paused">paused</span>;
  return (
    <span className={`health health-${source.health}`} data-testid="source-health" data-health={source.health}>
      {source.health}
    </span>
  );
}

export function SourceCard({ source, open, onToggle, onChanged }: { source: FetchedSource; open: boolean; onToggle(): void; onChanged(): Promise<void> }) {
  const display = useDisplay();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [name, setName] = useState(source.name);
  const [cadenceS, setCadenceS] = useState(source.cadenceS);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (run: () => Promise<{ ok: boolean; error?: { message: string } }>): Promise<boolean> => {
    setBusy(true);
    const result = await run();
    setBusy(false);
    if (!result.ok) {
      setError(result.error?.message ?? 'The service refused.');
      return false;
    }
    setError(null);
    await onChanged();
    return true;
  };
  const why = source.health !== 'healthy' && !source.paused ? (source.lastError?.message ?? source.healthReason) : null;
  return (
    <li className={`source-card health-edge-${source.paused ? 'paused' : source.health}`} data-testid="source-card" data-id={source.id} data-health={source.health} data-paused={source.paused ? 'true' : 'false'}>
      <div className="source-card-head">
        <div className="source-card-title">
          <strong data-testid="source-name">{source.name}</strong> <HealthBadge source={source} /> <span className="hint">{source.kind}{source.role === 'oracle' ? ' · oracle (reference)' : ''}</span>
          <div className="hint mono source-url" title={source.url}>
            {source.url}
          </div>
        </div>
        <div className="source-actions">
          <button type="button" className="secondary" onClick={onToggle} aria-expanded={open} data-testid="source-history-toggle">
            {open ? 'Hide history' : 'History'}
          </button>
          <button type="button" className="secondary" disabled={busy} onClick={() => void act(() => clarity().invoke('sources.update', { id: source.id, paused: !source.paused }))} data-testid={source.paused ? 'source-resume' : 'source-pause'}>
            {source.paused ? 'Resume' : 'Pause'}
          </button>
          <button type="button" className="secondary" onClick={() => setEditing(!editing)} data-testid="source-edit">
            Edit
          </button>
          <button type="button" className="secondary danger" onClick={() => setConfirming(true)} data-testid="source-remove">
            Remove
          </button>
        </div>
      </div>
      {why ? (
        <p className="source-why" data-testid="source-why">
          {source.health === 'down' ? 'Down' : 'Degraded'}: {why}
          {source.consecutiveFailures > 1 ? ` (${source.consecutiveFailures} failed fetches in a row)` : ''}
        </p>
      ) : null}
      <dl className="source-facts">
        <div>
          <dt>Last fetch</dt>
          <dd data-testid="source-last-fetch" title={display.dateTime(source.lastFetchAt)}>{source.lastFetchAt ? display.ago(source.lastFetchAt) : 'not yet'}</dd>
        </div>
        <div>
          <dt>Last success</dt>
          <dd title={display.dateTime(source.lastSuccessAt)}>{source.lastSuccessAt ? display.ago(source.lastSuccessAt) : 'never'}</dd>
        </div>
        <div>
          <dt>Next fetch</dt>
          <dd data-testid="source-next-fetch">{source.paused ? 'paused' : source.nextFetchAt ? display.time(source.nextFetchAt) : 'soon'} · {source.cadence || `every ${formatDuration(source.cadenceS)}`}</dd>
        </div>
        <div>
          <dt>Items</dt>
          <dd data-testid="source-items">
            {formatNumber(source.items24h)} in 24 h · {formatNumber(source.itemsTotal)} in all
          </dd>
        </div>
        <div>
          <dt>Not modified</dt>
          <dd title="Share of fetches the site answered 304 Not Modified: nothing new, nothing downloaded.">{formatPercent(source.notModifiedRatio, 0)}</dd>
        </div>
      </dl>
      {editing ? (
        <form
          className="source-edit"
          onSubmit={(event) => {
            event.preventDefault();
            void act(() => clarity().invoke('sources.update', { id: source.id, name: name.trim(), cadenceS })).then((done) => done && setEditing(false));
          }}
        >
          <label>
            Name <input value={name} onChange={(event) => setName(event.target.value)} data-testid="source-edit-name" maxLength={200} />
          </label>
          <label>
            Fetch{' '}
            <select value={cadenceS} onChange={(event) => setCadenceS(Number(event.target.value))} data-testid="source-edit-cadence">
              {cadenceOptions(source.cadenceS).map((cadence) => (
                <option key={cadence.seconds} value={cadence.seconds}>
                  {cadence.label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={busy || !name.trim()} data-testid="source-edit-save">
            Save
          </button>
          <button type="button" className="secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : null}
      {confirming ? (
        <div className="source-confirm" role="alertdialog" aria-label={`Remove ${source.name}?`} data-testid="source-remove-confirm">
          <span>
            Remove <strong>{source.name}</strong>? It will not be fetched again; the signals already read from it stay answerable.
          </span>
          <button type="button" className="danger" disabled={busy} onClick={() => void act(() => clarity().invoke('sources.remove', { id: source.id }))} data-testid="source-remove-yes">
            Remove
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)} data-testid="source-remove-no">
            Keep it
          </button>
        </div>
      ) : null}
      {error ? (
        <p className="notice" role="alert" data-testid="source-error">
          {error}
        </p>
      ) : null}
      {open ? <FetchHistory id={source.id} lastFetchAt={source.lastFetchAt} /> : null}
    </li>
  );
}
