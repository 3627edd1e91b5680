/**
 * First screens that start the analyst's work (issue 47, item 3): what the Sources and health
 * views will show once a source is fetched, the two ways to start (add a source, or pick from the
 * starter pack of public sources on India's retail sector), and the pack itself. Nothing is
 * fetched until the analyst picks entries and adds them; each is then read once, as "Add a
 * source" does, and its result said beside it.
 */
import { useState } from 'react';
import { STARTER_PACK, type StarterSource } from '../../../../shared/starter-pack/starter-pack';
import { clarity } from '../../bridge/clarity';

/** Set by the health view's "Choose from the starter pack": the Sources view opens with it. */
let packWished = false;
export function wishStarterPack(): void {
  packWished = true;
}
export function takeStarterPackWish(): boolean {
  const wished = packWished;
  packWished = false;
  return wished;
}

/** What the figures will show, and the two ways to start; `where` says which view it is on. */
export function FirstSourcesIntro({ where, onAdd, onPack }: { where: 'sources' | 'health'; onAdd(): void; onPack(): void }) {
  return (
    <div className="first-sources empty-state" data-testid={`${where}-first-screen`}>
      <p>
        <strong>No source is fetched yet.</strong>{' '}
        {where === 'health'
          ? 'Once you add sources, this view shows each one’s health (is it publishing as usual, late, or failing), how many items it gave in the last 24 hours, when its last item came, and the totals above.'
          : 'Once you add sources, each is fetched as often as you choose, its items become signals your answers cite, and this view shows what happened at every fetch.'}
      </p>
      <div className="row">
        <button type="button" onClick={onAdd} data-testid={`${where}-first-add`}>
          Add a source
        </button>
        <button type="button" className="secondary" onClick={onPack} data-testid={`${where}-first-pack`}>
          Choose from the starter pack ({STARTER_PACK.sources.length} public sources on India&apos;s retail sector)
        </button>
      </div>
    </div>
  );
}

type Outcome = { state: 'adding' } | { state: 'added' } | { state: 'failed'; message: string };

export function StarterPackPanel({ onAdded, onClose }: { onAdded(): void; onClose(): void }) {
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const busy = Object.values(outcomes).some((outcome) => outcome.state === 'adding');
  const groups = [...new Set(STARTER_PACK.sources.map((source) => source.group))];
  const toggle = (url: string): void => {
    const next = new Set(picked);
    if (next.has(url)) next.delete(url);
    else next.add(url);
    setPicked(next);
  };
  const addPicked = async (): Promise<void> => {
    const chosen = STARTER_PACK.sources.filter((source) => picked.has(source.url) && outcomes[source.url]?.state !== 'added');
    // One after another: each is read once by the service before it is added.
    for (const source of chosen) {
      setOutcomes((current) => ({ ...current, [source.url]: { state: 'adding' } }));
      const result = await clarity().invoke('sources.add', { url: source.url, kind: source.kind, name: source.name, cadenceS: 3_600 });
      setOutcomes((current) => ({ ...current, [source.url]: result.ok ? { state: 'added' } : { state: 'failed', message: result.error.message } }));
      if (result.ok) onAdded();
    }
  };
  return (
    <section className="starter-pack" aria-label="Starter pack" data-testid="starter-pack">
      <h2 className="sources-h2">{STARTER_PACK.title}</h2>
      <p className="hint">{STARTER_PACK.about}</p>
      {groups.map((group) => (
        <fieldset key={group}>
          <legend>{group}</legend>
          <ul>
            {STARTER_PACK.sources
              .filter((source) => source.group === group)
              .map((source) => (
                <StarterEntry key={source.url} source={source} picked={picked.has(source.url)} outcome={outcomes[source.url]} onToggle={() => toggle(source.url)} />
              ))}
          </ul>
        </fieldset>
      ))}
      <div className="row">
        <button type="button" disabled={picked.size === 0 || busy} onClick={() => void addPicked()} data-testid="starter-pack-add">
          {busy ? 'Adding…' : picked.size === 0 ? 'Pick sources to add' : `Add ${picked.size} source${picked.size === 1 ? '' : 's'}`}
        </button>
        <button type="button" className="secondary" onClick={onClose} data-testid="starter-pack-close">
          Close
        </button>
      </div>
    </section>
  );
}

function StarterEntry({ source, picked, outcome, onToggle }: { source: StarterSource; picked: boolean; outcome: Outcome | undefined; onToggle(): void }) {
  const openLink = (url: string): void => void clarity().invoke('links.openExternal', { url });
  return (
    <li data-testid="starter-source" data-url={source.url} data-outcome={outcome?.state ?? 'none'}>
      <label>
        <input type="checkbox" checked={picked} onChange={onToggle} disabled={outcome?.state === 'added' || outcome?.state === 'adding'} data-testid="starter-source-pick" /> <strong>{source.name}</strong>{' '}
        <span className="hint">
          {source.kind === 'html' ? 'listing page' : `${source.kind.toUpperCase()} feed`} · <code>{source.url}</code>
        </span>
      </label>{' '}
      <button type="button" className="link" onClick={() => openLink(source.documented)} title={source.documented} data-testid="starter-source-documented">
        where this address is documented
      </button>
      {outcome?.state === 'added' ? <span className="hint ok-text"> — added</span> : null}
      {outcome?.state === 'adding' ? <span className="hint"> — reading…</span> : null}
      {outcome?.state === 'failed' ? (
        <span className="notice" role="alert" data-testid="starter-source-error">
          {' '}
          — not added: {outcome.message}
        </span>
      ) : null}
    </li>
  );
}
