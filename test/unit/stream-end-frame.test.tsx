/**
 * Issue 50, round 9: a stream's last batch arrives at once with its end (the stream client hands
 * it over outside a frame). Its text is shown in the next frame as any batch's, and the answer's
 * end (the finished answer's render, the composer's Ask) is applied only once that frame has been
 * painted, so the last text does not wait behind the work of the end. The chat slice is driven
 * through a bridge that streams what the test sends, frames by fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { useAppStore } from '../../src/renderer/src/store/app-store';
import type { ClarityBridge, StreamMessage } from '../../src/shared/bridge-contract';
import type { AskEvent } from '../../src/shared/ask-event';

let send: (message: StreamMessage) => void = () => undefined;
let streamId = '';
const bridge: ClarityBridge = {
  host: 'electron',
  invoke: (async (method: string) => ({ ok: true, value: method === 'conversations.list' ? [] : null })) as ClarityBridge['invoke'],
  startStream: async (id) => {
    streamId = id;
    return { ok: true, value: null };
  },
  abortStream: async () => undefined,
  onStreamMessage: (callback) => {
    send = callback;
    return () => undefined;
  },
  onPush: () => () => undefined,
};
const text = (value: string): AskEvent => ({ type: 'text', text: value }) as AskEvent;
const events = (seq: number, ...list: AskEvent[]): StreamMessage => ({ streamId, kind: 'events', seq, events: list });
const answer = () => useAppStore.getState().turns.at(-1)!.answer!;
/** A macrotask: the message posted after a frame's paint has been delivered. */
const nextTask = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['requestAnimationFrame', 'cancelAnimationFrame', 'setTimeout', 'clearTimeout'] });
  setBridgeForTests(bridge);
  useAppStore.setState({ turns: [], activeConversation: { id: 'cnv_1', title: 'Growth' } as never, activeStreamId: null, streamingTurnId: null, draft: 'Growth in Pune?' });
});
afterEach(() => {
  vi.useRealTimers();
  setBridgeForTests(null);
  useAppStore.setState({ turns: [], activeConversation: null, activeStreamId: null, streamingTurnId: null, draft: '' });
});

describe('the end of a stream', () => {
  it('shows the last text in a frame of its own, then ends the answer after that frame is painted', async () => {
    expect(document.visibilityState).toBe('visible');
    await useAppStore.getState().ask();
    send({ streamId, kind: 'open' });
    send(events(1, text('Stores opened')));
    vi.advanceTimersToNextFrame();
    expect(answer().text).toBe('Stores opened');
    // The last text and the end arrive together.
    send(events(2, text(' in Pune.')));
    send({ streamId, kind: 'done' });
    expect(answer().text).toBe('Stores opened');
    vi.advanceTimersToNextFrame();
    expect(answer()).toMatchObject({ text: 'Stores opened in Pune.', status: 'streaming' });
    expect(useAppStore.getState().activeStreamId).not.toBeNull();
    await vi.waitFor(async () => {
      await nextTask();
      expect(answer().status).toBe('done');
    });
    expect(answer().text).toBe('Stores opened in Pune.');
    expect(useAppStore.getState().activeStreamId).toBeNull();
  });

  it('ends the answer even when no frame comes (a window hidden meanwhile), its text first', async () => {
    await useAppStore.getState().ask();
    send({ streamId, kind: 'open' });
    send(events(1, text('Stores opened')));
    send({ streamId, kind: 'done' });
    vi.advanceTimersByTime(300);
    expect(answer()).toMatchObject({ text: 'Stores opened', status: 'done' });
    expect(useAppStore.getState().activeStreamId).toBeNull();
  });
});
