// The proposals queue in the Sources view: pending proposals to accept (with a kind) or reject (with a reason), and the decided ones.
import { useState } from 'react';
import { SOURCE_KINDS, type ProposalView, type SourceKind } from '../../../../shared/sources';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { guessKind, KIND_LABELS } from './source-kinds';

export function Proposals({ proposals, error, onChanged }: { proposals: ProposalView[] | null; error: string | null; onChanged(): Promise<void> }) {
  const pending = (proposals ?? []).filter((proposal) => proposal.status === 'pending');
  const decided = (proposals ?? []).filter((proposal) => proposal.status !== 'pending').slice(0, 10);
  return (
    <section className="proposals" aria-label="Proposed sources" data-testid="proposals">
      <h2 className="sources-h2">
        Proposed sources {pending.length > 0 ? <span className="badge" data-testid="proposals-pending-count">{pending.length}</span> : null}
      </h2>
      {error ? <p className="notice">{error}</p> : null}
      {proposals && pending.length === 0 ? <p className="hint">No proposal is waiting. Anyone using this service can propose a source; it is fetched only once you accept it.</p> : null}
      <ul className="source-cards">
        {pending.map((proposal) => (
          <ProposalCard key={proposal.id} proposal={proposal} onChanged={onChanged} />
        ))}
      </ul>
      {decided.length > 0 ? (
        <details className="decided">
          <summary>Decided ({decided.length})</summary>
          <ul>
            {decided.map((proposal) => (
              <li key={proposal.id} data-testid="proposal-decided" data-status={proposal.status}>
                <span className="mono">{proposal.url}</span> — {proposal.status}
                {proposal.reason ? `: ${proposal.reason}` : ''}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

function ProposalCard({ proposal, onChanged }: { proposal: ProposalView; onChanged(): Promise<void> }) {
  const display = useDisplay();
  const suggested = (SOURCE_KINDS as readonly string[]).includes(proposal.kind ?? '') ? (proposal.kind as SourceKind) : guessKind(proposal.url);
  const [kind, setKind] = useState<SourceKind>(suggested);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (call: () => Promise<{ ok: boolean; error?: { message: string } }>): Promise<void> => {
    setBusy(true);
    const result = await call();
    setBusy(false);
    if (!result.ok) return setError(result.error?.message ?? 'The service refused.');
    setError(null);
    await onChanged();
  };
  return (
    <li className="source-card proposal" data-testid="proposal" data-id={proposal.id}>
      <div className="source-card-head">
        <div className="source-card-title">
          <strong>{proposal.name ?? proposal.url}</strong> <span className="hint">proposed {display.ago(proposal.proposedAt)}{proposal.proposedBy ? ` by ${proposal.proposedBy}` : ''}</span>
          <div className="hint mono source-url">{proposal.url}</div>
          {proposal.note ? <p className="proposal-note">“{proposal.note}”</p> : null}
        </div>
        <div className="source-actions">
          <select value={kind} onChange={(event) => setKind(event.target.value as SourceKind)} aria-label="Kind" data-testid="proposal-kind">
            {SOURCE_KINDS.map((value) => (
              <option key={value} value={value}>
                {KIND_LABELS[value]}
              </option>
            ))}
          </select>
          <button type="button" disabled={busy} onClick={() => void run(() => clarity().invoke('sources.acceptProposal', { id: proposal.id, kind }))} data-testid="proposal-accept">
            {busy ? 'Reading…' : 'Accept'}
          </button>
          <button type="button" className="secondary" onClick={() => setRejecting(!rejecting)} data-testid="proposal-reject">
            Reject
          </button>
        </div>
      </div>
      {rejecting ? (
        <form
          className="source-edit"
          onSubmit={(event) => {
            event.preventDefault();
            void run(() => clarity().invoke('sources.rejectProposal', { id: proposal.id, reason: reason.trim() }));
          }}
        >
          <input placeholder="Why not? The proposer reads this." value={reason} onChange={(event) => setReason(event.target.value)} aria-label="Reason" maxLength={1_000} data-testid="proposal-reason" />
          <button type="submit" disabled={busy || !reason.trim()} data-testid="proposal-reject-confirm">
            Reject
          </button>
        </form>
      ) : null}
      {error ? (
        <p className="notice" role="alert" data-testid="proposal-error">
          {error}
        </p>
      ) : null}
    </li>
  );
}
