import { useState } from 'react';
import type { Result } from '../../../../shared/bridge-contract';
import { useAppStore } from '../../store/app-store';

/**
 * "Save to library": with team libraries, asks where (the personal library first, the default);
 * without, saves at once. Read-only and unavailable team libraries are not offered.
 */
export function SaveToLibrary({ label, className = 'ghost', testId, save, onResult }: { label: string; className?: string; testId: string; save: (location: string) => Promise<Result<unknown>>; onResult: (result: Result<unknown>, teamName: string | null) => void }) {
  const locations = useAppStore((s) => s.libraryLocations).filter((l) => !l.readOnly && l.state !== 'unavailable');
  const [asking, setAsking] = useState(false);
  const run = async (location: string): Promise<void> => {
    setAsking(false);
    const result = await save(location);
    onResult(result, location === 'personal' ? null : (locations.find((l) => l.id === location)?.name ?? null));
  };
  const teams = locations.filter((l) => l.kind === 'team');
  return (
    <span className="save-to-library">
      <button type="button" className={className} data-testid={testId} aria-haspopup={teams.length > 0 ? 'menu' : undefined} aria-expanded={teams.length > 0 ? asking : undefined} onClick={() => (teams.length > 0 ? setAsking((a) => !a) : void run('personal'))}>
        {label}
      </button>
      {asking ? (
        <span className="save-targets" role="menu" aria-label="Save where">
          {[{ id: 'personal', name: 'Personal library' }, ...teams].map((l) => (
            <button key={l.id} type="button" role="menuitem" className="link" data-testid={`save-target-${l.id}`} ref={l.id === 'personal' ? (button) => button?.focus() : undefined} onClick={() => void run(l.id)}>
              {l.name}
            </button>
          ))}
        </span>
      ) : null}
    </span>
  );
}
