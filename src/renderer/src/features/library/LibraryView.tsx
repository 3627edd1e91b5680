import { useCallback, useEffect, useMemo, useState, type MouseEvent } from 'react';
import { formatNumber } from '../../../../shared/format';
import type { LibraryItem, LibraryItemKind, LibraryQuery, LibrarySearchResult } from '../../../../shared/library';
import { clarity } from '../../bridge/clarity';
import { CitationPanel } from '../citations/CitationPanel';
import { handleCitationClick } from '../citations/citation-clicks';
import { CitationNumbering, renderMarkdownHtml } from '../chat/markdown';
import { useDisplay } from '../../app/use-display';
import { DayInput } from './DayInput';
import { ExportMenu } from './ExportMenu';

const KIND_LABEL: Record<LibraryItemKind, string> = { answer: 'Answer', conversation: 'Conversation', report: 'Report' };

function Reader({ item, onChanged, onDeleted }: { item: LibraryItem; onChanged(): void; onDeleted(title: string): void }) {
  const [selected, setSelected] = useState<string | null>(null);
  const [title, setTitle] = useState(item.title);
  const [tags, setTags] = useState(item.tags.join(', '));
  const [message, setMessage] = useState<string | null>(null);
  const display = useDisplay();
  const html = useMemo(() => renderMarkdownHtml(item.markdown, new CitationNumbering()), [item.markdown]);
  useEffect(() => {
    setTitle(item.title);
    setTags(item.tags.join(', '));
    setSelected(null);
  }, [item]);

  const save = async (): Promise<void> => {
    const result = await clarity().invoke('library.update', { id: item.id, title, tags: tags.split(',').map((t) => t.trim()).filter(Boolean) });
    setMessage(result.ok ? 'Saved.' : result.error.message);
    if (result.ok) onChanged();
  };
  const onClick = (event: MouseEvent<HTMLDivElement>): void => handleCitationClick(event, setSelected);

  return (
    <div className={`library-reader${selected ? ' with-panel' : ''}`} data-testid="library-reader">
      <div className="reader-scroll">
        <div className="reader-head">
          <input className="reader-title" value={title} onChange={(e) => setTitle(e.target.value)} aria-label="Title" data-testid="library-title" maxLength={300} />
          <input className="reader-tags" value={tags} onChange={(e) => setTags(e.target.value)} placeholder="Tags, comma separated" aria-label="Tags" data-testid="library-tags" />
          <button type="button" className="secondary" onClick={() => void save()} disabled={title === item.title && tags === item.tags.join(', ')} data-testid="library-save-meta">
            Save changes
          </button>
          <ExportMenu source={{ kind: 'library', id: item.id }} />
          <button
            type="button"
            className="ghost"
            data-testid="library-delete"
            onClick={() => void clarity().invoke('library.delete', { id: item.id }).then((r) => (r.ok ? onDeleted(item.title) : setMessage(r.error.message)))}
          >
            Delete
          </button>
          {message ? <span className="hint" role="status">{message}</span> : null}
        </div>
        <p className="hint">
          {KIND_LABEL[item.kind]} · made {display.dateTime(item.createdAt)} · saved {display.dateTime(item.savedAt)} · {formatNumber(item.citations.length)} citations, snapshotted when saved
        </p>
        <div className="answer-body report-body" data-testid="library-body" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />
      </div>
      {selected ? <CitationPanel citations={item.citations} text={item.markdown} selectedId={selected} onSelect={setSelected} onClose={() => setSelected(null)} /> : null}
    </div>
  );
}

export function LibraryView() {
  const [query, setQuery] = useState<LibraryQuery>({ sort: 'date' });
  const [result, setResult] = useState<LibrarySearchResult | null>(null);
  const [facets, setFacets] = useState<{ sources: string[]; entities: string[]; tags: string[] }>({ sources: [], entities: [], tags: [] });
  const [openItem, setOpenItem] = useState<LibraryItem | null>(null);
  const [deleted, setDeleted] = useState<{ id: string; title: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const display = useDisplay();

  const search = useCallback(async (next: LibraryQuery): Promise<void> => {
    const clean = Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined && v !== '')) as LibraryQuery;
    const response = await clarity().invoke('library.search', clean);
    if (response.ok) setResult(response.value);
    else setError(response.error.message);
  }, []);
  const refresh = useCallback(() => {
    void search(query);
    void clarity().invoke('library.facets').then((r) => r.ok && setFacets(r.value));
  }, [query, search]);

  // Results as you type: every change of the query searches again (it takes milliseconds).
  useEffect(() => refresh(), [refresh]);

  const open = async (id: string): Promise<void> => {
    const response = await clarity().invoke('library.get', { id });
    if (response.ok) setOpenItem(response.value);
    else setError(response.error.message);
  };
  const set = (patch: Partial<LibraryQuery>): void => setQuery((q) => ({ ...q, ...patch }));
  const filtered = Object.entries(query).some(([key, value]) => key !== 'sort' && value !== undefined && value !== '');

  return (
    <div className="library-layout">
      <section className="library-list" aria-label="Library">
        <h1>Library</h1>
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
          <label className="hint">
            From <DayInput value={query.from} onChange={(from) => set({ from })} label="From day" testId="library-from" />
          </label>
          <label className="hint">
            to <DayInput value={query.to} onChange={(to) => set({ to })} label="To day" testId="library-to" />
          </label>
          <select value={query.sort ?? 'date'} onChange={(e) => set({ sort: e.target.value as LibraryQuery['sort'] })} aria-label="Sort" data-testid="library-sort">
            <option value="date">Newest first</option>
            <option value="title">Title</option>
            <option value="citations">Most citations</option>
          </select>
        </div>
        {error ? <p className="notice">{error}</p> : null}
        {result && result.corrupt.length > 0 ? (
          <p className="notice" data-testid="library-corrupt">
            {result.corrupt.length} saved item{result.corrupt.length === 1 ? ' could' : 's could'} not be read and {result.corrupt.length === 1 ? 'is' : 'are'} skipped: {result.corrupt.join(', ')}
          </p>
        ) : null}
        <p className="hint" data-testid="library-count">
          {result ? `${result.total} item${result.total === 1 ? '' : 's'} · ${result.tookMs.toFixed(1)} ms` : 'Loading…'}
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
            <li key={item.id} className={openItem?.id === item.id ? 'active' : ''} data-testid="library-item" data-id={item.id}>
              <button type="button" className="link result" onClick={() => void open(item.id)}>
                <span className="result-title">{item.title}</span>
                <span className="hint">
                  {KIND_LABEL[item.kind]} · {display.date(item.createdAt)} · {formatNumber(item.citationCount)} citations{item.tags.length > 0 ? ` · ${item.tags.join(', ')}` : ''}
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
        <Reader
          item={openItem}
          onChanged={() => {
            refresh();
            void open(openItem.id);
          }}
          onDeleted={(title) => {
            setDeleted({ id: openItem.id, title });
            setOpenItem(null);
            refresh();
          }}
        />
      ) : (
        <div className="library-empty hint">Open a saved item to read it, with its citations, offline.</div>
      )}
    </div>
  );
}
