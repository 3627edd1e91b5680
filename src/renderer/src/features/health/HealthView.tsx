import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { formatCount, formatNumber, formatPercent } from '../../../../shared/format';
import { SOURCE_TEXT_COLLATOR, sourceFiguresNote, type HealthView as HealthViewData, type SourceCitingItem, type SourceRow, type StatsPoint } from '../../../../shared/health';
import { clarity } from '../../bridge/clarity';
import { useDisplay } from '../../app/use-display';
import { useAppStore } from '../../store/app-store';
import { HealthFiguresExplained, oracleMeasured } from './health-figures';
import { FirstSourcesIntro, wishStarterPack } from '../sources/StarterPack';
import { Sparkline } from './Sparkline';
import { FollowChips } from '../discover/FollowChips';

type SortKey = 'name' | 'kind' | 'health' | 'cadence' | 'items_24h' | 'last_item_at';
const HEALTH_ORDER = { down: 0, degraded: 1, unknown: 2, healthy: 3 } as const;
const ROW_HEIGHT = 38;
/** One empty list, so the memoised sort does not rerun on every render before the first snapshot. */
const NO_ROWS: SourceRow[] = [];
/** Date and time in the user's zone, "—" when there is none. */
function useWhen(): (iso: string | null | undefined) => string {
  const display = useDisplay();
  return (iso) => (iso ? display.dateTime(iso) : '—');
}

/** A row with a number to sort on for every column, so that sorting compares integers. */
type SortKeys = { row: SourceRow } & Record<SortKey, number>;

/** Places of distinct text values in collation order. */
function ranksOf(values: Iterable<string>): Map<string, number> {
  return new Map([...new Set(values)].sort(SOURCE_TEXT_COLLATOR.compare).map((value, rank) => [value, rank]));
}

/**
 * Sort keys for a snapshot, computed once when it arrives, and its kinds in order (the kind
 * filter lists them). Names come ranked by main, so no name is collated here; kinds and
 * cadences have a handful of values. Every later sort or filter on 5,000 rows then compares
 * integers only.
 */
function sortKeysOf(rows: readonly SourceRow[]): { keys: SortKeys[]; kinds: string[] } {
  const kinds = ranksOf(rows.map((row) => row.kind));
  const cadences = ranksOf(rows.map((row) => row.cadence));
  const keys = rows.map((row) => ({
    row,
    name: row.nameRank,
    kind: kinds.get(row.kind)!,
    cadence: cadences.get(row.cadence)!,
    health: HEALTH_ORDER[row.health],
    items_24h: row.items_24h,
    // No item yet sorts first, as an empty time would.
    last_item_at: row.last_item_at ? Date.parse(row.last_item_at) : -Infinity,
  }));
  return { keys, kinds: [...kinds.keys()] };
}

/** Each snapshot's rows in ascending order of each column, sorted once and kept. */
const ORDERS = new WeakMap<readonly SortKeys[], Map<SortKey, SortKeys[]>>();

/** Rows in ascending order of one column, ties by name (so every run orders them alike). */
function orderOf(keys: readonly SortKeys[], key: SortKey): SortKeys[] {
  let orders = ORDERS.get(keys);
  if (!orders) ORDERS.set(keys, (orders = new Map()));
  let ordered = orders.get(key);
  if (!ordered) orders.set(key, (ordered = [...keys].sort((a, b) => a[key] - b[key] || a.name - b.name)));
  return ordered;
}

/** `words`: the value is a phrase, not a figure (set smaller, so it does not wrap into a column). */
function StatCard({ label, value, series, testId, words = false }: { label: string; value: string; series: number[]; testId: string; words?: boolean }) {
  return (
    <div className="stat" data-testid={testId}>
      <span className="stat-label">{label}</span>
      <strong className={words ? 'stat-value stat-words' : 'stat-value'}>{value}</strong>
      <Sparkline values={series} label={`${label} trend`} width={110} />
    </div>
  );
}

function Overview({ history, stats, missRate, measured }: { history: StatsPoint[]; stats: NonNullable<HealthViewData['snapshot']>['stats']; missRate: number; measured: boolean }) {
  return (
    <div className="overview" data-testid="health-overview">
      <StatCard testId="stat-sources" label="Sources" value={formatNumber(stats.sources_total)} series={history.map((p) => p.healthy + p.degraded + p.down)} />
      <StatCard testId="stat-healthy" label="Healthy" value={formatNumber(stats.healthy)} series={history.map((p) => p.healthy)} />
      <StatCard testId="stat-degraded" label="Degraded" value={formatNumber(stats.degraded)} series={history.map((p) => p.degraded)} />
      <StatCard testId="stat-down" label="Down" value={formatNumber(stats.down)} series={history.map((p) => p.down)} />
      <StatCard testId="stat-items-per-hour" label="Items per hour" value={formatNumber(stats.items_per_hour, { maxFractionDigits: 1 })} series={history.map((p) => p.itemsPerHour)} />
      <StatCard testId="stat-signals-24h" label="Signals, 24 h" value={formatCount(stats.signals_24h)} series={history.map((p) => p.signals24h)} />
      <StatCard testId="stat-miss-rate" label="Oracle miss-rate" value={measured ? formatPercent(missRate) : 'not measured — no reference feed'} words={!measured} series={measured ? history.map((p) => p.missRate) : []} />
    </div>
  );
}

function Drilldown({ row, onClose }: { row: SourceRow; onClose(): void }) {
  const [citing, setCiting] = useState<SourceCitingItem[] | null>(null);
  const openConversation = useAppStore((s) => s.openConversation);
  const openReport = useAppStore((s) => s.openReport);
  const setView = useAppStore((s) => s.setView);
  // Esc closes the drill-down.
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  const when = useWhen();
  const note = sourceFiguresNote(row, Date.now());
  useEffect(() => {
    let live = true;
    void clarity()
      .invoke('health.citing', { sourceId: row.id })
      .then((result) => live && setCiting(result.ok ? result.value : []));
    return () => {
      live = false;
    };
  }, [row.id]);
  return (
    <aside className="citation-panel source-drilldown" data-testid="source-drilldown" aria-label={`Source ${row.name}`}>
      <header>
        <h2>Source</h2>
        <button type="button" className="icon" aria-label="Close source details (Esc)" onClick={onClose} data-testid="close-drilldown">
          ✕
        </button>
      </header>
      <h3>{row.name}</h3>
      <p className="hint">
        {row.kind.replace(/_/g, ' ')} · {row.cadence} · <span className={`health health-${row.health}`}>{row.health}</span>
      </p>
      <FollowChips targets={[{ label: row.name, target: { type: 'source', value: row.id } }]} />
      <h4>Items in the last 24 h</h4>
      <Sparkline values={row.itemsHistory} width={300} height={48} label="items_24h history" />
      <p className="hint">
        Now {formatNumber(row.items_24h)}; last item {when(row.last_item_at)}
      </p>
      {note ? (
        <p className="hint figures-note" data-testid="figures-note">
          {note}
        </p>
      ) : null}
      <h4>Health timeline</h4>
      <ol className="timeline" data-testid="health-timeline">
        {row.healthTimeline.length === 0 ? <li className="hint">No changes seen yet.</li> : null}
        {[...row.healthTimeline].reverse().map((point, i, all) => (
          <li key={point.at}>
            {/* The first entry is the app's first look, not when the source entered that state. */}
            <span className={`health health-${point.health}`}>{point.health}</span> since {i === all.length - 1 ? 'at least ' : ''}
            {when(point.at)}
          </li>
        ))}
      </ol>
      <h4>Cited by</h4>
      <ul className="panel-list" data-testid="source-citing">
        {citing === null ? <li className="hint">Looking…</li> : null}
        {citing?.length === 0 ? <li className="hint">No saved answer or report cites this source yet.</li> : null}
        {citing?.map((item) => (
          <li key={item.id} data-testid="citing-item">
            <button
              type="button"
              className="link"
              onClick={() => {
                if (item.kind === 'answer') {
                  setView('chat');
                  void openConversation(item.openId);
                } else {
                  setView('research');
                  openReport(item.openId);
                }
              }}
            >
              {item.kind === 'answer' ? 'Answer' : 'Report'}: {item.title}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}

export function HealthView() {
  const view = useAppStore((s) => s.health);
  const watch = useAppStore((s) => s.watchHealth);
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'health', descending: false });
  const [healthFilter, setHealthFilter] = useState<'all' | 'healthy' | 'degraded' | 'down'>('all');
  const [kindFilter, setKindFilter] = useState('all');
  const [search, setSearch] = useState('');
  const deferredSearch = useDeferredValue(search);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const when = useWhen();

  useEffect(() => watch(), [watch]);

  const rows = view?.rows ?? NO_ROWS;
  const setView = useAppStore((s) => s.setView);
  // Issue 47: an honest miss-rate, and a first screen while no source is fetched.
  const measured = view?.snapshot ? oracleMeasured(view.snapshot.oracle, rows.some((row) => row.role === 'oracle')) : false;
  const firstScreen = !!view?.snapshot && rows.length === 0 && view.snapshot.stats.sources_total === 0;
  const { keys: sortKeys, kinds } = useMemo(() => sortKeysOf(rows), [rows]);
  // Each column's order is sorted once per snapshot and kept: a click then filters a list
  // already in order (5,000 integer checks) instead of sorting again. The other columns are
  // sorted while the page is idle, so even a column's first click is cheap.
  useEffect(() => {
    if (sortKeys.length === 0 || typeof requestIdleCallback !== 'function') return;
    const pendingKeys: SortKey[] = ['name', 'kind', 'cadence', 'items_24h', 'last_item_at', 'health'];
    let handle = 0;
    const step = (deadline: IdleDeadline): void => {
      while (pendingKeys.length > 0 && deadline.timeRemaining() > 4) orderOf(sortKeys, pendingKeys.shift()!);
      if (pendingKeys.length > 0) handle = requestIdleCallback(step);
    };
    handle = requestIdleCallback(step);
    return () => cancelIdleCallback(handle);
  }, [sortKeys]);
  const visible = useMemo(() => {
    const needle = deferredSearch.trim().toLowerCase();
    const { key } = sort;
    const sorted: SourceRow[] = [];
    for (const { row } of orderOf(sortKeys, key)) {
      if ((healthFilter === 'all' || row.health === healthFilter) && (kindFilter === 'all' || row.kind === kindFilter) && (!needle || row.name.toLowerCase().includes(needle))) sorted.push(row);
    }
    return sort.descending ? sorted.reverse() : sorted;
  }, [sortKeys, healthFilter, kindFilter, deferredSearch, sort]);

  const virtualizer = useVirtualizer({ count: visible.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 6 });
  const selected = rows.find((row) => row.id === selectedId) ?? null;
  const closeDrilldown = useCallback(() => {
    setSelectedId(null);
    // Focus goes back to the row that opened it.
    scroller.current?.querySelector<HTMLElement>(`[data-id="${CSS.escape(selectedId ?? '')}"] .row-open`)?.focus();
  }, [selectedId]);
  const changed = rows.filter((row) => row.change).length;

  // ARIA table semantics: the sort state belongs to the column header, the button inside sorts.
  const header = (key: SortKey, label: string) => (
    <span role="columnheader" className="th-cell" aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button
        type="button"
        className={`th${sort.key === key ? ' sorted' : ''}`}
        data-testid={`sort-${key}`}
        onClick={() => setSort((current) => ({ key, descending: current.key === key ? !current.descending : key === 'items_24h' || key === 'last_item_at' }))}
      >
        {label}
        {sort.key === key ? (sort.descending ? ' ↓' : ' ↑') : ''}
      </button>
    </span>
  );

  return (
    <div className={`health-layout${selected ? ' with-panel' : ''}`}>
      <section className="health-view" aria-label="Sources health">
        <div className="health-head">
          <h1>Sources health</h1>
          <span className="hint" data-testid="health-times">
            Generated {when(view?.generatedAt)} · fetched {when(view?.fetchedAt)} · next refresh {when(view?.nextRefreshAt)}
          </span>
        </div>
        {view?.stale ? (
          <p className="notice stale-banner" role="alert" data-testid="health-stale">
            Showing the last snapshot: the service cannot be reached ({view.error}). Last success {when(view.lastSuccessAt)}.
          </p>
        ) : null}
        {view?.snapshot ? (
          <>
            <Overview history={view.statsHistory} stats={view.snapshot.stats} missRate={view.snapshot.oracle.miss_rate} measured={measured} />
            <HealthFiguresExplained oracleWindow={view.snapshot.oracle.window} missRate={view.snapshot.oracle.miss_rate} measured={measured} healthRule={view.snapshot.health_rule ?? null} />
            {firstScreen ? (
              <FirstSourcesIntro
                where="health"
                onAdd={() => setView('sources')}
                onPack={() => {
                  wishStarterPack();
                  setView('sources');
                }}
              />
            ) : null}
          </>
        ) : view?.error ? (
          <p className="notice" role="alert" data-testid="health-error">
            No health snapshot yet: {view.error} The app tries again {view.nextRefreshAt ? `at ${when(view.nextRefreshAt)}` : 'soon'}.{' '}
            <button type="button" className="link" onClick={() => void clarity().invoke('health.refresh')} data-testid="health-retry">
              Try again now
            </button>
          </p>
        ) : (
          <p className="hint" data-testid="health-loading">
            Loading the health snapshot…
          </p>
        )}
        <div className="health-filters" hidden={firstScreen}>
          <input type="search" placeholder="Search sources by name" value={search} onChange={(event) => setSearch(event.target.value)} aria-label="Search sources" data-testid="health-search" />
          <select value={healthFilter} onChange={(event) => setHealthFilter(event.target.value as typeof healthFilter)} aria-label="Filter by health" data-testid="health-filter-health">
            <option value="all">All health</option>
            <option value="healthy">Healthy</option>
            <option value="degraded">Degraded</option>
            <option value="down">Down</option>
            <option value="unknown">Unknown</option>
          </select>
          <select value={kindFilter} onChange={(event) => setKindFilter(event.target.value)} aria-label="Filter by kind" data-testid="health-filter-kind">
            <option value="all">All kinds</option>
            {kinds.map((kind) => (
              <option key={kind} value={kind}>
                {kind.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
          <span className="hint" data-testid="health-count">
            {formatNumber(visible.length)} of {formatNumber(rows.length)} sources{changed > 0 ? ` · ${changed} changed since the last snapshot` : ''}
          </span>
        </div>
        <div className="source-table" role="table" aria-label="Sources" data-testid="health-table" hidden={firstScreen || (rows.length > 0 ? visible.length === 0 : !!view?.error)}>
          <div className="source-row head" role="row">
            {header('name', 'Source')}
            {header('kind', 'Kind')}
            {header('health', 'Health')}
            {header('cadence', 'Cadence')}
            {header('items_24h', 'Items 24 h')}
            <span className="th" role="columnheader">
              Trend
            </span>
            {header('last_item_at', 'Last item')}
          </div>
          {/* Focusable so the keyboard can scroll it; rows open with the button in their name cell. */}
          {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
          <div className="source-scroll" ref={scroller} data-testid="health-scroll" tabIndex={0} role="rowgroup" aria-label="Sources, one row each">
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((item) => {
                const row = visible[item.index]!;
                const wentDown = row.change?.health?.to === 'down';
                return (
                  // Keyed by slot, not by source: a sort or filter updates the rows on screen in
                  // place (text, attributes, the sparkline's points) instead of replacing them.
                  <div
                    key={item.key}
                    role="row"
                    className={`source-row${row.change ? ' changed' : ''}${wentDown ? ' went-down' : ''}${row.id === selectedId ? ' selected' : ''}`}
                    style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                    data-testid="health-row"
                    data-id={row.id}
                    data-health={row.health}
                    data-changed={row.change ? 'true' : 'false'}
                  >
                    <span className="cell name" role="cell" title={row.name}>
                      {/* Its ::after covers the whole row, so a click anywhere on the row opens the source. */}
                      <button type="button" className="row-open" onClick={() => setSelectedId(row.id)} aria-pressed={row.id === selectedId}>
                        {row.name}
                      </button>
                    </span>
                    <span className="cell" role="cell">
                      {row.kind.replace(/_/g, ' ')}
                    </span>
                    <span className="cell" role="cell">
                      <span className={`health health-${row.health}`} title={row.health_reported ? `The service says "${row.health_reported}"` : undefined}>{row.health}</span>
                      {row.change?.health ? (
                        <span className="change" data-testid="health-change">
                          {' '}
                          was {row.change.health.from}
                        </span>
                      ) : null}
                    </span>
                    <span className="cell" role="cell">
                      {row.cadence}
                    </span>
                    <span className="cell num" role="cell">
                      {row.items_24h}
                      {row.change?.itemsDelta ? <span className={`delta ${row.change.itemsDelta > 0 ? 'up' : 'down'}`}> {row.change.itemsDelta > 0 ? `+${row.change.itemsDelta}` : row.change.itemsDelta}</span> : null}
                    </span>
                    <span className="cell" role="cell">
                      <Sparkline values={row.itemsHistory} label={`${row.name} items`} />
                    </span>
                    <span className="cell" role="cell" title={sourceFiguresNote(row, Date.now()) ?? undefined}>
                      {when(row.last_item_at)}
                    </span>
                  </div>
                );
              })}
            </div>
          </div>
        </div>
        {rows.length > 0 && visible.length === 0 ? (
          <p className="empty-state" data-testid="health-no-match">
            No source matches {[search.trim() ? `“${search.trim()}”` : '', healthFilter !== 'all' ? `health “${healthFilter}”` : '', kindFilter !== 'all' ? `kind “${kindFilter.replace(/_/g, ' ')}”` : ''].filter(Boolean).join(' and ')}.{' '}
            <button
              type="button"
              className="link"
              onClick={() => {
                setSearch('');
                setHealthFilter('all');
                setKindFilter('all');
              }}
              data-testid="health-clear-filters"
            >
              Show all sources
            </button>
          </p>
        ) : null}
      </section>
      {selected ? <Drilldown row={selected} onClose={closeDrilldown} /> : null}
    </div>
  );
}
