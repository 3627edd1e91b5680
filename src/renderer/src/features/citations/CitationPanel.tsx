import { useEffect, useRef, useState } from 'react';
import type { SignalDetails } from '../../../../shared/bridge-contract';
import { orderedCitations } from '../../../../shared/cite-format';
import { calendarDaysAgo, formatNumber } from '../../../../shared/format';
import { useDisplay } from '../../app/use-display';
import { metricLabel } from '../../../../shared/metric-labels';
import { clarity } from '../../bridge/clarity';
import type { CitationSnapshot } from '../../../../shared/conversation';
import { useAppStore } from '../../store/app-store';
import { selectedCitationTurn } from '../../store/turn-selectors';
import { CITATION_MARKER } from '../../../../shared/cite-format';
import { httpHref } from '../../../../shared/safe-href';
import { openExternalLink } from './open-link';
import { CitationActions } from '../discover/CitationActions';
import { supportForChip } from './sentence-support';

const STALE_AFTER_DAYS = 90;
/** How often the panel asks again for the source's health "now" while it stays open. */
export const NOW_REFRESH_MS = 30_000;

/** `notMeasured`: the source is not fetched (the fixed sample), so it has no health to show. */
function HealthBadge({ health, label, checkedAt, notMeasured }: { health: string | null | undefined; label: string; checkedAt?: number; notMeasured?: boolean }) {
  const checked = checkedAt ? `Checked at ${new Date(checkedAt).toLocaleTimeString('en-IN', { hour: '2-digit', minute: '2-digit', second: '2-digit' })}` : undefined;
  return (
    <span
      className={`health health-${health ?? 'unknown'}`}
      data-testid={`health-${label}`}
      data-checked-at={checkedAt}
      title={notMeasured ? 'A sample source: the service never fetches it, so it has no health.' : checked}
    >
      {label}: {health ?? (notMeasured ? 'not measured (sample)' : 'unknown')}
    </span>
  );
}

/** The chat's side panel: the selected citation of one answer. */
export function ChatCitationPanel() {
  const selection = useAppStore((s) => s.selectedCitation);
  const turn = useAppStore(selectedCitationTurn);
  const select = useAppStore((s) => s.selectCitation);
  // The selected turn's answer is held while its citation is open (chat-slice.ts keeps it in the window).
  if (!selection || !turn?.answer) return null;
  // The span of the signal that supports the sentence of the chip clicked, from verification.
  const span = supportForChip(turn.answer.text, turn.answer.support, selection.citationId, selection.occurrence, new Set(turn.answer.citations.map((c) => c.id)));
  return (
    <CitationPanel
      support={span ? { start: span.start, end: span.end } : undefined}
      citations={turn.answer.citations}
      text={turn.answer.text}
      selectedId={selection.citationId}
      onSelect={(citationId) => select({ turnId: turn.id, citationId })}
      onClose={() => select(null)}
    />
  );
}

interface CitationPanelProps {
  citations: CitationSnapshot[];
  /** The answer or report text, for numbering and spotting citations without a marker. */
  text: string;
  selectedId: string;
  onSelect(citationId: string): void;
  onClose(): void;
  /** The heading of the list of every citation (a report's differs from an answer's). */
  listTitle?: string;
  /** Follow and forecast buttons for the signal (off where the view shows its own, as Discover does). */
  signalActions?: boolean;
  /** Where the signal's body supports the cited sentence (offsets into the body): shown highlighted. */
  support?: { start: number; end: number };
}

/** The signal's body with the supporting span marked, scrolled into view when it changes. */
function SupportedBody({ body, support }: { body: string; support: { start: number; end: number } }) {
  const mark = useRef<HTMLElement | null>(null);
  useEffect(() => {
    mark.current?.scrollIntoView({ block: 'center' });
  }, [body, support.start, support.end]);
  const start = Math.min(support.start, body.length);
  const end = Math.min(Math.max(support.end, start), body.length);
  return (
    <p className="body" data-testid="panel-body">
      {body.slice(0, start)}
      <mark ref={mark} className="support-span" data-testid="support-span">
        {body.slice(start, end)}
      </mark>
      {body.slice(end)}
    </p>
  );
}

/** The side panel of one cited signal, with every citation of its answer or report below. */
export function CitationPanel({ citations, text, selectedId, onSelect, onClose, listTitle = 'All citations of this answer', signalActions = true, support }: CitationPanelProps) {
  const baseUrl = useAppStore((s) => s.serviceStatus?.baseUrl ?? null);
  const [now, setNow] = useState<{ id: string; result: SignalDetails | string; at: number } | null>(null);
  const display = useDisplay();
  const citation = citations.find((c) => c.id === selectedId);
  // What had focus when the panel opened (the chip): it gets focus back when the panel closes.
  const opener = useRef(document.activeElement instanceof HTMLElement ? document.activeElement : null);
  const close = useRef(onClose);
  useEffect(() => {
    close.current = () => {
      onClose();
      const back = opener.current?.isConnected ? opener.current : document.querySelector<HTMLElement>(`[data-cite="${CSS.escape(selectedId)}"]`);
      back?.focus();
    };
  });

  // The source's health "now" is asked for again while the panel stays open.
  useEffect(() => {
    let live = true;
    const load = (): void => {
      void clarity()
        .invoke('signals.get', { id: selectedId })
        .then((result) => live && setNow({ id: selectedId, result: result.ok ? result.value : result.error.message, at: Date.now() }));
    };
    load();
    const timer = setInterval(load, NOW_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [selectedId]);

  // Esc closes the panel, unless something inside it (a menu) used the key first.
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      close.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const selection = { citationId: selectedId };
  const current = now?.id === selection.citationId ? now.result : null;
  const details = typeof current === 'object' && current !== null ? current : null;
  const detail = citation?.detail ?? null;
  // Calendar days in the user's zone: a signal from last evening is "yesterday", not "today".
  const ageDays = citation?.published_at ? calendarDaysAgo(citation.published_at, Date.now(), display.zone) : null;
  const ordered = orderedCitations(text, citations);
  const marked = new Set([...text.matchAll(CITATION_MARKER)].map((m) => m[1]));
  const entities = detail?.entities ?? details?.signal.entities;
  const metrics = detail?.metrics ?? details?.signal.metrics;
  // SECURITY: only an http(s) address becomes a link; the slug is encoded into the service's path.
  const pageUrl = httpHref(citation?.slug && baseUrl ? `${baseUrl}/signal/${encodeURIComponent(citation.slug)}` : citation?.url);

  return (
    <aside className="citation-panel" aria-label="Citation" data-testid="citation-panel">
      <header>
        <h2>Citation {ordered.find((o) => o.citation.id === selection.citationId)?.number}</h2>
        <button type="button" className="icon" aria-label="Close citation panel (Esc)" onClick={() => close.current()} data-testid="close-citation-panel">
          ✕
        </button>
      </header>
      {citation ? (
        <section className="panel-signal">
          <h3 data-testid="panel-title">{citation.title ?? citation.id}</h3>
          <p className="hint">
            <span data-testid="panel-source">{citation.source_name ?? citation.source_id}</span> · <time dateTime={citation.published_at}>{display.date(citation.published_at)}</time>
            {ageDays !== null && ageDays > STALE_AFTER_DAYS ? (
              <span className="stale" data-testid="stale-flag">
                {' '}
                · stale: {formatNumber(ageDays)} days old
              </span>
            ) : ageDays !== null ? (
              <span className="fresh" data-testid="panel-age"> · {display.dayAge(citation.published_at)}</span>
            ) : null}
          </p>
          {citation.snippet ? <p className="snippet" data-testid="panel-snippet">{citation.snippet}</p> : null}
          {support && (detail?.body ?? details?.signal.body) ? (
            <SupportedBody body={(detail?.body ?? details?.signal.body)!} support={support} />
          ) : detail?.body && detail.body !== citation.snippet ? (
            <p className="body">{detail.body}</p>
          ) : null}
          <div className="health-row">
            <HealthBadge health={detail?.healthWhenCited} label="when cited" notMeasured={!detail?.healthWhenCited && (detail?.healthNotMeasured === true || details?.source.health === null)} />
            {current === null ? <span className="health" data-testid="health-now">now: checking…</span> : <HealthBadge health={details?.source.health} label="now" checkedAt={now?.at} notMeasured={details?.source.health === null} />}
            {typeof current === 'string' ? <span className="hint">Current health unavailable: {current}</span> : null}
          </div>
          {entities ? (
            <div className="entities" data-testid="panel-entities">
              {[...entities.retailers, ...entities.segments, ...entities.cities, ...entities.states].map((entity) => (
                <span key={entity} className="badge">
                  {entity}
                </span>
              ))}
            </div>
          ) : null}
          {metrics && Object.keys(metrics).length > 0 ? (
            <table className="metrics" data-testid="panel-metrics">
              <tbody>
                {Object.entries(metrics).map(([key, value]) => (
                  <tr key={key}>
                    <th>{metricLabel(key)}</th>
                    <td>{formatNumber(value, { maxFractionDigits: 2 })}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {signalActions ? <CitationActions entities={entities} metrics={metrics} source={citation.source_id ? { id: citation.source_id, name: citation.source_name ?? citation.source_id } : null} /> : null}
          {pageUrl ? (
            <a
              href={pageUrl}
              data-testid="panel-open-signal"
              onClick={(event) => {
                event.preventDefault();
                void openExternalLink(pageUrl);
              }}
            >
              Open the signal's page ↗
            </a>
          ) : null}
          <p className="hint mono">{citation.id}</p>
        </section>
      ) : null}
      <section>
        <h4>{listTitle}</h4>
        <ol className="panel-list" data-testid="panel-all-citations">
          {ordered.map(({ number, citation: c }) => (
            <li key={c.id} className={c.id === selection.citationId ? 'selected' : ''}>
              <button type="button" className="link" onClick={() => onSelect(c.id)}>
                {marked.has(c.id) ? `${number}.` : '•'} {c.title ?? c.id}
              </button>
              {!marked.has(c.id) ? <span className="hint"> (no marker in the text)</span> : null}
            </li>
          ))}
        </ol>
      </section>
    </aside>
  );
}
