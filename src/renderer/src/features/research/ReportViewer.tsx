import { useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import type { ResearchRunSummary, StoredReport } from '../../../../shared/research';
import { formatNumber } from '../../../../shared/format';
import { whereItRan } from '../../../../shared/service-place';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { CitationPanel } from '../citations/CitationPanel';
import { ExportMenu } from '../library/ExportMenu';
import { SaveToLibrary } from '../library/SaveToLibrary';
import { handleCitationClick } from '../citations/citation-clicks';
import { CitationNumbering, renderMarkdownHtml, sanitizeHtmlWithChips } from '../chat/markdown';
import { useAppStore } from '../../store';
import { ReportCharts } from './ReportCharts';
import { ReportCompare } from './ReportCompare';
import { runCost } from './run-cost';

interface Heading {
  id: string;
  text: string;
  level: number;
}

/** A finished report: table of contents that follows the scroll, numbered chips, metadata. */
export function ReportViewer({ runId, onClose }: { runId: string; onClose(): void }) {
  const display = useDisplay();
  const [loaded, setLoaded] = useState<{ run: ResearchRunSummary; report: StoredReport } | string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [headings, setHeadings] = useState<Heading[]>([]);
  const [activeHeading, setActiveHeading] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [compare, setCompare] = useState<StoredReport | string | null>(null);
  const body = useRef<HTMLDivElement>(null);
  const runs = useAppStore((s) => s.runs);

  useEffect(() => {
    let live = true;
    void clarity()
      .invoke('research.report', { id: runId })
      .then((result) => live && setLoaded(result.ok ? result.value : result.error.message));
    return () => {
      live = false;
    };
  }, [runId]);

  const report = typeof loaded === 'object' && loaded !== null ? loaded.report : null;
  const html = useMemo(() => {
    if (!report) return '';
    const numbering = new CitationNumbering();
    return report.html !== null ? sanitizeHtmlWithChips(report.html, numbering) : renderMarkdownHtml(report.markdown, numbering);
  }, [report]);

  // Headings get ids after mount (the sanitiser drops ids from the service's markup).
  useEffect(() => {
    const root = body.current;
    if (!root || !html) return;
    const found: Heading[] = [];
    root.querySelectorAll<HTMLElement>('h1, h2, h3').forEach((element, i) => {
      element.id = `section-${i}`;
      found.push({ id: element.id, text: element.textContent ?? '', level: Number(element.tagName[1]) });
    });
    setHeadings(found);
    // The active section is the last heading above a reading line near the top of the view,
    // or the last one once the end of the report is reached.
    const scroller = root.parentElement;
    if (!scroller) return;
    let frame = 0;
    const onScroll = (): void => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const line = scroller.getBoundingClientRect().top + scroller.clientHeight * 0.25;
        const atEnd = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 4;
        let active = found[0]?.id ?? null;
        for (const heading of found) {
          const element = root.querySelector(`#${heading.id}`);
          if (element && element.getBoundingClientRect().top <= line) active = heading.id;
        }
        if (atEnd && found.length > 0) active = found[found.length - 1]!.id;
        setActiveHeading(active);
      });
    };
    onScroll();
    scroller.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      scroller.removeEventListener('scroll', onScroll);
    };
  }, [html]);

  if (loaded === null) return <p className="hint">Loading the report…</p>;
  if (typeof loaded === 'string') {
    return (
      <p className="notice" role="alert">
        {loaded}
      </p>
    );
  }
  const { run } = loaded;
  const changes = report!.changes ?? null;
  // The earlier run of the topic, when this app ran it (the service names it by its own id).
  const earlier = changes ? runs.find((candidate) => candidate.remoteId === changes.previousId && candidate.state === 'completed') : undefined;
  const openCompare = (): void => {
    if (!earlier) return;
    void clarity()
      .invoke('research.report', { id: earlier.id })
      .then((result) => setCompare(result.ok ? result.value.report : result.error.message));
  };
  if (compare && typeof compare === 'object') return <ReportCompare older={compare} newer={report!} onClose={() => setCompare(null)} />;

  const onClick = (event: MouseEvent<HTMLDivElement>): void => handleCitationClick(event, setSelected);

  return (
    <div className={`report-layout${selected ? ' with-panel' : ''}`} data-testid="report-viewer">
      <nav className="toc" aria-label="Contents" data-testid="report-toc">
        <button type="button" className="link" onClick={onClose}>
          ← All runs
        </button>
        <h2>Contents</h2>
        <ol>
          {headings.map((heading) => (
            <li key={heading.id} className={`level-${heading.level}${heading.id === activeHeading ? ' active' : ''}`}>
              <button type="button" className="link" onClick={() => body.current?.querySelector(`#${heading.id}`)?.scrollIntoView({ block: 'start' })}>
                {heading.text}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      <div className="report-scroll">
        <header className="report-meta" data-testid="report-meta">
          <span>Topic: <strong>{report!.topic}</strong></span>
          <span>Preset: {report!.preset}</span>
          <span>Created: {display.dateTime(report!.createdAt)}</span>
          <span data-testid="report-citation-count">{formatNumber(report!.citationCount)} citations</span>
          <span data-testid="report-cost">{runCost(report!, display.cost)}</span>
          {report!.verification ? (
            <span data-testid="report-verified">
              {formatNumber(report!.verification.supported)} of {formatNumber(report!.verification.sentences)} sentences supported
            </span>
          ) : null}
          {earlier ? (
            <button type="button" className="secondary" onClick={openCompare} data-testid="compare-runs">
              Compare with {display.date(changes!.since)}
            </button>
          ) : null}
          {typeof compare === 'string' ? (
            <span className="notice" role="alert">
              {compare}
            </span>
          ) : null}
          <span className="hint" data-testid="report-service">
            Run {whereItRan(run.serviceUrl)}
          </span>
          <SaveToLibrary
            label="Save to library"
            className="secondary"
            testId="save-report"
            save={(location) => clarity().invoke('library.saveReport', { runId: run.id, location })}
            onResult={(r, team) => setSaved(r.ok ? `Saved to ${team ? `“${team}”` : 'the library'}.` : r.error.message)}
          />
          <ExportMenu source={{ kind: 'report', runId: run.id }} />
          {saved ? (
            <span className="hint" role="status" data-testid="report-saved">
              {saved}
            </span>
          ) : null}
        </header>
        <div ref={body} className="answer-body report-body" data-testid="report-body" role="presentation" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />
        <ReportCharts series={report!.series ?? []} onCite={setSelected} />
        {report!.verification && report!.verification.removed.length > 0 ? (
          <details className="removed-claims" data-testid="report-removed">
            <summary>
              {report!.verification.removed.length} claim{report!.verification.removed.length === 1 ? '' : 's'} removed: not supported by the cited signals
            </summary>
            <ul>
              {report!.verification.removed.map((claim, index) => (
                <li key={index}>
                  <q>{claim.text.replace(/\s*\[sig_[0-9a-f]{16}\]/g, '')}</q> — {claim.reason}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </div>
      {selected ? (
        <CitationPanel citations={report!.citations} text={report!.markdown || report!.html || ''} selectedId={selected} onSelect={setSelected} onClose={() => setSelected(null)} listTitle="Sources cited in this report" />
      ) : null}
    </div>
  );
}
