// The add-source form: paste an address, preview what it gives (asking first for a private host), add it.
import { useState } from 'react';
import { formatDuration, formatNumber } from '../../../../shared/format';
import { SOURCE_KINDS, type SourceKind, type SourcePreview } from '../../../../shared/sources';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { DroppedItems, ReadWithErrors } from './DroppedItems';
import { CADENCES, guessKind, KIND_LABELS } from './source-kinds';

/** Where the items were found, in words ("in the RSS feed at …"), never the kind's code. */
const KIND_IN_A_SENTENCE: Record<SourceKind, string> = {
  rss: 'in the RSS feed at',
  atom: 'in the Atom feed at',
  jsonfeed: 'in the JSON Feed at',
  html: 'on the listing page at',
  folder: 'in the folder',
};

export function AddSource({ onAdded }: { onAdded(): void }) {
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
    // No name typed: the name the preview showed (the feed's own title, or its host) is the one added.
    const result = await clarity().invoke('sources.add', { ...args, name: args.name || preview?.source.name || '' });
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
          <p data-testid="preview-count" data-total={preview.itemsTotal}>
            <strong>{formatNumber(preview.itemsTotal)}</strong> item{preview.itemsTotal === 1 ? '' : 's'} found {KIND_IN_A_SENTENCE[preview.source.kind as SourceKind] ?? 'at'} {preview.source.url}
            {preview.dropped.length > 0 ? `, ${formatNumber(preview.itemsTotal - preview.dropped.length)} to be kept` : ''}, to be added as <strong>{preview.source.name}</strong>:
          </p>
          <ReadWithErrors message={preview.readWithErrors} />
          <ul>
            {preview.items.slice(0, 8).map((item, index) => (
              <li key={`${item.url ?? ''}:${index}`} data-testid="preview-item">
                <span className="preview-title">{item.title}</span>{' '}
                <span className="hint">
                  {display.date(item.publishedAt)}
                  {item.publishedAtSource === 'fetch' ? ' (no date: time read)' : ''}
                </span>
              </li>
            ))}
          </ul>
          {preview.items.length > 8 ? <p className="hint">…and {formatNumber(preview.items.length - 8)} more.</p> : null}
          <DroppedItems dropped={preview.dropped} total={preview.itemsTotal} />
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
