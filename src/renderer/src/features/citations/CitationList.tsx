import type { CitationPayload } from '../../../../shared/service-schemas';
import { useDisplay } from '../../app/use-display';
import { httpHref } from '../../../../shared/safe-href';
import { openExternalLink } from './open-link';

interface CitationListProps {
  citations: CitationPayload[];
  /** Number of each cited id as it appears in the text; ids without a marker are listed apart. */
  numbers: Map<string, number>;
  selectedId: string | null;
  onSelect(id: string): void;
}

/** The cited signals of one answer: numbered ones first, in chip order, then unmarked ones. */
export function CitationList({ citations, numbers, selectedId, onSelect }: CitationListProps) {
  const display = useDisplay();
  if (citations.length === 0) return null;
  const numbered = citations.filter((c) => numbers.has(c.id)).sort((a, b) => numbers.get(a.id)! - numbers.get(b.id)!);
  const unmarked = citations.filter((c) => !numbers.has(c.id));
  const item = (citation: CitationPayload, label: string) => {
    // SECURITY: only http(s) citation URLs become links (no javascript:, file:, data:, custom schemes).
    const href = httpHref(citation.url);
    return (
      <li
        key={citation.id}
        className={`citation${selectedId === citation.id ? ' selected' : ''}`}
        data-testid="citation-entry"
        data-cite={citation.id}
        data-number={label}
      >
        <button type="button" className="citation-number" onClick={() => onSelect(citation.id)} aria-label={`Citation ${label}`}>
          {label}
        </button>
        <div className="citation-body">
          <div className="citation-title">{citation.title ?? citation.id}</div>
          <div className="citation-meta">
            <span data-testid="citation-source">{citation.source_name ?? citation.source_id ?? 'Unknown source'}</span>
            <span aria-hidden="true"> · </span>
            <time dateTime={citation.published_at}>{display.date(citation.published_at)}</time>
            {href ? (
              <>
                <span aria-hidden="true"> · </span>
                <a
                  href={href}
                  data-testid="citation-open-source"
                  onClick={(event) => {
                    event.preventDefault();
                    void openExternalLink(href);
                  }}
                >
                  open source
                </a>
              </>
            ) : null}
          </div>
          {selectedId === citation.id && citation.snippet ? <p className="citation-snippet">{citation.snippet}</p> : null}
        </div>
      </li>
    );
  };
  return (
    <section className="citations" aria-label="Cited signals">
      <h3>Sources</h3>
      <ol data-testid="citation-list">{numbered.map((c) => item(c, String(numbers.get(c.id))))}</ol>
      {unmarked.length > 0 ? (
        <>
          <h4>Also consulted (no inline marker)</h4>
          <ul>{unmarked.map((c) => item(c, '•'))}</ul>
        </>
      ) : null}
    </section>
  );
}
