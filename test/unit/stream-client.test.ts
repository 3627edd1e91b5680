/**
 * The renderer's stream client: subscribes before it starts, hands messages over once per
 * frame, and releases its listener when the stream ends however it ends.
 */
import { describe, expect, it } from 'vitest';
import type { ClarityBridge, Result, StreamMessage } from '../../src/shared/bridge-contract';
import { startAskStream } from '../../src/renderer/src/bridge/stream-client';

/** A bridge in memory: records calls, counts listeners, lets the test send messages. */
function memoryBridge(options: { onStart?: (streamId: string, send: (m: StreamMessage) => void) => void; startResult?: Result<null> } = {}) {
  const listeners = new Set<(message: StreamMessage) => void>();
  const calls: string[] = [];
  const send = (message: StreamMessage): void => {
    for (const listener of [...listeners]) listener(message);
  };
  const bridge: ClarityBridge = {
    host: 'browser',
    invoke: () => Promise.resolve({ ok: false, error: { code: 'unknown_method', message: 'not in this test' } }),
    startStream: async (streamId) => {
      calls.push(`start:${listeners.size}`);
      options.onStart?.(streamId, send);
      return options.startResult ?? { ok: true, value: null };
    },
    abortStream: async (streamId) => {
      calls.push('abort');
      send({ streamId, kind: 'error', incomplete: true, error: { code: 'aborted', message: 'Stopped.' } });
    },
    onStreamMessage(callback) {
      calls.push('subscribe');
      listeners.add(callback);
      return () => void listeners.delete(callback);
    },
    onPush: () => () => undefined,
  };
  return { bridge, send, calls, listenerCount: () => listeners.size };
}

/** Frames the test runs by hand. */
function manualFrames() {
  const queue: Array<() => void> = [];
  return { requestFrame: (callback: () => void) => void queue.push(callback), run: () => queue.splice(0).forEach((callback) => callback()), pending: () => queue.length };
}

const text = (streamId: string, value: string, seq: number): StreamMessage => ({ streamId, kind: 'events', seq, events: [{ type: 'text', text: value }] });

describe('stream client', () => {
  it('subscribes before it starts, so a message sent during the start is not missed', async () => {
    const { bridge, calls } = memoryBridge({ onStart: (id, send) => send({ streamId: id, kind: 'open' }) });
    const frames = manualFrames();
    const batches: StreamMessage[][] = [];
    await startAskStream({ bridge, streamId: 'ask_one', args: { question: 'q' }, onBatch: (batch) => batches.push(batch), requestFrame: frames.requestFrame });
    expect(calls).toEqual(['subscribe', 'start:1']);
    frames.run();
    expect(batches).toEqual([[{ streamId: 'ask_one', kind: 'open' }]]);
  });

  it('hands over the messages of one frame as one batch, in order, and ignores other streams', async () => {
    const { bridge, send } = memoryBridge();
    const frames = manualFrames();
    const batches: Array<{ batch: StreamMessage[]; inFrame: boolean }> = [];
    await startAskStream({ bridge, streamId: 'ask_two', args: { question: 'q' }, onBatch: (batch, inFrame) => batches.push({ batch, inFrame }), requestFrame: frames.requestFrame });
    send({ streamId: 'ask_two', kind: 'open' });
    send(text('ask_two', 'Hello', 0));
    send(text('ask_other', 'not ours', 0));
    send(text('ask_two', ' world', 1));
    expect(batches).toEqual([]);
    expect(frames.pending()).toBe(1);
    frames.run();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.inFrame).toBe(true);
    expect(batches[0]!.batch.map((m) => m.kind)).toEqual(['open', 'events', 'events']);
    expect(batches[0]!.batch.every((m) => m.streamId === 'ask_two')).toBe(true);
    send(text('ask_two', '!', 2));
    frames.run();
    expect(batches).toHaveLength(2);
  });

  it('delivers the final message at once with what is pending, and releases its listener after done', async () => {
    const { bridge, send, listenerCount } = memoryBridge();
    const frames = manualFrames();
    const batches: Array<{ batch: StreamMessage[]; inFrame: boolean }> = [];
    await startAskStream({ bridge, streamId: 'ask_three', args: { question: 'q' }, onBatch: (batch, inFrame) => batches.push({ batch, inFrame }), requestFrame: frames.requestFrame });
    expect(listenerCount()).toBe(1);
    send(text('ask_three', 'Answer', 0));
    send({ streamId: 'ask_three', kind: 'done' });
    expect(listenerCount()).toBe(0);
    expect(batches).toEqual([{ batch: [text('ask_three', 'Answer', 0), { streamId: 'ask_three', kind: 'done' }], inFrame: false }]);
    // The frame scheduled before the end finds nothing left to hand over.
    frames.run();
    expect(batches).toHaveLength(1);
  });

  it('releases its listener after an error', async () => {
    const { bridge, send, listenerCount } = memoryBridge();
    const batches: StreamMessage[][] = [];
    await startAskStream({ bridge, streamId: 'ask_four', args: { question: 'q' }, onBatch: (batch) => batches.push(batch), requestFrame: manualFrames().requestFrame });
    send({ streamId: 'ask_four', kind: 'error', incomplete: false, error: { code: 'network', message: 'The service went away.' } });
    expect(listenerCount()).toBe(0);
    expect(batches.at(-1)?.at(-1)).toMatchObject({ kind: 'error', error: { code: 'network' } });
  });

  it('releases its listener after an abort', async () => {
    const { bridge, listenerCount, calls } = memoryBridge();
    const batches: StreamMessage[][] = [];
    await startAskStream({ bridge, streamId: 'ask_five', args: { question: 'q' }, onBatch: (batch) => batches.push(batch), requestFrame: manualFrames().requestFrame });
    await bridge.abortStream('ask_five');
    expect(calls).toContain('abort');
    expect(listenerCount()).toBe(0);
    expect(batches.at(-1)?.at(-1)).toMatchObject({ kind: 'error', error: { code: 'aborted' } });
  });

  it('releases its listener when main refuses to start the stream, and returns why', async () => {
    const { bridge, listenerCount } = memoryBridge({ startResult: { ok: false, error: { code: 'unavailable', message: 'The service is not ready yet.' } } });
    const batches: StreamMessage[][] = [];
    const started = await startAskStream({ bridge, streamId: 'ask_six', args: { question: 'q' }, onBatch: (batch) => batches.push(batch), requestFrame: manualFrames().requestFrame });
    expect(started).toEqual({ ok: false, error: { code: 'unavailable', message: 'The service is not ready yet.' } });
    expect(listenerCount()).toBe(0);
    expect(batches).toEqual([]);
  });
});
