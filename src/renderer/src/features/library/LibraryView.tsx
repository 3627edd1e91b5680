import { useCallback, useEffect, useState } from 'react';
import { formatNumber } from '../../../../shared/format';
import type { LibraryItemKind, LibraryQuery } from '../../../../shared/library';
import { clarity } from '../../bridge/clarity';
import { useDisplay } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';
import { locationName } from '../../store/library-slice';
import { BundleImport } from './BundleImport';
import { downloadFile } from './bundle-files';
import { DayInput } from './DayInput';
import { KIND_LABEL, LibraryReader } from './LibraryReader';
import { LocationsPanel } from './LocationsPanel';
import './team-library.css';

export function LibraryView() {
  // The query is this view's own (it goes when the view does); what main has is in the store.
  const [query, setQuery] = useState<LibraryQuery>({ sort: 'date' });
  const result = useAppStore((s) => s.libraryResult);
  const facets = useAppStore((s) => s.libraryFacets);
  const openItem = useAppStore((s) => s.libraryItem);
  const locations = useAppStore((s) => s.libraryLocations);
  const changes = useAppStore((s) => s.libraryChanges);
  const error = useAppStore((s) => s.libraryError);
  const searchLibrary = useAppStore((s) => s.searchLibrary);
  const open = useAppStore((s) => s.openLibraryItem);
  const closeItem = useAppStore((s) => s.closeLibraryItem);
  const [bundleStatus, setBundleStatus] = useState<string | null>(null);
  const [deleted, setDeleted] = useState<{ id: string; title: string } | null>(null);
  const display = useDisplay();

  const refresh = useCallback(() => void searchLibrary(query), [query, searchLibrary]);

  // Results as you type: every change of the query searches again (it takes milliseconds), and
  // so does every change main reports (another writer in a team folder, a library opening).
  useEffect(() => refresh(), [refresh, changes]);

  // The open item follows changes too: a conflict appears, another writer renames it.
  const openId = openItem?.id;
  const openLocation = openItem?.location;
  useEffect(() => {
    if (openId && changes > 0) void open(openId, openLocation);
  }, [changes, openId, openLocation, open]);
  const exportTag = async (tag: string): Promise<void> => {
    const result = await clarity().invoke('library.exportBundle', { tag });
    setBundleStatus(result.ok ? downloadFile(result.value) : result.error.message);
  };
  const set = (patch: Partial<LibraryQuery>): void => setQuery((q) => ({ ...q, ...patch }));
  const filtered = Object.entries(query).some(([key, value]) => key !== 'sort' && value !== undefined && value !== '');

  return (
    <div className="library-layout">
      <section className="library-list" aria-label="Library">
        <h1>Library</h1>
        <LocationsPanel locations={locations} selected={query.location} onSelect={(location) => set({ location })} />
        <input type="search" placeholder="Search titles, text and cited sources" value={query.text ?? ''} onChange={(e) => set({ text: e.target.value })} aria-label="Search the library" data-testid="library-search" />
        <div className="library-filters">
          <select value={query.kind ?? ''} onChange={(e) => set({ kind: (e.target.value || undefined) as LibraryItemKind | undefined })} aria-label="Kind" data-testid="library-filter-kind">
            <option value="">All kinds</option>
            <option value="answer">Answers</option>
            <option value="conversation">Conversations</option>
            <option value="report">Reports</option>
          </select>
          <select value={query.source ?? ''} onChange={(e) => set({ source: e.target.value || undefined })} aria-label="Cited source" data-testid="library-filter-source">
            <option value="">Any source</option>
            {facets.sources.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
          <select value={query.entity ?? ''} onChange={(e) => set({ entity: e.target.value || undefined })} aria-label="Entity" data-testid="library-filter-entity">
            <option value="">Any retailer, segment or place</option>
            {facets.entities.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
          {facets.tags.length > 0 ? (
            <select value={query.tag ?? ''} onChange={(e) => set({ tag: e.target.value || undefined })} aria-label="Tag" data-testid="library-filter-tag">
              <option value="">Any tag</option>
              {facets.tags.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          ) : null}
          {/* Not <label>s: each DayInput names itself (aria-label). */}
          <span className="hint">
            From <DayInput value={query.from} onChange={(from) => set({ from })} label="From day" testId="library-from" />
          </span>
          <span className="hint">
            to <DayInput value={query.to} onChange={(to) => set({ to })} label="To day" testId="library-to" />
          </span>
          <select value={query.sort ?? 'date'} onChange={(e) => set({ sort: e.target.value as LibraryQuery['sort'] })} aria-label="Sort" data-testid="library-sort">
            <option value="date">Newest first</option>
            <option value="title">Title</option>
            <option value="citations">Most citations</option>
          </select>
        </div>
        <div className="library-bundles">
          <BundleImport locations={locations} onImported={refresh} />
          {query.tag ? (
            <button type="button" className="ghost" onClick={() => void exportTag(query.tag!)} data-testid="library-export-tag">
              Export “{query.tag}” as a bundle
            </button>
          ) : null}
          {bundleStatus ? <span className="hint" role="status">{bundleStatus}</span> : null}
        </div>
        {error ? <p className="notice">{error}</p> : null}
        {result && result.corrupt.length > 0 ? (
          <p className="notice" data-testid="library-corrupt">
            {result.corrupt.length} saved item{result.corrupt.length === 1 ? ' could' : 's could'} not be read and {result.corrupt.length === 1 ? 'is' : 'are'} skipped: {result.corrupt.join(', ')}
          </p>
        ) : null}
        <p className="hint" data-testid="library-count">
          {result ? `${result.total} item${result.total === 1 ? '' : 's'}${result.indexing ? ' · opening the library, more to come…' : ''}` : 'Loading…'}
        </p>
        {deleted ? (
          <div className="toast inline" role="status" data-testid="library-undo">
            Deleted “{deleted.title}”.
            <button type="button" className="link" onClick={() => void clarity().invoke('library.restore', { id: deleted.id }).then(() => (setDeleted(null), refresh()))} data-testid="library-undo-delete">
              Undo
            </button>
          </div>
        ) : null}
        <ul className="library-results" data-testid="library-results">
          {result?.items.map((item) => (
            <li key={`${item.location}:${item.id}`} className={openItem?.id === item.id ? 'active' : ''} data-testid="library-item" data-id={item.id} data-location={item.location}>
              <button type="button" className="link result" onClick={() => void open(item.id, item.location)}>
                <span className="result-title">
                  {item.title}
                  {item.conflicts > 0 ? (
                    <span className="badge warn" data-testid="library-item-conflict">
                      conflict
                    </span>
                  ) : null}
                </span>
                <span className="hint">
                  {KIND_LABEL[item.kind]} · {display.date(item.createdAt)} · {formatNumber(item.citationCount)} citations{item.tags.length > 0 ? ` · ${item.tags.join(', ')}` : ''} ·{' '}
                  <span data-testid="library-item-location">{locationName(locations, item.location)}</span>
                </span>
                {item.snippet ? <span className="snippet">{item.snippet}</span> : null}
              </button>
            </li>
          ))}
          {result?.total === 0 && filtered ? (
            <li className="hint empty-state" data-testid="library-no-match">
              Nothing saved matches these filters.{' '}
              <button type="button" className="link" onClick={() => setQuery({ sort: query.sort })} data-testid="library-clear-filters">
                Clear the filters
              </button>
            </li>
          ) : null}
          {result?.total === 0 && !filtered ? (
            <li className="hint empty-state" data-testid="library-empty">
              Nothing saved yet. Save answers, conversations and reports with their Save buttons; they are kept here with every citation and read offline.
            </li>
          ) : null}
        </ul>
      </section>
      {openItem ? (
        <LibraryReader
          item={openItem}
          locations={locations}
          onChanged={() => {
            refresh();
            void open(openItem.id, openItem.location);
          }}
          onDeleted={(title) => {
            setDeleted({ id: openItem.id, title });
            closeItem();
            refresh();
          }}
        />
      ) : (
        <div className="library-empty hint">Open a saved item to read it, with its citations, offline.</div>
      )}
    </div>
  );
}
