/**
 * The IPC boundary's logic, run everywhere (the Electron spec runs it for real where a binary
 * exists): which senders main trusts, and exactly what the preload exposes.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isTrustedSender, originOf } from '../../src/main/transports/ipc-sender';
import { createPreloadBridge, type IpcRendererLike } from '../../src/preload/bridge';
import { IPC_CHANNELS } from '../../src/shared/bridge-channels';

describe('IPC sender validation', () => {
  const mainFrame = { url: 'clarity://app/index.html' };
  const webContents = { id: 1 };
  const window = { webContents, mainFrame };

  // Identity matters here (the same frame object), so no it.each: it copies its table.
  it('trusts our main frame only', () => {
    expect(isTrustedSender({ sender: webContents, senderFrame: mainFrame }, window, 'clarity://app')).toBe(true);
    expect(isTrustedSender({ sender: { id: 2 }, senderFrame: mainFrame }, window, 'clarity://app')).toBe(false);
    expect(isTrustedSender({ sender: webContents, senderFrame: { url: 'clarity://app/frame.html' } }, window, 'clarity://app')).toBe(false);
    expect(isTrustedSender({ sender: webContents, senderFrame: null }, window, 'clarity://app')).toBe(false);
  });

  it('refuses our main frame once it has navigated to another origin', () => {
    const navigated = { url: 'https://evil.example/' };
    expect(isTrustedSender({ sender: webContents, senderFrame: navigated }, { webContents, mainFrame: navigated }, 'clarity://app')).toBe(false);
  });

  it('compares custom-scheme origins (URL.origin is "null" for them)', () => {
    expect(new URL('clarity://app/index.html').origin).toBe('null');
    expect(originOf('clarity://app/index.html')).toBe('clarity://app');
    expect(originOf('clarity://evil/index.html')).toBe('clarity://evil');
    expect(originOf('not a url')).toBeNull();
  });

  it('refuses everything when the window is gone', () => {
    expect(isTrustedSender({ sender: webContents, senderFrame: mainFrame }, null, 'clarity://app')).toBe(false);
  });
});

describe('the preload bridge', () => {
  class FakeIpcRenderer extends EventEmitter {
    invoked: unknown[][] = [];
    sent: unknown[][] = [];
    invoke(...args: unknown[]): Promise<unknown> {
      this.invoked.push(args);
      return Promise.resolve({ ok: true, value: null });
    }
    send(...args: unknown[]): void {
      this.sent.push(args);
    }
  }

  it('exposes exactly the contract, and nothing of ipcRenderer', () => {
    const bridge = createPreloadBridge(new FakeIpcRenderer() as unknown as IpcRendererLike);
    expect(Object.keys(bridge).sort()).toEqual(['abortStream', 'host', 'invoke', 'onPush', 'onStreamMessage', 'startStream']);
    expect(bridge.host).toBe('electron');
  });

  it('gives callbacks the payload only, and every subscription undoes itself', () => {
    const ipc = new FakeIpcRenderer();
    const bridge = createPreloadBridge(ipc as unknown as IpcRendererLike);
    const received: unknown[][] = [];
    const off = bridge.onStreamMessage((...args: unknown[]) => received.push(args));
    const offPush = bridge.onPush('service.status', (...args: unknown[]) => received.push(args));
    ipc.emit(IPC_CHANNELS.streamMessage, { sender: 'the IPC event' }, { streamId: 's', kind: 'done' });
    ipc.emit(IPC_CHANNELS.push, { sender: 'the IPC event' }, { event: 'service.status', payload: { state: 'ready' } });
    expect(received).toEqual([[{ streamId: 's', kind: 'done' }], [{ state: 'ready' }]]);
    expect(ipc.listenerCount(IPC_CHANNELS.streamMessage)).toBe(1);
    off();
    offPush();
    expect(ipc.listenerCount(IPC_CHANNELS.streamMessage)).toBe(0);
    expect(ipc.listenerCount(IPC_CHANNELS.push)).toBe(0);
    expect(() => bridge.onPush('shell.exec' as never, () => undefined)).toThrow(/Unknown push event/);
  });

  it('sends calls on the bridge channels only', async () => {
    const ipc = new FakeIpcRenderer();
    const bridge = createPreloadBridge(ipc as unknown as IpcRendererLike);
    await bridge.invoke('settings.get');
    await bridge.startStream('stream_1', 'ask', { question: 'q' });
    await bridge.abortStream('stream_1');
    expect(ipc.invoked.map((call) => call[0])).toEqual([IPC_CHANNELS.invoke, IPC_CHANNELS.streamStart]);
    expect(ipc.sent).toEqual([[IPC_CHANNELS.streamAbort, 'stream_1']]);
  });
});
