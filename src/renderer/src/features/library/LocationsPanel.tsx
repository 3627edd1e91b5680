import { useState } from 'react';
import type { LibraryLocation } from '../../../../shared/library';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';

const STATE: Record<LibraryLocation['state'], string> = { opening: 'opening…', ready: '', unavailable: 'unavailable' };

/**
 * The libraries: personal and team (a folder in a synced drive or on a share). A team library is
 * added by its folder's path (the browser host has no folder picker); removing one only forgets it.
 */
export function LocationsPanel({ locations, selected, onSelect }: { locations: LibraryLocation[]; selected: string | undefined; onSelect(id: string | undefined): void }) {
  const [adding, setAdding] = useState(false);
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  const [message, setMessage] = useState<string | null>(null);

  const add = async (): Promise<void> => {
    const result = await clarity().invoke('library.addLocation', { path, name });
    if (!result.ok) {
      setMessage(result.error.message);
      return;
    }
    setMessage(result.value.readOnly ? `Added “${result.value.name}”, read-only for you.` : `Added “${result.value.name}”.`);
    setAdding(false);
    setPath('');
    setName('');
    void useAppStore.getState().refreshLibraryLocations();
  };
  const remove = async (location: LibraryLocation): Promise<void> => {
    const result = await clarity().invoke('library.removeLocation', { id: location.id });
    setMessage(result.ok ? `“${location.name}” is no longer listed; its folder is untouched.` : result.error.message);
    if (selected === location.id) onSelect(undefined);
    void useAppStore.getState().refreshLibraryLocations();
  };

  return (
    <div className="library-locations" data-testid="library-locations">
      <div className="location-chips" role="group" aria-label="Libraries">
        <button type="button" className={selected === undefined ? 'chip active' : 'chip'} aria-pressed={selected === undefined} onClick={() => onSelect(undefined)} data-testid="location-all">
          All libraries
        </button>
        {locations.map((l) => (
          <span key={l.id} className="location-chip" data-testid="location" data-id={l.id} data-state={l.state}>
            <button type="button" className={selected === l.id ? 'chip active' : 'chip'} aria-pressed={selected === l.id} onClick={() => onSelect(l.id)} title={l.path}>
              {l.name} <span className="hint">{l.state === 'ready' ? l.items : STATE[l.state]}</span>
              {l.readOnly ? <span className="badge" data-testid="location-read-only">read-only</span> : null}
            </button>
            {l.kind === 'team' ? (
              <button type="button" className="link" aria-label={`Remove ${l.name} from the list`} onClick={() => void remove(l)} data-testid="location-remove">
                ×
              </button>
            ) : null}
          </span>
        ))}
        <button type="button" className="link" onClick={() => setAdding((a) => !a)} data-testid="location-add-open">
          + Team library
        </button>
      </div>
      {locations
        .filter((l) => l.message && (selected === undefined || selected === l.id))
        .map((l) => (
          <p key={l.id} className="hint" data-testid="location-message">
            {l.name}: {l.message}
          </p>
        ))}
      {adding ? (
        <form
          className="location-add"
          onSubmit={(e) => {
            e.preventDefault();
            void add();
          }}
        >
          {/* The desktop app adds only a folder picked in the dialog (main keeps what it returned); the browser host takes a typed path. */}
          <input
            value={path}
            onChange={(e) => setPath(e.target.value)}
            readOnly={clarity().host === 'electron'}
            placeholder={clarity().host === 'electron' ? 'Choose the team folder…' : 'Folder path, e.g. /home/you/Dropbox/Team library'}
            aria-label="Team folder path"
            data-testid="location-path"
            required
          />
          {clarity().host === 'electron' ? (
            <button type="button" className="secondary" onClick={() => void clarity().invoke('library.pickFolder').then((r) => r.ok && r.value.path && setPath(r.value.path))}>
              Choose…
            </button>
          ) : null}
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Name (optional)" aria-label="Team library name" data-testid="location-name" maxLength={80} />
          <button type="submit" data-testid="location-add">
            Add
          </button>
        </form>
      ) : null}
      {message ? (
        <p className="hint" role="status" data-testid="location-status">
          {message}
        </p>
      ) : null}
    </div>
  );
}
