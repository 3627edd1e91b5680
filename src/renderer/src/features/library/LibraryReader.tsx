import { useEffect, useMemo, useState, type MouseEvent } from 'react';
import { formatNumber } from '../../../../shared/format';
import type { LibraryItemKind, LibraryItemView, LibraryLocation, LibraryRevision } from '../../../../shared/library';
import { clarity } from '../../bridge/clarity';
import { CitationPanel } from '../citations/CitationPanel';
import { handleCitationClick } from '../citations/citation-clicks';
import { CitationNumbering, renderMarkdownHtml } from '../chat/markdown';
import { useDisplay } from '../../app/use-display';
import { downloadFile } from './bundle-files';
import { ExportMenu } from './ExportMenu';
import { locationName } from '../../store/library-slice';

export const KIND_LABEL: Record<LibraryItemKind, string> = { answer: 'Answer', conversation: 'Conversation', report: 'Report' };

/** Two versions of one item, side by side in words: the user keeps one, the other, or both. */
function ConflictPanel({ item, onResolved }: { item: LibraryItemView; onResolved(message: string): void }) {
  const display = useDisplay();
  const resolve = async (file: string, keep: 'current' | 'copy' | 'both'): Promise<void> => {
    const result = await clarity().invoke('library.resolveConflict', { id: item.id, file, keep });
    onResolved(result.ok ? (keep === 'both' ? 'Both versions kept: the other is now an item of its own.' : 'Conflict resolved.') : result.error.message);
  };
  return (
    <div className="conflict-panel" role="alert" data-testid="library-conflict">
      <strong>Two people changed this item at the same time.</strong> Both versions are kept until you choose.
      {item.conflicts.map(({ file, item: other }) => (
        <div key={file} className="conflict-versions" data-testid="conflict-copy" data-file={file}>
          <div>
            <span className="hint">This version</span>
            <p data-testid="conflict-current">
              “{item.title}”{item.tags.length > 0 ? ` · tags: ${item.tags.join(', ')}` : ''} · changed {display.dateTime(item.updatedAt)}
            </p>
          </div>
          <div>
            <span className="hint">The other version</span>
            <p data-testid="conflict-other">
              “{other.title}”{other.tags.length > 0 ? ` · tags: ${other.tags.join(', ')}` : ''} · changed {display.dateTime(other.updatedAt)}
            </p>
          </div>
          <div className="conflict-actions">
            <button type="button" className="secondary" onClick={() => void resolve(file, 'current')} data-testid="conflict-keep-current" disabled={item.readOnly}>
              Keep this version
            </button>
            <button type="button" className="secondary" onClick={() => void resolve(file, 'copy')} data-testid="conflict-keep-other" disabled={item.readOnly}>
              Keep the other
            </button>
            <button type="button" className="secondary" onClick={() => void resolve(file, 'both')} data-testid="conflict-keep-both" disabled={item.readOnly}>
              Keep both
            </button>
          </div>
        </div>
      ))}
    </div>
  );
}

export function LibraryReader({ item, locations, onChanged, onDeleted }: { item: LibraryItemView; locations: LibraryLocation[]; onChanged(): void; onDeleted(title: string): void }) {
  const [selected, setSelected] = useState<string | null>(null);
  const [title, setTitle] = useState(item.title);
  const [tags, setTags] = useState(item.tags.join(', '));
  const [message, setMessage] = useState<string | null>(null);
  const display = useDisplay();
  /** The revision the user started editing: saved against it, so a change made meanwhile elsewhere is a conflict. */
  const [editBase, setEditBase] = useState<LibraryRevision | undefined>(undefined);
  const html = useMemo(() => renderMarkdownHtml(item.markdown, new CitationNumbering()), [item.markdown]);
  const [shownId, setShownId] = useState(item.id);
  useEffect(() => {
    // Another writer's change refreshes the item; what the user is typing is kept.
    if (item.id !== shownId || !editBase) {
      setTitle(item.title);
      setTags(item.tags.join(', '));
    }
    if (item.id !== shownId) {
      setShownId(item.id);
      setSelected(null);
      setEditBase(undefined);
    }
  }, [item, shownId, editBase]);
  const edit = (apply: () => void): void => {
    if (!editBase) setEditBase(item.revision);
    apply();
  };
  const others = locations.filter((l) => l.id !== item.location && !l.readOnly && l.state !== 'unavailable');

  const save = async (): Promise<void> => {
    const result = await clarity().invoke('library.update', { id: item.id, title, tags: tags.split(',').map((t) => t.trim()).filter(Boolean), revision: editBase ?? item.revision });
    setEditBase(undefined);
    setMessage(result.ok ? (result.value.conflict ? 'Someone else changed it meanwhile: both versions are kept (see below).' : 'Saved.') : result.error.message);
    if (result.ok) onChanged();
  };
  const transfer = async (value: string): Promise<void> => {
    const [mode, to] = value.split(':') as ['copy' | 'move', string];
    const result = await clarity().invoke('library.transfer', { id: item.id, to, mode });
    setMessage(result.ok ? `${mode === 'copy' ? 'Copied' : 'Moved'} to “${locationName(locations, to)}”.` : result.error.message);
    if (result.ok) onChanged();
  };
  const exportBundle = async (): Promise<void> => {
    const result = await clarity().invoke('library.exportBundle', { ids: [item.id] });
    setMessage(result.ok ? downloadFile(result.value) : result.error.message);
  };
  const onClick = (event: MouseEvent<HTMLDivElement>): void => handleCitationClick(event, setSelected);

  return (
    <div className={`library-reader${selected ? ' with-panel' : ''}`} data-testid="library-reader">
      <div className="reader-scroll">
        <div className="reader-head">
          <input className="reader-title" value={title} onChange={(e) => edit(() => setTitle(e.target.value))} aria-label="Title" data-testid="library-title" maxLength={300} readOnly={item.readOnly} />
          <input className="reader-tags" value={tags} onChange={(e) => edit(() => setTags(e.target.value))} placeholder="Tags, comma separated" aria-label="Tags" data-testid="library-tags" readOnly={item.readOnly} />
          <button type="button" className="secondary" onClick={() => void save()} disabled={item.readOnly || (title === item.title && tags === item.tags.join(', '))} data-testid="library-save-meta">
            Save changes
          </button>
          <ExportMenu source={{ kind: 'library', id: item.id }} />
          <button type="button" className="ghost" onClick={() => void exportBundle()} data-testid="library-export-bundle">
            Bundle (.clarity)
          </button>
          {others.length > 0 ? (
            <select aria-label="Copy or move to another library" value="" onChange={(e) => e.target.value && void transfer(e.target.value)} data-testid="library-transfer">
              <option value="">Copy or move to…</option>
              {others.map((l) => (
                <option key={`copy:${l.id}`} value={`copy:${l.id}`}>
                  Copy to {l.name}
                </option>
              ))}
              {item.readOnly
                ? null
                : others.map((l) => (
                    <option key={`move:${l.id}`} value={`move:${l.id}`}>
                      Move to {l.name}
                    </option>
                  ))}
            </select>
          ) : null}
          {item.readOnly ? null : (
            <button
              type="button"
              className="ghost"
              data-testid="library-delete"
              onClick={() => void clarity().invoke('library.delete', { id: item.id }).then((r) => (r.ok ? onDeleted(item.title) : setMessage(r.error.message)))}
            >
              Delete
            </button>
          )}
          {message ? (
            <span className="hint" role="status" data-testid="library-reader-status">
              {message}
            </span>
          ) : null}
        </div>
        <p className="hint" data-testid="library-where">
          {KIND_LABEL[item.kind]} · in {locationName(locations, item.location)}
          {item.readOnly ? ' (read-only for you)' : ''} · made {display.dateTime(item.createdAt)} · saved {display.dateTime(item.savedAt)} · {formatNumber(item.citations.length)} citations, snapshotted when saved
        </p>
        {item.conflicts.length > 0 ? <ConflictPanel item={item} onResolved={(text) => (setMessage(text), onChanged())} /> : null}
        <div className="answer-body report-body" data-testid="library-body" role="presentation" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />
      </div>
      {selected ? (
        <CitationPanel
          citations={item.citations}
          text={item.markdown}
          selectedId={selected}
          onSelect={setSelected}
          onClose={() => setSelected(null)}
          listTitle={item.kind === 'report' ? 'Sources cited in this report' : item.kind === 'conversation' ? 'All citations of this conversation' : undefined}
        />
      ) : null}
    </div>
  );
}
