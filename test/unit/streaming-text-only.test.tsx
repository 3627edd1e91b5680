/**
 * Issue 50: a streamed batch that only adds text does not render the turn in React; the answer
 * shows the store's text itself. What the reader sees must not change: every streamed word on the
 * page as it arrives, chips numbered and listed as they appear, never an older text after a newer.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { useRef } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idleBridge } from '../support/idle-bridge';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { AnswerView } from '../../src/renderer/src/features/chat/AnswerView';
import { keepWhileOnlyTextGrew } from '../../src/renderer/src/features/chat/ChatView';
import { useAppStore, type TurnEntry, type TurnView } from '../../src/renderer/src/store/app-store';
import { applyAskEvent } from '../../src/shared/answer-rules';
import type { AskEvent } from '../../src/shared/ask-event';

const A = 'sig_aaaaaaaaaaaaaaaa';
const B = 'sig_bbbbbbbbbbbbbbbb';
const bridge = idleBridge();
const citation = (id: string, title: string) => ({ id, title, source_name: `Source of ${title}`, published_at: '2026-11-01T00:00:00Z' });

function streamingTurn(text = ''): TurnView {
  return { id: 'trn_live', question: 'q', status: 'streaming', stored: true, updates: 1, answer: { text, status: 'streaming', error: null, citations: [], confidence: null, confidenceTrace: [], promotion: null } };
}

/** The turn's row as the chat renders it (TurnRow): its turn kept while only text grew. */
function Row() {
  const kept = useRef<TurnEntry | undefined>(undefined);
  const turn = useAppStore((s) => (kept.current = keepWhileOnlyTextGrew(kept.current, s.turns[0])));
  return turn?.answer ? <AnswerView turn={turn as TurnView} /> : null;
}

/** The store's turn after `events`, as the chat slice applies a streamed batch. */
function apply(events: AskEvent[]): TurnView {
  const turn = useAppStore.getState().turns[0] as TurnView;
  let answer = turn.answer;
  for (const event of events) answer = applyAskEvent(answer, event);
  const next = { ...turn, status: answer.status, answer, updates: turn.updates + 1 };
  act(() => useAppStore.setState({ turns: [next] }));
  return next;
}
const text = (value: string): AskEvent => ({ type: 'text', text: value }) as AskEvent;

beforeEach(() => {
  setBridgeForTests(bridge);
  useAppStore.setState({ turns: [streamingTurn()], selectedCitation: null, activeStreamId: 'ask_1', streamingTurnId: 'trn_live' });
});
afterEach(() => {
  cleanup();
  setBridgeForTests(null);
  useAppStore.setState({ turns: [], activeStreamId: null, streamingTurnId: null });
});

describe('keepWhileOnlyTextGrew', () => {
  it('keeps the turn while a streaming answer only gains text, and gives the new one for anything else', () => {
    const kept: TurnEntry = streamingTurn('Growth ');
    const grown = { ...kept, updates: 2, answer: { ...kept.answer!, text: 'Growth is fast' } };
    expect(keepWhileOnlyTextGrew(kept, grown)).toBe(kept);
    const cited = { ...grown, answer: { ...grown.answer, citations: [citation(A, 'A')] } };
    expect(keepWhileOnlyTextGrew(kept, cited)).toBe(cited);
    const done = { ...grown, status: 'done' as const, answer: { ...grown.answer, status: 'done' as const } };
    expect(keepWhileOnlyTextGrew(kept, done)).toBe(done);
    const replaced = { ...kept, answer: { ...kept.answer!, text: 'Other' } };
    expect(keepWhileOnlyTextGrew(kept, replaced)).toBe(replaced);
    const renamed = { ...grown, id: 'trn_other' };
    expect(keepWhileOnlyTextGrew(kept, renamed)).toBe(renamed);
    // The answer's flag reads the text for this heading.
    const disagree = { ...kept, answer: { ...kept.answer!, text: 'Growth \n\n## Sources disagree\n' } };
    expect(keepWhileOnlyTextGrew(kept, disagree)).toBe(disagree);
    const confidence = { ...grown, answer: { ...grown.answer, confidence: 0.5, confidenceTrace: [0.5] } };
    expect(keepWhileOnlyTextGrew(kept, confidence)).toBe(confidence);
  });

  it('keeps it too for what a streaming answer does not show: claim support, a citation’s details, a promotion (round 9)', () => {
    const kept: TurnEntry = { ...streamingTurn('Growth '), answer: { ...streamingTurn().answer!, text: 'Growth ', citations: [citation(A, 'A')] } };
    const supported = { ...kept, updates: 2, answer: { ...kept.answer!, text: 'Growth is fast', support: [{ sentence: 'Growth', citation: A, start: 0, end: 6 }] } };
    expect(keepWhileOnlyTextGrew(kept, supported)).toBe(kept);
    const detailed = { ...supported, answer: { ...supported.answer, citations: [{ ...citation(A, 'A'), detail: { body: 'Body' } }] } } as unknown as TurnEntry;
    expect(keepWhileOnlyTextGrew(kept, detailed)).toBe(kept);
    const promoted = { ...kept, answer: { ...kept.answer!, promotion: { topic: 'Growth', preset: 'standard' } } };
    expect(keepWhileOnlyTextGrew(kept, promoted)).toBe(kept);
    // What the sources list shows of a citation renders: a new one, or a title that changed.
    const another = { ...kept, answer: { ...kept.answer!, citations: [citation(A, 'A'), citation(B, 'B')] } };
    expect(keepWhileOnlyTextGrew(kept, another)).toBe(another);
    const retitled = { ...kept, answer: { ...kept.answer!, citations: [citation(A, 'A again')] } };
    expect(keepWhileOnlyTextGrew(kept, retitled)).toBe(retitled);
    const removed = { ...kept, answer: { ...kept.answer!, removedClaims: [{ text: 'Growth', reason: 'unsupported' }] } };
    expect(keepWhileOnlyTextGrew(kept, removed)).toBe(removed);
  });
});

describe('a streaming answer shown from the store', () => {
  it('shows each batch of text without a new turn handed in, and chips with their numbers in the sources list', () => {
    render(<Row />);
    apply([text('## Growth\n\n- **Nov** — Stores opened')]);
    const body = screen.getByTestId('answer-body');
    expect(body.querySelector('h2')?.textContent).toBe('Growth');
    expect(body.querySelector('li')?.textContent).toBe('Nov — Stores opened');
    apply([text(' in Pune'), text(' and Delhi')]);
    expect(body.querySelector('li')?.textContent).toBe('Nov — Stores opened in Pune and Delhi');
    // A citation arrives with its marker: the chip is numbered and the sources list shows it.
    apply([{ type: 'citation', citation: citation(B, 'B') } as AskEvent, text(` [${B}]\n- **Oct** — Prices up`)]);
    expect(screen.getAllByTestId('citation-chip').map((chip) => chip.textContent)).toEqual(['1']);
    const entries = screen.getAllByTestId('citation-entry');
    expect(entries.map((entry) => [entry.dataset.cite, entry.dataset.number])).toEqual([[B, '1']]);
    expect([...body.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['Nov — Stores opened in Pune and Delhi 1', 'Oct — Prices up']);
  });

  it('a batch of claim support or a citation’s details renders nothing, its text still shows, and the end shows all (round 9)', () => {
    render(<Row />);
    apply([{ type: 'citation', citation: citation(A, 'A') } as AskEvent, text(`Stores opened [${A}]`)]);
    const article = screen.getByTestId('answer');
    const rendered = article.dataset.updates;
    apply([{ type: 'claim_supported', sentence: 'Stores opened', citation: A, start: 0, end: 13 } as AskEvent, text(' in Pune')]);
    apply([{ type: 'citation_detail', id: A, detail: { body: 'Stores opened in Pune.' } } as unknown as AskEvent, text(' and Delhi')]);
    expect(article.dataset.updates).toBe(rendered);
    expect(screen.getByTestId('answer-body').textContent?.trim()).toBe('Stores opened 1 in Pune and Delhi');
    const last = useAppStore.getState().turns[0] as TurnView;
    act(() => useAppStore.setState({ turns: [{ ...last, status: 'done', updates: last.updates + 1, answer: { ...last.answer, status: 'done' } }] }));
    expect(screen.getByTestId('answer').dataset.status).toBe('done');
    expect(Number(screen.getByTestId('answer').dataset.updates)).toBe(last.updates + 1);
    expect(screen.getByTestId('answer-body').textContent?.trim()).toBe('Stores opened 1 in Pune and Delhi');
    expect(screen.getAllByTestId('citation-entry').map((entry) => entry.dataset.number)).toEqual(['1']);
  });

  it('a render with the turn it was handed (older text) never shows less than the page did', () => {
    render(<Row />);
    apply([text('Stores opened in Pune')]);
    apply([text(' and in Delhi')]);
    const body = screen.getByTestId('answer-body');
    expect(body.textContent).toContain('Stores opened in Pune and in Delhi');
    // Something else the answer reads changes: it renders with the turn its row kept (two batches old).
    act(() => useAppStore.setState({ activeStreamId: null }));
    expect(body.textContent).toContain('Stores opened in Pune and in Delhi');
    act(() => useAppStore.setState({ activeStreamId: 'ask_1' }));
    apply([text('.')]);
    expect(body.textContent).toContain('Stores opened in Pune and in Delhi.');
  });

  it('shows the finished text once the answer ends', () => {
    render(<Row />);
    apply([text('Stores opened in Pune')]);
    const last = apply([text('. Prices rose [' + A + '].'), { type: 'citation', citation: citation(A, 'A') } as AskEvent]);
    const done: TurnView = { ...last, status: 'done', answer: { ...last.answer, status: 'done' } };
    act(() => useAppStore.setState({ turns: [done] }));
    expect(screen.getByTestId('answer').dataset.status).toBe('done');
    expect(screen.getByTestId('answer-body').textContent).toContain('Stores opened in Pune. Prices rose 1.');
    expect(screen.getAllByTestId('citation-entry').map((entry) => entry.dataset.number)).toEqual(['1']);
  });
});
