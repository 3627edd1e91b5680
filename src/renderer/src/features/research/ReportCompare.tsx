import { useMemo } from 'react';
import type { StoredReport } from '../../../../shared/research';
import { useDisplay } from '../../app/use-display';
import { CitationNumbering, renderMarkdownHtml } from '../chat/markdown';

interface Block {
  key: string;
  markdown: string;
  /** In one run only: added in the newer, gone from the older. */
  changed: boolean;
}

/** A report cut into comparable blocks: headings, paragraphs, list items, table rows. */
export function blocksOf(markdown: string): string[] {
  const blocks: string[] = [];
  let paragraph: string[] = [];
  const flush = (): void => {
    if (paragraph.length > 0) blocks.push(paragraph.join('\n'));
    paragraph = [];
  };
  for (const line of markdown.split('\n')) {
    if (line.trim() === '') flush();
    else if (/^(#{1,6}\s|\s*[-*+]\s|\s*\d+[.)]\s|\|)/.test(line)) {
      flush();
      blocks.push(line);
    } else paragraph.push(line);
  }
  flush();
  return blocks.filter((block) => !/^\|[\s:|-]*\|?$/.test(block));
}

const comparable = (block: string): string => block.replace(/\s+/g, ' ').trim();

function marked(blocks: string[], other: Set<string>): Block[] {
  return blocks.map((markdown, index) => ({ key: `${index}`, markdown, changed: !other.has(comparable(markdown)) && !/^#/.test(markdown) }));
}

/** Two runs of a topic side by side, blocks only one of them has marked (and said, for screen readers). */
export function ReportCompare({ older, newer, onClose }: { older: StoredReport; newer: StoredReport; onClose(): void }) {
  const display = useDisplay();
  const [left, right] = useMemo(() => {
    const a = blocksOf(older.markdown);
    const b = blocksOf(newer.markdown);
    return [marked(a, new Set(b.map(comparable))), marked(b, new Set(a.map(comparable)))];
  }, [older, newer]);
  const column = (report: StoredReport, blocks: Block[], side: 'older' | 'newer') => {
    const numbering = new CitationNumbering();
    return (
      <article className="compare-column" data-testid={`compare-${side}`} aria-label={`${side === 'older' ? 'Earlier' : 'Later'} run, ${display.dateTime(report.createdAt)}`}>
        <h2>
          {side === 'older' ? 'Earlier' : 'Later'} run · {display.dateTime(report.createdAt)}
        </h2>
        {blocks.map((block) => (
          <div key={block.key} className={`compare-block${block.changed ? ` diff-${side === 'newer' ? 'added' : 'removed'}` : ''}`} data-testid={block.changed ? `diff-${side === 'newer' ? 'added' : 'removed'}` : undefined}>
            {block.changed ? <span className="visually-hidden">{side === 'newer' ? 'New in this run: ' : 'Not in the later run: '}</span> : null}
            <div className="answer-body" dangerouslySetInnerHTML={{ __html: renderMarkdownHtml(block.markdown, numbering) }} />
          </div>
        ))}
      </article>
    );
  };
  const added = right.filter((block) => block.changed).length;
  const removed = left.filter((block) => block.changed).length;
  return (
    <section className="report-compare" aria-label="Two runs side by side" data-testid="report-compare">
      <header className="report-meta">
        <button type="button" className="link" onClick={onClose} data-testid="compare-close">
          ← Back to the report
        </button>
        <span data-testid="compare-summary">
          {added} new, {removed} gone since {display.date(older.createdAt)}
        </span>
      </header>
      <div className="compare-columns">
        {column(older, left, 'older')}
        {column(newer, right, 'newer')}
      </div>
    </section>
  );
}
