import { useRef, useState } from 'react';
import type { BundlePlan, LibraryLocation } from '../../../../shared/library';
import { clarity } from '../../bridge/clarity';
import { readAsBase64 } from './bundle-files';

const STATUS: Record<BundlePlan['items'][number]['status'], string> = {
  new: 'new here',
  same: 'already here, identical',
  newer: 'a newer version than yours',
  older: 'older than yours: left as is',
  diverged: 'changed both here and there: kept beside yours as a conflict copy',
};

/** Import a `.clarity` bundle: main checks it, shows what would happen, and writes only on "Import". */
export function BundleImport({ locations, onImported }: { locations: LibraryLocation[]; onImported(): void }) {
  const input = useRef<HTMLInputElement>(null);
  const [data, setData] = useState<string | null>(null);
  const [target, setTarget] = useState('personal');
  const [plan, setPlan] = useState<BundlePlan | null>(null);
  const [replace, setReplace] = useState<string[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const writable = locations.filter((l) => !l.readOnly && l.state !== 'unavailable');

  const inspect = async (base64: string, location: string): Promise<void> => {
    const result = await clarity().invoke('library.inspectBundle', { data: base64, location });
    if (!result.ok) {
      setPlan(null);
      setData(null);
      setMessage(result.error.message);
      return;
    }
    setPlan(result.value);
    setReplace([]);
    setMessage(null);
  };
  const pick = async (file: File | undefined): Promise<void> => {
    if (!file) return;
    const base64 = await readAsBase64(file);
    setData(base64);
    await inspect(base64, target);
  };
  const apply = async (): Promise<void> => {
    if (!data) return;
    const result = await clarity().invoke('library.importBundle', { data, location: target, replace });
    if (!result.ok) setMessage(result.error.message);
    else {
      const { added, replaced, conflicts, skipped } = result.value;
      setMessage(`Imported: ${added} new, ${replaced} replaced, ${conflicts} kept as conflict copies, ${skipped} left as they were.`);
      onImported();
    }
    setPlan(null);
    setData(null);
  };

  return (
    <div className="bundle-import">
      <button type="button" className="secondary" onClick={() => input.current?.click()} data-testid="bundle-import">
        Import bundle…
      </button>
      <input ref={input} type="file" accept=".clarity,application/zip" hidden data-testid="bundle-file" onChange={(e) => void pick(e.target.files?.[0]).finally(() => (e.target.value = ''))} />
      {message ? (
        <p className="notice" role="status" data-testid="bundle-message">
          {message}
        </p>
      ) : null}
      {plan ? (
        <div className="bundle-plan" role="dialog" aria-label="Import a bundle" data-testid="bundle-plan">
          <label>
            Into{' '}
            <select value={target} onChange={(e) => (setTarget(e.target.value), data && void inspect(data, e.target.value))} data-testid="bundle-target">
              {writable.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
            </select>
          </label>
          <ul>
            {plan.items.map((item) => (
              <li key={item.id} data-testid="bundle-plan-item" data-status={item.status}>
                {item.status === 'newer' ? (
                  <label>
                    <input type="checkbox" checked={replace.includes(item.id)} onChange={(e) => setReplace((r) => (e.target.checked ? [...r, item.id] : r.filter((id) => id !== item.id)))} data-testid="bundle-replace" /> Replace mine with it:{' '}
                  </label>
                ) : null}
                <strong>{item.title}</strong> <span className="hint">— {STATUS[item.status]}</span>
              </li>
            ))}
          </ul>
          <p className="hint">{plan.citations} cited signals, with their snapshots. Nothing is overwritten unless you tick it.</p>
          <button type="button" onClick={() => void apply()} data-testid="bundle-apply">
            Import
          </button>{' '}
          <button type="button" className="ghost" onClick={() => (setPlan(null), setData(null))}>
            Cancel
          </button>
        </div>
      ) : null}
    </div>
  );
}
