import { useCallback, useEffect, useState } from 'react';
import { ruleClauses } from '../health/health-figures';
import { formatDuration, formatNumber, formatPercent } from '../../../../shared/format';
import { SOURCE_KINDS, type FetchRecordView, type FetchedSource, type ProposalView, type SourceKind, type SourcePreview, type SourcesOverview } from '../../../../shared/sources';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';
import { FirstSourcesIntro, StarterPackPanel, takeStarterPackWish } from './StarterPack';
import './sources.css';

/** How often the open view asks for fresh facts (a fetch may have happened since). */
const REFRESH_MS = 5_000;

const CADENCES = [
  { seconds: 300, label: 'every 5 min' },
  { seconds: 900, label: 'every 15 min' },
  { seconds: 3_600, label: 'every hour' },
  { seconds: 6 * 3_600, label: 'every 6 h' },
  { seconds: 86_400, label: 'once a day' },
];

const KIND_LABELS: Record<SourceKind, string> = {
  rss: 'RSS or RDF feed',
  atom: 'Atom feed',
  jsonfeed: 'JSON Feed',
  html: 'Listing page (HTML)',
  folder: 'Folder of documents (file:///…)',
};

/** A kind from how the address looks; the analyst can change it. */
function guessKind(url: string): SourceKind {
  const lower = url.trim().toLowerCase();
  if (lower.startsWith('file:')) return 'folder';
  if (/atom/.test(lower)) return 'atom';
  if (/\.json(\?|$)|feed\.json|jsonfeed/.test(lower)) return 'jsonfeed';
  if (/rss|\.xml(\?|$)|\/feed\/?$|rdf/.test(lower)) return 'rss';
  return 'html';
}

function cadenceOptions(current: number) {
  return CADENCES.some((cadence) => cadence.seconds === current) ? CADENCES : [...CADENCES, { seconds: current, label: `every ${formatDuration(current)}` }].sort((a, b) => a.seconds - b.seconds);
}

/**
 * Sources: the feeds the service in use really fetches, with the facts behind their health (why
 * degraded, when next fetched, their fetch history), managed by the service's administrator: add
 * by pasting an address (previewed first), pause, edit, remove; and the proposals queue. On the
 * embedded service the analyst is its administrator; on a remote one the controls appear only
 * when the service says the credential is an administrator's.
 */
export function SourcesView() {
  const [overview, setOverview] = useState<SourcesOverview | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  // Issue 47: the starter pack, open at once when the health view's first screen asked for it.
  const [packOpen, setPackOpen] = useState(takeStarterPackWish);
  const serviceState = useAppStore((s) => s.serviceStatus?.state);
  const setView = useAppStore((s) => s.setView);

  const refresh = useCallback(async () => {
    const result = await clarity().invoke('sources.overview');
    if (result.ok) {
      // While the local service restarts (a host allowed or withdrawn) it is briefly unavailable:
      // the view, and the address being added, stay as they were until it answers again.
      const next = result.value;
      setOverview((previous) => (next.access === 'unavailable' && previous?.access === 'admin' ? previous : next));
      setLoadError(null);
    } else setLoadError(result.error.message);
  }, []);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh, serviceState]);

  const admin = overview?.access === 'admin';
  return (
    <div className="sources-layout">
      <section className="sources-view" aria-label="Sources">
        <div className="health-head">
          <h1>Sources</h1>
          <span className="hint" data-testid="sources-service">
            {overview ? (overview.mode === 'local' ? 'The local service on this computer: you are its administrator.' : 'The remote service in use.') : 'Asking the service…'}
          </span>
          <span className="spacer" />
          <button type="button" className="link" onClick={() => setView('health')} data-testid="sources-to-health">
            Health overview →
          </button>
        </div>
        {loadError ? (
          <p className="notice" role="alert" data-testid="sources-error">
            {loadError}
          </p>
        ) : null}
        {overview && !admin ? (
          <p className="notice" role="status" data-testid="sources-not-admin" data-access={overview.access}>
            {overview.accessReason}
          </p>
        ) : null}
        {admin && overview.sources.length === 0 ? (
          <FirstSourcesIntro
            where="sources"
            onAdd={() => document.querySelector<HTMLInputElement>('[data-testid="add-source-url"]')?.focus()}
            onPack={() => setPackOpen(true)}
          />
        ) : null}
        {admin && packOpen ? <StarterPackPanel onAdded={() => void refresh()} onClose={() => setPackOpen(false)} /> : null}
        {admin ? <AddSource onAdded={() => void refresh()} /> : null}
        {admin ? (
          <>
            <h2 className="sources-h2">Fetched sources</h2>
            {overview.sources.length === 0 ? (
              <p className="empty-state" data-testid="sources-empty">
                None yet. Paste the address of a feed you follow above: an exchange&apos;s announcements, a company newsroom, a business paper&apos;s retail section, a regulator&apos;s press releases, or a folder of your own documents.
              </p>
            ) : (
              <ul className="source-cards" data-testid="sources-list">
                {overview.sources.map((source) => (
                  <SourceCard key={source.id} source={source} open={openId === source.id} onToggle={() => setOpenId(openId === source.id ? null : source.id)} onChanged={refresh} />
                ))}
              </ul>
            )}
            {overview.healthRule ? (
              <p className="hint" data-testid="sources-health-rule">
                How health is decided: {healthRuleInWords(overview.healthRule)}
              </p>
            ) : null}
            <Proposals proposals={overview.proposals} error={overview.proposalsError} onChanged={refresh} />
          </>
        ) : null}
        {overview?.sample ? (
          <div className="sample-card" data-testid="sources-sample">
            <span className="badge">Sample</span> <strong>The synthetic sample corpus</strong>
            <p className="hint">
              {overview.mode === 'local' ? 'The local service also holds' : 'This service also holds'} a made-up sample of India&apos;s retail sector (real names, synthetic figures) so the app is useful offline. It is not one of the sources above; the service describes it as “<span data-testid="sources-sample-said">{overview.sample}</span>”. Its signals are marked as sample wherever they are cited.
            </p>
          </div>
        ) : null}
      </section>
    </div>
  );
}

function HealthBadge({ source }: { source: FetchedSource }) {
  if (source.paused) return <span className="health health-unknown" data-testid="source-health" data-health="paused">paused</span>;
  return (
    <span className={`health health-${source.health}`} data-testid="source-health" data-health={source.health}>
      {source.health}
    </span>
  );
}

function SourceCard({ source, open, onToggle, onChanged }: { source: FetchedSource; open: boolean; onToggle(): void; onChanged(): Promise<void> }) {
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

function FetchHistory({ id, lastFetchAt }: { id: string; lastFetchAt: string | null }) {
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
              {fetch.ok ? (
                <span className="health health-healthy">{fetch.notModified ? 'not modified (304)' : `ok${fetch.status ? ` (${fetch.status})` : ''}`}</span>
              ) : (
                <span className="fetch-failed">
                  <span className="health health-down">failed</span> {fetch.error?.message ?? `HTTP ${fetch.status ?? '?'}`}
                </span>
              )}
            </td>
            <td className="num">{formatNumber(fetch.items)}</td>
            <td className="num">{formatNumber(fetch.newItems)}</td>
            <td className="num">{formatNumber(fetch.durationMs)} ms</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AddSource({ onAdded }: { onAdded(): void }) {
  const display = useDisplay();
  const [url, setUrl] = useState('');
  const [kind, setKind] = useState<SourceKind>('rss');
  const [kindChosen, setKindChosen] = useState(false);
  const [name, setName] = useState('');
  const [cadenceS, setCadenceS] = useState(900);
  const [preview, setPreview] = useState<SourcePreview | null>(null);
  const [error, setError] = useState<{ message: string; noItems: boolean } | null>(null);
  const [busy, setBusy] = useState<'preview' | 'add' | 'allow' | null>(null);
  const [consent, setConsent] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const args = { url: url.trim(), kind, name: name.trim(), cadenceS };
  const reset = (): void => {
    setPreview(null);
    setError(null);
    setConsent(null);
  };
  const runPreview = async (): Promise<void> => {
    setBusy('preview');
    setAdded(null);
    setConsent(null);
    const result = await clarity().invoke('sources.preview', args);
    setBusy(null);
    if (result.ok) {
      setPreview(result.value);
      setError(null);
    } else if (result.error.code === 'private_host' && result.error.host) {
      // Issue 47: an intranet address is fetched only after the analyst says yes to its host.
      setPreview(null);
      setError(null);
      setConsent(result.error.host);
    } else {
      setPreview(null);
      setError({ message: result.error.message, noItems: result.error.status === 422 });
    }
  };
  const allowHost = async (host: string): Promise<void> => {
    setBusy('allow');
    const allowed = await clarity().invoke('sources.allowHost', { host });
    setBusy(null);
    setConsent(null);
    if (!allowed.ok) return setError({ message: allowed.error.message, noItems: false });
    await runPreview();
  };
  const add = async (): Promise<void> => {
    setBusy('add');
    const result = await clarity().invoke('sources.add', args);
    setBusy(null);
    if (!result.ok && result.error.code === 'private_host' && result.error.host) return setConsent(result.error.host);
    if (!result.ok) return setError({ message: result.error.message, noItems: result.error.status === 422 });
    setAdded(`${result.value.source.name} was added: it is fetched now and then ${result.value.source.cadence || `every ${formatDuration(result.value.source.cadenceS)}`}.`);
    setUrl('');
    setName('');
    setKindChosen(false);
    reset();
    onAdded();
  };
  return (
    <form
      className="add-source"
      data-testid="add-source"
      onSubmit={(event) => {
        event.preventDefault();
        void runPreview();
      }}
    >
      <h2 className="sources-h2">Add a source</h2>
      <div className="add-source-row">
        <input
          type="text"
          inputMode="url"
          placeholder="Paste a feed, a listing page or file:///a/folder"
          value={url}
          onChange={(event) => {
            setUrl(event.target.value);
            if (!kindChosen) setKind(guessKind(event.target.value));
            reset();
          }}
          aria-label="Source address"
          data-testid="add-source-url"
        />
        <select
          value={kind}
          onChange={(event) => {
            setKind(event.target.value as SourceKind);
            setKindChosen(true);
            reset();
          }}
          aria-label="Kind"
          data-testid="add-source-kind"
        >
          {SOURCE_KINDS.map((value) => (
            <option key={value} value={value}>
              {KIND_LABELS[value]}
            </option>
          ))}
        </select>
      </div>
      <div className="add-source-row">
        <input type="text" placeholder="Name (optional: the site's name)" value={name} onChange={(event) => setName(event.target.value)} aria-label="Name" maxLength={200} data-testid="add-source-name" />
        <select value={cadenceS} onChange={(event) => setCadenceS(Number(event.target.value))} aria-label="How often to fetch" data-testid="add-source-cadence">
          {CADENCES.map((cadence) => (
            <option key={cadence.seconds} value={cadence.seconds}>
              Fetch {cadence.label}
            </option>
          ))}
        </select>
        <button type="submit" disabled={!url.trim() || busy !== null} data-testid="add-source-preview">
          {busy === 'preview' ? 'Reading…' : 'Preview'}
        </button>
      </div>
      {consent ? (
        <div className="source-confirm" role="alertdialog" aria-label={`Fetch ${consent}?`} data-testid="private-host-consent" data-host={consent}>
          <span>
            <strong>{consent}</strong> is on your private network. Fetch it from this computer? Only this host is allowed; you can withdraw it in Settings › Sources.
          </span>
          <button type="button" disabled={busy !== null} onClick={() => void allowHost(consent)} data-testid="private-host-yes">
            {busy === 'allow' ? 'Allowing…' : 'Yes, fetch it'}
          </button>
          <button type="button" className="secondary" disabled={busy !== null} onClick={() => setConsent(null)} data-testid="private-host-no">
            No
          </button>
        </div>
      ) : null}
      {error ? (
        <p className="notice" role="alert" data-testid="add-source-error" data-no-items={error.noItems ? 'true' : 'false'}>
          {error.noItems ? <strong>No items found. </strong> : null}
          {error.message}
        </p>
      ) : null}
      {added ? (
        <p className="hint added" role="status" data-testid="add-source-added">
          {added}
        </p>
      ) : null}
      {preview ? (
        <div className="source-preview" data-testid="add-source-preview-list">
          <p>
            <strong>{formatNumber(preview.items.length)}</strong> item{preview.items.length === 1 ? '' : 's'} found at {preview.source.url} ({preview.source.kind}), to be added as <strong>{preview.source.name}</strong>:
          </p>
          <ul>
            {preview.items.slice(0, 8).map((item) => (
              <li key={item.url} data-testid="preview-item">
                <span className="preview-title">{item.title}</span>{' '}
                <span className="hint">
                  {display.date(item.publishedAt)}
                  {item.publishedAtSource === 'fetch' ? ' (no date: time read)' : ''}
                </span>
              </li>
            ))}
          </ul>
          {preview.items.length > 8 ? <p className="hint">…and {formatNumber(preview.items.length - 8)} more.</p> : null}
          <button type="button" onClick={() => void add()} disabled={busy !== null} data-testid="add-source-confirm">
            {busy === 'add' ? 'Adding…' : 'Add this source'}
          </button>{' '}
          <button type="button" className="secondary" onClick={reset}>
            Cancel
          </button>
        </div>
      ) : null}
    </form>
  );
}

function Proposals({ proposals, error, onChanged }: { proposals: ProposalView[] | null; error: string | null; onChanged(): Promise<void> }) {
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

/** The service's health rule in the app's words (issue 47), as the health view sets it out; quoted when not in that form. */
function healthRuleInWords(rule: string): string {
  const clauses = ruleClauses(rule);
  if (!clauses) return `“${rule}”`;
  return clauses.map((clause) => `${clause.word[0]!.toUpperCase()}${clause.word.slice(1)}: ${clause.meaning}.`).join(' ');
}
