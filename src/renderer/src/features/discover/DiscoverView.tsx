import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { DiscoverItem } from '../../../../shared/surface-schemas';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { CitationPanel } from '../citations/CitationPanel';
import { FollowChips } from './FollowChips';
import { SignalActions } from './SignalActions';
import { snapshotOfDiscoverItem } from '../../../../shared/discover-snapshot';
import './surfaces.css';

const SEGMENTS = ['', 'grocery', 'quick commerce', 'fashion', 'electronics', 'beauty', 'jewellery', 'pharmacy'];
const KINDS = ['', 'store_opening', 'closure', 'expansion', 'results', 'funding', 'pricing', 'hiring', 'partnership', 'regulation', 'app_rank', 'market_update'];

interface Filters {
  q: string;
  entity: string;
  segment: string;
  city: string;
  kind: string;
}

/** Discover: search and filter signals, open one in the panel, act on it. Arrow keys move, Enter opens. */
export function DiscoverView() {
  const [filters, setFilters] = useState<Filters>({ q: '', entity: '', segment: '', city: '', kind: '' });
  const [items, setItems] = useState<DiscoverItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [active, setActive] = useState(0);
  const [open, setOpen] = useState<DiscoverItem | null>(null);
  const display = useDisplay();
  /** The filters the shown results answer (tests and screen readers wait on it). */
  const [shownFor, setShownFor] = useState('');
  /** The search text the shown results answer: what "follow this search" follows. */
  const [shownQuery, setShownQuery] = useState('');
  const scroller = useRef<HTMLDivElement>(null);

  const load = useCallback(async (wanted: Filters, after: string | null) => {
    setLoading(true);
    const args = Object.fromEntries(Object.entries(wanted).filter(([, v]) => v.trim() !== '')) as Partial<Filters>;
    const result = await clarity().invoke('discover.search', { ...args, limit: 50, ...(after ? { cursor: after } : {}) });
    setLoading(false);
    if (!result.ok) {
      setError(result.error.retryAfterS ? `${result.error.message}` : result.error.message);
      return;
    }
    setError(null);
    setItems((previous) => (after ? [...previous, ...result.value.items] : result.value.items));
    setShownFor(Object.values(args).join(' '));
    setShownQuery(wanted.q.trim());
    setCursor(result.value.next_cursor);
    if (!after) setActive(0);
  }, []);

  useEffect(() => {
    void load({ q: '', entity: '', segment: '', city: '', kind: '' }, null);
  }, [load]);

  const virtualizer = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: () => 64, overscan: 6 });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void load(filters, null);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = Math.max(0, Math.min(items.length - 1, active + (event.key === 'ArrowDown' ? 1 : -1)));
      setActive(next);
      virtualizer.scrollToIndex(next);
      if (next === items.length - 1 && cursor && !loading) void load(filters, cursor);
    } else if (event.key === 'Enter' && items[active]) {
      event.preventDefault();
      setOpen(items[active]!);
    }
  };
  const field = (name: keyof Filters) => ({ value: filters[name], onChange: (e: { target: { value: string } }) => setFilters({ ...filters, [name]: e.target.value }) });

  return (
    <section className="sf-discover" aria-label="Discover">
      <div className="sf-column">
        <h1>Discover</h1>
        <form className="sf-filters" onSubmit={submit} role="search">
          <input type="search" placeholder="Search signals (e.g. Zudio store openings)" aria-label="Search signals" {...field('q')} data-testid="discover-query" />
          <input placeholder="Retailer, segment, city or state" aria-label="Entity" {...field('entity')} data-testid="discover-entity" />
          <select aria-label="Segment" {...field('segment')} data-testid="discover-segment">
            {SEGMENTS.map((s) => (
              <option key={s} value={s}>
                {s || 'Any segment'}
              </option>
            ))}
          </select>
          <input placeholder="City or state" aria-label="City" {...field('city')} />
          <select aria-label="Kind" {...field('kind')}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k ? k.replace(/_/g, ' ') : 'Any kind'}
              </option>
            ))}
          </select>
          <button type="submit" data-testid="discover-search">
            Search
          </button>
        </form>
        {shownQuery ? <FollowChips title="Follow this search:" targets={[{ label: `“${shownQuery}”`, target: { type: 'query', value: shownQuery } }]} /> : null}
        {error ? (
          <p className="notice" role="alert" data-testid="discover-error">
            {error}
          </p>
        ) : null}
        <div
          ref={scroller}
          className="sf-results"
          tabIndex={0}
          role="listbox"
          aria-label="Signals"
          aria-activedescendant={items[active] ? `sf-${items[active]!.id}` : undefined}
          onKeyDown={onKeyDown}
          onScroll={(event) => {
            const el = event.currentTarget;
            if (cursor && !loading && el.scrollTop + el.clientHeight > el.scrollHeight - 200) void load(filters, cursor);
          }}
          data-testid="discover-results"
          data-shown-for={shownFor}
        >
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((row) => {
              const item = items[row.index]!;
              return (
                // A listbox with aria-activedescendant: the list has focus and handles the keys (↑ ↓ Enter).
                // eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/interactive-supports-focus
                <div
                  key={item.id}
                  id={`sf-${item.id}`}
                  role="option"
                  aria-selected={row.index === active}
                  className={`sf-result${row.index === active ? ' active' : ''}`}
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${row.start}px)` }}
                  ref={virtualizer.measureElement}
                  data-index={row.index}
                  onClick={() => {
                    setActive(row.index);
                    setOpen(item);
                  }}
                  data-testid="discover-item"
                >
                  <div className="sf-title">{item.title}</div>
                  <div className="hint">
                    {item.source.name} · {display.date(item.published_at)} · {(item.type ?? '').replace(/_/g, ' ')}
                  </div>
                </div>
              );
            })}
          </div>
          {!loading && items.length === 0 && !error ? <p className="hint empty-state" data-testid="discover-no-match">No signals match these words and filters. Try fewer filters or another spelling.</p> : null}
        </div>
        <p className="hint">{loading ? 'Loading…' : `${items.length} shown${cursor ? ' · scroll for more' : ''} · ↑ ↓ to move, Enter to open`}</p>
      </div>
      {open ? (
        <div className="sf-side">
          <CitationPanel citations={[snapshotOfDiscoverItem(open, new Date().toISOString())]} text="" selectedId={open.id} onSelect={() => undefined} onClose={() => setOpen(null)} signalActions={false} listTitle="This signal" />
          <SignalActions item={open} />
        </div>
      ) : null}
    </section>
  );
}
