/**
 * Issue 50, round 9: what a store write re-runs in the chat. Every write (each key typed in the
 * question box, each streamed batch) runs every subscribed selector, and the slice applies a batch
 * to the turns. In a conversation of 1,000 turns, a key reads no turn at all but those of the rows
 * on screen, and a batch reads the streaming turn besides: not every turn once per selector, as
 * the list's keys (a map over all turns) and the side panel's search did. Reads are counted on the
 * turn objects themselves (proxies), so any selector or slice code that walks the turns is caught.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idleBridge } from '../support/idle-bridge';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { ChatView } from '../../src/renderer/src/features/chat/ChatView';
import { useAppStore, type TurnEntry } from '../../src/renderer/src/store/app-store';
import type { AskEvent } from '../../src/shared/ask-event';

const COUNT = 1_000;
const bridge = idleBridge();
/** Indexes of the turns read since counting began. */
const reads = new Set<number>();
let counting = false;

/** A turn that notes each read of it (a property, a spread) while counting. */
function watched(turn: TurnEntry, index: number): TurnEntry {
  const note = (): void => {
    if (counting) reads.add(index);
  };
  return new Proxy(turn, {
    get(target, key, receiver) {
      note();
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      note();
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      note();
      return Reflect.ownKeys(target);
    },
  });
}

const done = (i: number): TurnEntry => ({
  id: `trn_${i}`,
  question: `q ${i}`,
  status: 'done',
  stored: true,
  updates: 3,
  answer: { text: `Answer ${i}.`, status: 'done', error: null, citations: [], confidence: null, confidenceTrace: [], promotion: null },
});
const live = (): TurnEntry => ({ id: 'trn_live', question: 'q live', status: 'streaming', stored: true, updates: 1, answer: { text: 'Stores', status: 'streaming', error: null, citations: [], confidence: null, confidenceTrace: [], promotion: null } });

/** The turns whose rows the list renders, by index (their questions are on the page). */
function renderedRows(): Set<number> {
  const questions = screen.getAllByTestId('question').map((q) => q.textContent ?? '');
  return new Set(questions.map((q) => (q === 'q live' ? COUNT - 1 : Number(q.slice(2)))));
}

/** Reads made by `work`, by turn index. */
function readsOf(work: () => void): Set<number> {
  reads.clear();
  counting = true;
  try {
    work();
  } finally {
    counting = false;
  }
  return new Set(reads);
}

// jsdom lays nothing out: the list's scroller gets a window's height, so the virtualiser renders rows.
const clientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
const clientWidth = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientWidth');
beforeEach(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 720 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 850 });
  setBridgeForTests(bridge);
  const turns = Array.from({ length: COUNT }, (_, i) => watched(i === COUNT - 1 ? live() : done(i), i));
  // No conversation head: the slice's window (which drops answers off screen) stays out of this.
  useAppStore.setState({ turns, activeConversation: null, selectedCitation: null, activeStreamId: 'ask_1', streamingTurnId: 'trn_live', draft: '' });
});
afterEach(() => {
  cleanup();
  if (clientHeight) Object.defineProperty(HTMLElement.prototype, 'clientHeight', clientHeight);
  if (clientWidth) Object.defineProperty(HTMLElement.prototype, 'clientWidth', clientWidth);
  setBridgeForTests(null);
  useAppStore.setState({ turns: [], activeStreamId: null, streamingTurnId: null, draft: '' });
});

describe('what a store write reads of a long conversation', () => {
  it('a key typed reads only the turns of the rows on screen', () => {
    render(<ChatView retryInS={0} />);
    const rows = renderedRows();
    expect(rows.size).toBeGreaterThan(0);
    expect(rows.size).toBeLessThan(50);
    const read = readsOf(() => fireEvent.change(screen.getByTestId('composer-input'), { target: { value: 'Tier-2 cities' } }));
    expect((screen.getByTestId('composer-input') as HTMLTextAreaElement).value).toBe('Tier-2 cities');
    expect([...read].filter((i) => !rows.has(i))).toEqual([]);
  });

  it('a streamed batch reads the streaming turn and the rows on screen, and the list keeps its rows', () => {
    render(<ChatView retryInS={0} />);
    const rows = renderedRows();
    const events: AskEvent[] = [{ type: 'text', text: ' opened in Pune' } as AskEvent];
    const read = readsOf(() => act(() => useAppStore.getState().applyStream('trn_live', [{ streamId: 'ask_1', kind: 'events', seq: 1, events }])));
    expect(useAppStore.getState().turns.at(-1)!.answer!.text).toBe('Stores opened in Pune');
    expect([...read].filter((i) => !rows.has(i) && i !== COUNT - 1)).toEqual([]);
    // The same rows after the batch: the list did not take it for a new list of turns.
    expect(renderedRows()).toEqual(rows);
  });
});
