import { memo, useCallback, useState, type ButtonHTMLAttributes, type FocusEvent, type MouseEvent } from 'react';
import { createPortal } from 'react-dom';
import { formatCitationDate, toMarkdownWithFootnotes, toPlainTextWithSources } from '../../../../shared/cite-format';
import { useRetryAfterSeconds, withoutRetryHint } from '../../app/use-countdown';
import { useDisplay } from '../../app/use-display';
import { confidenceLabel } from '../../../../shared/confidence';
import { formatDate, formatNumber } from '../../../../shared/format';
import { useAppStore, type TurnView } from '../../store/app-store';
import { clarity } from '../../bridge/clarity';
import { CitationList } from '../citations/CitationList';
import { CITATION_MARKER } from '../../../../shared/cite-format';
import { ExportMenu } from '../library/ExportMenu';
import { SaveToLibrary } from '../library/SaveToLibrary';
import type { Result } from '../../../../shared/bridge-contract';
import { handleCitationClick } from '../citations/citation-clicks';
import { chipOccurrence } from '../citations/sentence-support';
import { useLiveAnswerMarkdown } from './StreamingMarkdown';

const STATUS_TEXT: Record<TurnView['answer']['status'], string> = {
  waiting: 'Waiting for the service…',
  streaming: 'Answering…',
  done: '',
  incomplete: 'Incomplete answer',
  failed: 'No answer',
  cancelled: 'Stopped — partial answer',
};

/** The citation list re-renders when its citations, numbers or selection change, not per streamed batch. */
const Citations = memo(CitationList);

/**
 * Retry and Regenerate wait while any answer streams. The button reads that itself (issue 50,
 * round 9): a question asked, and its answer's end, render these buttons in the answers in view,
 * not each of those answers again.
 */
function IdleButton({ alsoDisabled, ...button }: ButtonHTMLAttributes<HTMLButtonElement> & { alsoDisabled: boolean }) {
  const busy = useAppStore((s) => s.activeStreamId !== null);
  return <button type="button" {...button} disabled={busy || alsoDisabled} />;
}

/** The chip preview's width (px): about 45 characters a line. */
const PREVIEW_WIDTH = 340;
const PREVIEW_ROOM = 190;

/** Where the preview goes: under the chip, starting at it, kept inside the window (above the chip near the bottom). */
function previewPlace(chip: DOMRect): { left: number; top?: number; bottom?: number } {
  const width = Math.min(PREVIEW_WIDTH, window.innerWidth - 16);
  const left = Math.max(8, Math.min(chip.left, window.innerWidth - width - 8));
  return chip.bottom + PREVIEW_ROOM > window.innerHeight ? { left, bottom: window.innerHeight - chip.top + 6 } : { left, top: chip.bottom + 6 };
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Text as compared for "is this sentence still in the answer": no markers, no emphasis, single spaces. */
function comparable(text: string): string {
  return text.replace(/\s?\[sig_[^\]\s]{1,40}\]/g, '').replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim();
}

/** A claim the service reported as unsupported but kept, marked (its "mark unsupported" setting). */
function isMarked(answerText: string, claimText: string): boolean {
  const claim = comparable(claimText);
  return claim.length > 0 && comparable(answerText).includes(claim);
}

function ClaimList({ claims }: { claims: Array<{ text: string; reason: string }> }) {
  return (
    <ul>
      {claims.map((claim, index) => (
        <li key={index} data-testid="removed-claim">
          <q>{claim.text.replace(CITATION_MARKER, '').replace(/[*_`]/g, '').trim()}</q> — <span className="hint">{claim.reason}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * What claim verification did (issue 28): which composer wrote the answer, a model's failure
 * and the fallback, and the sentences removed because their cited signals do not state them
 * (or, with "mark unsupported" on, kept in the text behind a ⚠ mark and listed here too).
 */
function Verification({ answer }: { answer: TurnView['answer'] }) {
  const { composer, removedClaims } = answer;
  if (!composer && !removedClaims?.length) return null;
  const marked = (removedClaims ?? []).filter((claim) => isMarked(answer.text, claim.text));
  const removed = (removedClaims ?? []).filter((claim) => !marked.includes(claim));
  const count = (n: number): string => `${n} sentence${n === 1 ? '' : 's'}`;
  return (
    <div className="answer-verification">
      {composer?.fallbackReason ? (
        <p className="composer-fallback" role="status" data-testid="composer-fallback">
          {composer.model ? `The model ${composer.model} could not answer` : 'The model could not answer'} ({composer.fallbackReason}); this answer was composed from the signals instead.
        </p>
      ) : composer ? (
        <p className="hint composer-name" data-testid="composer-name">
          {composer.backend === 'model'
            ? `Written by the model ${composer.model ?? ''}${composer.local === false ? ' (not on the service’s machine: the question and the cited signals were sent to it)' : ''}; every claim checked against its citations.`
            : 'Composed from the signals (no model); every claim checked against its citations.'}
        </p>
      ) : null}
      {removed.length ? (
        <details className="removed-claims" data-testid="removed-claims">
          <summary>Removed: not supported by the cited signals ({count(removed.length)})</summary>
          <ClaimList claims={removed} />
        </details>
      ) : null}
      {marked.length ? (
        <details className="removed-claims marked-claims" data-testid="marked-claims">
          <summary>Marked ⚠ in the answer: not supported by the cited signals ({count(marked.length)})</summary>
          <ClaimList claims={marked} />
        </details>
      ) : null}
    </div>
  );
}

const MEASURE_NAMES: Record<string, string> = { app_rank: 'app rank', store_count: 'store count', revenue_cr: 'revenue (₹ crore)', gov_growth_yoy_pct: 'order-value growth (%)' };

/** A conflict's day ("2026-11-21") or period ("Q2 FY27") as the analyst reads it. */
const asOfText = (asOf: string): string => (/^\d{4}-\d{2}-\d{2}$/.test(asOf) ? formatDate(`${asOf}T00:00:00Z`, 'UTC') : asOf);

/**
 * Conflicting figures (issue 30): the service said two sources disagree on a figure; the
 * answer carries a visible flag with each figure and its source. A service without the
 * `conflicts` extension still gets the flag when its text has a "Sources disagree" section.
 */
function ConflictFlag({ answer }: { answer: TurnView['answer'] }) {
  const conflicts = answer.conflicts ?? [];
  const inText = /(^|\n)#{2,4} Sources disagree\b/.test(answer.text);
  if (conflicts.length === 0 && !inText) return null;
  return (
    <details className="conflict-flag" data-testid="conflict-flag" open={conflicts.length > 0 && conflicts.length <= 2}>
      <summary>
        Sources disagree{conflicts.length > 0 ? ` on ${conflicts.length} figure${conflicts.length === 1 ? '' : 's'}` : ''}: the figures below are not the same, read the note before using one
      </summary>
      {conflicts.length > 0 ? (
        <ul>
          {conflicts.map((conflict, index) => (
            <li key={index} data-testid="conflict">
              <strong>
                {conflict.entity} — {MEASURE_NAMES[conflict.measure] ?? conflict.measure.replace(/_/g, ' ')}
              </strong>
              {conflict.place ? `, ${conflict.place}` : ''}
              {conflict.asOf ? `, ${asOfText(conflict.asOf)}` : ''}:{' '}
              {conflict.figures.map((figure, at) => (
                <span key={figure.citation} className="conflict-figure" data-testid="conflict-figure">
                  {at > 0 ? ' vs ' : ''}
                  {conflict.measure === 'app_rank' ? `#${figure.value}` : formatNumber(figure.value)} ({figure.source})
                </span>
              ))}
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint">The answer names the sources and their figures under “Sources disagree”.</p>
      )}
    </details>
  );
}

/** A streaming answer's text as the store holds it now (searched from the end: the streaming turn is usually last); null once it ended. */
function currentText(turnId: string): string | null {
  const { turns } = useAppStore.getState();
  for (let i = turns.length - 1; i >= 0; i -= 1) {
    if (turns[i]!.id !== turnId) continue;
    const answer = turns[i]!.answer;
    return answer && (answer.status === 'streaming' || answer.status === 'waiting') ? answer.text : null;
  }
  return null;
}

/** Called when the store's turns change (a streamed batch): the answer's text is shown from there. */
const onTurnsChange = (listener: () => void): (() => void) =>
  useAppStore.subscribe((state, previous) => {
    if (state.turns !== previous.turns) listener();
  });

export function AnswerView({ turn }: { turn: TurnView }) {
  const { answer } = turn;
  const streaming = answer.status === 'waiting' || answer.status === 'streaming';
  const { markdown, host } = useLiveAnswerMarkdown(turn.id, answer.text, streaming, currentText, onTurnsChange);
  const numbers = markdown.numbering.snapshot();
  const selected = useAppStore((s) => (s.selectedCitation?.turnId === turn.id ? s.selectedCitation.citationId : null));
  const selectCitation = useAppStore((s) => s.selectCitation);
  const retry = useAppStore((s) => s.retry);
  const [copied, setCopied] = useState<string | null>(null);
  const conversationId = useAppStore((s) => s.activeConversation?.id ?? null);
  const stored = turn.id.startsWith('trn_') && conversationId !== null;
  const savedToLibrary = (result: Result<unknown>, team: string | null): void => {
    setCopied(result.ok ? (team ? `Saved to “${team}”` : 'Saved to the library') : result.error.message);
    setTimeout(() => setCopied(null), 3_000);
  };
  const [selectionTopic, setSelectionTopic] = useState<{ text: string; x: number; y: number } | null>(null);
  const startResearch = useAppStore((s) => s.startResearch);
  const setView = useAppStore((s) => s.setView);
  const research = async (topic: string, preset = 'standard'): Promise<void> => {
    setSelectionTopic(null);
    if (await startResearch(topic, preset, 'wait')) setView('research');
  };
  /** A passage selected in the answer can become a research topic. */
  const onMouseUp = (): void => {
    const selection = window.getSelection();
    const text = selection?.toString().replace(CITATION_MARKER, '').replace(/\s+/g, ' ').trim() ?? '';
    if (!selection || selection.rangeCount === 0 || text.length < 3 || text.length > 300) {
      setSelectionTopic(null);
      return;
    }
    const box = selection.getRangeAt(0).getBoundingClientRect();
    setSelectionTopic({ text, x: box.left, y: box.bottom + 6 });
  };
  const [preview, setPreview] = useState<{ id: string; left: number; top?: number; bottom?: number } | null>(null);
  const display = useDisplay();
  const waitS = useRetryAfterSeconds();
  const rateLimited = answer.error?.code === 'rate_limited' || (answer.error?.retryAfterS ?? 0) > 0;

  const select = useCallback((citationId: string): void => selectCitation({ turnId: turn.id, citationId }), [selectCitation, turn.id]);

  // A chip in the text says which of its signal's chips it is: the panel shows that sentence's span.
  const onClick = (event: MouseEvent<HTMLDivElement>): void => {
    const body = event.currentTarget;
    handleCitationClick(event, (citationId, chip) => selectCitation({ turnId: turn.id, citationId, occurrence: chipOccurrence(chip, body) }));
  };
  // A chip previews its signal when the pointer is over it or it has the keyboard focus.
  const onHover = (event: MouseEvent<HTMLDivElement> | FocusEvent<HTMLDivElement>): void => {
    const chip = (event.target as HTMLElement).closest<HTMLElement>('[data-cite]');
    if (!chip?.dataset.cite) {
      if (preview) setPreview(null);
      return;
    }
    if (preview?.id === chip.dataset.cite) return;
    setPreview({ id: chip.dataset.cite, ...previewPlace(chip.getBoundingClientRect()) });
  };
  const previewed = preview ? answer.citations.find((c) => c.id === preview.id) : undefined;

  const copy = async (kind: 'markdown' | 'text'): Promise<void> => {
    const text = kind === 'markdown' ? toMarkdownWithFootnotes(answer.text, answer.citations, { zone: display.zone }) : toPlainTextWithSources(answer.text, answer.citations, { zone: display.zone });
    setCopied((await copyText(text)) ? (kind === 'markdown' ? 'Copied as markdown' : 'Copied as text') : 'Copy failed: the clipboard is not available');
    setTimeout(() => setCopied(null), 2_500);
  };

  return (
    <article className={`answer answer-${answer.status}`} data-testid="answer" data-status={answer.status} data-updates={turn.updates} data-turn={turn.id}>
      <header className="answer-header">
        {answer.confidence !== null ? (
          <span className={`confidence confidence-${confidenceLabel(answer.confidence)}`} data-testid="confidence">
            Confidence: {confidenceLabel(answer.confidence)} ({Math.round(answer.confidence * 100)}%)
            {answer.confidenceTrace.length > 1 ? (
              <span className="confidence-trace" data-testid="confidence-trace" title="How confidence moved while the answer was written">
                {answer.confidenceTrace.map((value, i) => (
                  <span key={i} className="trace-bar" style={{ height: `${Math.max(2, Math.round(value * 14))}px` }} />
                ))}
              </span>
            ) : null}
          </span>
        ) : null}
        {STATUS_TEXT[answer.status] ? <span className="answer-state">{STATUS_TEXT[answer.status]}</span> : null}
        <span className="spacer" />
        {!streaming && answer.text ? (
          <span className="answer-actions">
            <button type="button" className="ghost" onClick={() => void copy('markdown')} data-testid="copy-markdown">
              Copy markdown
            </button>
            <button type="button" className="ghost" onClick={() => void copy('text')} data-testid="copy-text">
              Copy text
            </button>
            {stored ? (
              <>
                <SaveToLibrary label="Save" testId="save-answer" save={(location) => clarity().invoke('library.saveAnswer', { conversationId: conversationId!, turnId: turn.id, location })} onResult={savedToLibrary} />
                <ExportMenu source={{ kind: 'answer', conversationId: conversationId!, turnId: turn.id }} />
              </>
            ) : null}
            {copied ? <span className="hint" role="status">{copied}</span> : null}
          </span>
        ) : null}
      </header>
      <div className="answer-body" data-testid="answer-body" role="presentation" onClick={onClick} onMouseOver={onHover} onFocus={onHover} onMouseLeave={() => setPreview(null)} onBlur={() => setPreview(null)} onMouseUp={onMouseUp}>
        <div ref={host} className="md-blocks" />
        {streaming ? <span className="caret" aria-hidden="true" /> : null}
      </div>
      <ConflictFlag answer={answer} />
      <Verification answer={answer} />
      {/* Portals: the virtual list moves rows with transforms, which would carry fixed elements along. */}
      {selectionTopic && !streaming ? createPortal(
        <button type="button" className="selection-research" style={{ left: selectionTopic.x, top: selectionTopic.y }} onMouseDown={(event) => event.preventDefault()} onClick={() => void research(selectionTopic.text)} data-testid="research-selection">
          Research “{selectionTopic.text.length > 40 ? `${selectionTopic.text.slice(0, 37)}…` : selectionTopic.text}”
        </button>,
        document.body,
      ) : null}
      {previewed && preview
        ? createPortal(
            <div className="chip-preview" role="tooltip" data-testid="chip-preview" style={{ left: preview.left, top: preview.top, bottom: preview.bottom, width: `min(${PREVIEW_WIDTH}px, calc(100vw - 16px))` }}>
              <strong>{previewed.title ?? previewed.id}</strong>
              <span>
                {previewed.source_name ?? previewed.source_id} · <time dateTime={previewed.published_at}>{formatCitationDate(previewed.published_at, display.zone)}</time>
              </span>
              {previewed.snippet ? <span className="hint">{previewed.snippet}</span> : null}
            </div>,
            document.body,
          )
        : null}
      {answer.error ? (
        <div className="answer-error" role="alert" data-testid="answer-error">
          <span>
            {answer.status === 'incomplete' ? 'The answer stopped before it finished: ' : ''}
            {rateLimited ? withoutRetryHint(answer.error.message) : answer.error.message}
            {rateLimited ? <span data-testid="answer-retry-countdown">{waitS > 0 ? ` You can ask again in ${waitS} s.` : ' You can ask again now.'}</span> : null}
          </span>
          <IdleButton onClick={() => void retry(turn.id)} alsoDisabled={rateLimited && waitS > 0} data-testid="retry">
            {rateLimited && waitS > 0 ? `Retry in ${waitS} s` : 'Retry'}
          </IdleButton>
        </div>
      ) : null}
      {answer.status === 'done' ? (
        <IdleButton className="secondary regenerate" onClick={() => void retry(turn.id)} alsoDisabled={waitS > 0} title="Ask the same question again for a fresh answer" data-testid="regenerate">
          Regenerate answer
        </IdleButton>
      ) : null}
      {answer.promotion && !streaming ? (
        <div className="promotion" data-testid="research-promotion">
          <span>
            A research report could go deeper on <strong>{answer.promotion.topic}</strong>
            {answer.promotion.reason ? ` — ${answer.promotion.reason}` : '.'}
          </span>
          <button type="button" onClick={() => void research(answer.promotion!.topic, answer.promotion!.preset)} data-testid="run-promoted-research">
            Run research
          </button>
        </div>
      ) : null}
      <Citations citations={answer.citations} numbers={numbers} selectedId={selected} onSelect={select} />
    </article>
  );
}
