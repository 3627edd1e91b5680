import { memo, useMemo, useRef, type MouseEvent } from 'react';
import { confidenceLabel } from '../../../../shared/confidence';
import { useAppStore, type AnswerMessage } from '../../store/app-store';
import { CitationList } from '../citations/CitationList';
import { openExternalLink } from '../citations/open-link';
import { IncrementalMarkdown } from './markdown';

/** A finished block: its HTML never changes, so React never touches it again. */
const FrozenBlock = memo(function FrozenBlock({ html }: { html: string }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

const STATUS_TEXT: Record<AnswerMessage['status'], string> = {
  waiting: 'Waiting for the service…',
  streaming: 'Answering…',
  done: '',
  incomplete: 'Incomplete answer',
  failed: 'No answer',
  cancelled: 'Cancelled',
};

export function AnswerView({ answer }: { answer: AnswerMessage }) {
  const markdown = useRef<IncrementalMarkdown | null>(null);
  markdown.current ??= new IncrementalMarkdown();
  const streaming = answer.status === 'waiting' || answer.status === 'streaming';
  const { frozen, tail } = useMemo(() => markdown.current!.update(answer.text, streaming), [answer.text, streaming]);
  const numbers = new Map(markdown.current.numbering.entries());
  const selectedId = useAppStore((s) => s.selectedCitationId);
  const selectCitation = useAppStore((s) => s.selectCitation);
  const retry = useAppStore((s) => s.retry);
  const busy = useAppStore((s) => s.activeStreamId !== null);

  const onClick = (event: MouseEvent<HTMLDivElement>): void => {
    const target = event.target as HTMLElement;
    const chip = target.closest<HTMLElement>('[data-cite]');
    if (chip) {
      selectCitation(chip.dataset.cite ?? null);
      return;
    }
    const link = target.closest<HTMLAnchorElement>('a');
    if (link) {
      event.preventDefault();
      const href = link.getAttribute('href');
      if (href) void openExternalLink(href);
    }
  };

  return (
    <article className={`answer answer-${answer.status}`} data-testid="answer" data-status={answer.status} data-updates={answer.updates}>
      <header className="answer-header">
        {answer.confidence !== null ? (
          <span className={`confidence confidence-${confidenceLabel(answer.confidence)}`} data-testid="confidence" title={`Confidence trace: ${answer.confidenceTrace.map((v) => v.toFixed(2)).join(' → ')}`}>
            Confidence: {confidenceLabel(answer.confidence)} ({Math.round(answer.confidence * 100)}%)
          </span>
        ) : null}
        {STATUS_TEXT[answer.status] ? <span className="answer-state">{STATUS_TEXT[answer.status]}</span> : null}
      </header>
      <div className="answer-body" data-testid="answer-body" onClick={onClick}>
        {frozen.map((block) => (
          <FrozenBlock key={block.key} html={block.html} />
        ))}
        {tail.map((block) => (
          <div key={block.key} className="md-block md-tail" dangerouslySetInnerHTML={{ __html: block.html }} />
        ))}
        {streaming ? <span className="caret" aria-hidden="true" /> : null}
      </div>
      {answer.error ? (
        <div className="answer-error" role="alert" data-testid="answer-error">
          <span>
            {answer.status === 'incomplete' ? 'The answer stopped before it finished: ' : ''}
            {answer.error.message}
            {answer.error.retryAfterS ? ` You can ask again in ${answer.error.retryAfterS} s.` : ''}
          </span>
          <button type="button" onClick={() => void retry(answer.id)} disabled={busy} data-testid="retry">
            Retry
          </button>
        </div>
      ) : null}
      <CitationList citations={answer.citations} numbers={numbers} selectedId={selectedId} onSelect={selectCitation} />
    </article>
  );
}
