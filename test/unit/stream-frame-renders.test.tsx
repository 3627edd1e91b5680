/**
 * Issue 50, round 8: what React renders for a streamed batch and for a key in the question box
 * while an answer streams. A batch renders the streaming answer's row alone (not the list, its
 * virtualiser, the other answers, the toolbar or the composer); a key renders the composer alone.
 * Which components rendered is read from each commit's fibers (React marks a component that ran
 * with its PerformedWork flag), through the hook React offers developer tools.
 */
import { vi } from 'vitest';

/** Names of the components that ran in each commit since the last `take()`, each with its row's key. */
const commits = vi.hoisted(() => {
  type Fiber = { type: unknown; flags: number; child: Fiber | null; sibling: Fiber | null; memoizedProps: Record<string, unknown> | null };
  const PERFORMED_WORK = 1;
  const seen: Array<{ name: string; rowKey: string | null }> = [];
  // A subtree React did not visit keeps its fibers (and their flags) from an earlier commit: a
  // fiber counts as rendered only if it is not one the previous commit already held.
  let previous = new Set<Fiber>();
  let current = new Set<Fiber>();
  const nameOf = (type: unknown): string | null => (typeof type === 'function' ? (type as { displayName?: string; name: string }).displayName ?? (type as { name: string }).name : null);
  const walk = (fiber: Fiber | null, rowKey: string | null): void => {
    for (let at = fiber; at; at = at.sibling) {
      const name = nameOf(at.type);
      const key = name === 'TurnRow' ? String(at.memoizedProps?.rowKey) : rowKey;
      current.add(at);
      if (name && at.flags & PERFORMED_WORK && !previous.has(at)) seen.push({ name, rowKey: key });
      walk(at.child, key);
    }
  };
  (globalThis as Record<string, unknown>).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject: () => 1,
    checkDCE: () => undefined,
    onScheduleFiberRoot: () => undefined,
    onCommitFiberUnmount: () => undefined,
    onPostCommitFiberRoot: () => undefined,
    onCommitFiberRoot: (_id: number, root: { current: Fiber }) => {
      current = new Set();
      walk(root.current.child, null);
      previous = current;
    },
  };
  return { take: () => seen.splice(0) };
});

import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idleBridge } from '../support/idle-bridge';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { ChatView } from '../../src/renderer/src/features/chat/ChatView';
import { useAppStore, type TurnView } from '../../src/renderer/src/store/app-store';
import { applyAskEvent, emptyAnswer } from '../../src/shared/answer-rules';
import type { AskEvent } from '../../src/shared/ask-event';

const bridge = idleBridge();
const A = 'sig_aaaaaaaaaaaaaaaa';
const citation = { id: A, title: 'A', source_name: 'Source of A', published_at: '2026-11-01T00:00:00Z' };
const answered = (id: string, text: string): TurnView => ({
  id,
  question: `q ${id}`,
  status: 'done',
  stored: true,
  updates: 3,
  answer: { text, status: 'done', error: null, citations: [], confidence: null, confidenceTrace: [], promotion: null },
});
const streaming: TurnView = { id: 'trn_live', question: 'q live', status: 'streaming', stored: true, updates: 1, answer: { text: 'Stores', status: 'streaming', error: null, citations: [], confidence: null, confidenceTrace: [], promotion: null } };

/** A streamed batch as the chat slice applies it: a new `turns` array with the live turn's new answer. */
function apply(events: AskEvent[]): void {
  const turns = useAppStore.getState().turns;
  const live = turns.at(-1) as TurnView;
  let answer = live.answer;
  for (const event of events) answer = applyAskEvent(answer, event);
  act(() => useAppStore.setState({ turns: [...turns.slice(0, -1), { ...live, answer, updates: live.updates + 1 }] }));
}
const text = (value: string): AskEvent => ({ type: 'text', text: value }) as AskEvent;

// jsdom lays nothing out: the list's scroller gets a window's height, so the virtualiser renders rows.
const clientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
const clientWidth = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientWidth');
beforeEach(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 720 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 850 });
  setBridgeForTests(bridge);
  useAppStore.setState({
    turns: [answered('trn_1', 'First answer.'), answered('trn_2', 'Second answer.'), streaming],
    activeConversation: null,
    selectedCitation: null,
    activeStreamId: 'ask_1',
    streamingTurnId: 'trn_live',
    draft: '',
  });
});
afterEach(() => {
  cleanup();
  if (clientHeight) Object.defineProperty(HTMLElement.prototype, 'clientHeight', clientHeight);
  if (clientWidth) Object.defineProperty(HTMLElement.prototype, 'clientWidth', clientWidth);
  setBridgeForTests(null);
  useAppStore.setState({ turns: [], activeStreamId: null, streamingTurnId: null, draft: '' });
});

describe('what a streamed frame renders', () => {
  it('renders the streaming answer row alone: not the list, the other answers or the composer', () => {
    render(<ChatView retryInS={0} />);
    expect(screen.getAllByTestId('question').map((q) => q.textContent)).toEqual(['q trn_1', 'q trn_2', 'q live']);
    commits.take();
    // Text alone: the answer shows it without React (issue 50): nothing renders.
    apply([text(' opened in Pune')]);
    expect(commits.take()).toEqual([]);
    // A citation: the live row renders, nothing outside it.
    apply([{ type: 'citation', citation } as AskEvent, text(` [${A}]`)]);
    const rendered = commits.take();
    expect(rendered.map((r) => r.name)).toContain('TurnRow');
    expect(rendered.filter((r) => r.rowKey !== 'trn_live')).toEqual([]);
  });

  it('a key in the question box while an answer streams renders the composer alone', () => {
    render(<ChatView retryInS={0} />);
    commits.take();
    fireEvent.change(screen.getByTestId('composer-input'), { target: { value: 'H' } });
    expect((screen.getByTestId('composer-input') as HTMLTextAreaElement).value).toBe('H');
    expect(commits.take().map((r) => r.name)).toEqual(['Composer']);
    // A batch after it still renders nothing outside the live row.
    apply([text(' and Delhi')]);
    expect(commits.take().filter((r) => r.rowKey !== 'trn_live')).toEqual([]);
  });
});

describe('what an append renders', () => {
  it('a question asked and answered renders its own row: the answers already in view do not render again', async () => {
    useAppStore.setState({ turns: [answered('trn_1', 'First answer.'), answered('trn_2', 'Second answer.')], activeStreamId: null, streamingTurnId: null });
    render(<ChatView retryInS={0} />);
    await waitFor(() => expect(screen.getAllByTestId('answer')).toHaveLength(2));
    expect(screen.getAllByTestId('regenerate').map((button) => (button as HTMLButtonElement).disabled)).toEqual([false, false]);
    commits.take();
    // Asked, as the chat slice's `ask` and `runStream` do: a new turn at the end, then its stream.
    act(() => useAppStore.setState((s) => ({ draft: '', turns: [...s.turns, { id: 'pending_1', question: 'q new', status: 'waiting', answer: emptyAnswer(), stored: false, updates: 0 }] })));
    act(() => useAppStore.setState({ activeStreamId: 'ask_2', streamingTurnId: 'pending_1' }));
    await waitFor(() => expect(screen.getAllByTestId('answer')).toHaveLength(3));
    // While it streams, the answers above cannot be regenerated (their buttons say so).
    expect(screen.getAllByTestId('regenerate').map((button) => (button as HTMLButtonElement).disabled)).toEqual([true, true]);
    // Answered whole in one batch, and the stream ends.
    act(() =>
      useAppStore.setState((s) => ({
        turns: [...s.turns.slice(0, -1), { ...answered('pending_1', 'The new answer, whole.'), question: 'q new', stored: false }],
        activeStreamId: null,
        streamingTurnId: null,
      })),
    );
    expect(screen.getAllByTestId('answer-body').map((body) => body.textContent?.trim())).toEqual(['First answer.', 'Second answer.', 'The new answer, whole.']);
    expect(screen.getAllByTestId('regenerate').map((button) => (button as HTMLButtonElement).disabled)).toEqual([false, false, false]);
    const rendered = commits.take();
    expect(rendered.filter((r) => r.rowKey === 'pending_1').map((r) => r.name)).toContain('AnswerView');
    // The rows already there: only the buttons that wait for the stream, nothing of their answers.
    expect(rendered.filter((r) => r.rowKey !== null && r.rowKey !== 'pending_1').map((r) => r.name).filter((name) => name !== 'IdleButton')).toEqual([]);
  });
});
