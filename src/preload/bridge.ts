/**
 * Builds `window.clarity` from an ipcRenderer. Free of `electron` imports, so the exact shape
 * of the bridge (and that callbacks never receive the IPC event) is unit-tested everywhere.
 */
import { IPC_CHANNELS, PUSH_EVENT_NAMES } from '../shared/bridge-channels';
import type { ClarityBridge, PushEventName, StreamMessage } from '../shared/bridge-contract';

export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  send(channel: string, ...args: unknown[]): void;
  on(channel: string, listener: (event: unknown, ...args: never[]) => void): unknown;
  off(channel: string, listener: (event: unknown, ...args: never[]) => void): unknown;
}

export function createPreloadBridge(ipc: IpcRendererLike): ClarityBridge {
  return {
    host: 'electron',
    invoke: (method, args) => ipc.invoke(IPC_CHANNELS.invoke, method, args) as never,
    startStream: (streamId, method, args) => ipc.invoke(IPC_CHANNELS.streamStart, streamId, method, args) as never,
    abortStream: async (streamId) => {
      ipc.send(IPC_CHANNELS.streamAbort, streamId);
    },
    onStreamMessage(callback) {
      // SECURITY: the callback gets the payload only, never the IPC event (and its sender).
      const listener = (_event: unknown, message: StreamMessage): void => callback(message);
      ipc.on(IPC_CHANNELS.streamMessage, listener);
      return () => void ipc.off(IPC_CHANNELS.streamMessage, listener);
    },
    onPush(event, callback) {
      if (!(PUSH_EVENT_NAMES as readonly string[]).includes(event as PushEventName)) throw new Error(`Unknown push event ${String(event)}`);
      const listener = (_event: unknown, frame: { event: string; payload: never }): void => {
        if (frame.event === event) callback(frame.payload);
      };
      ipc.on(IPC_CHANNELS.push, listener);
      return () => void ipc.off(IPC_CHANNELS.push, listener);
    },
  };
}
