/**
 * Exposes exactly the ClarityBridge as `window.clarity`. Never ipcRenderer itself; callbacks
 * get payloads only, never the IPC event (STYLE §1, §3).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { IPC_CHANNELS, PUSH_EVENT_NAMES } from '../shared/bridge-channels';
import type { ClarityBridge, PushEventName, StreamMessage } from '../shared/bridge-contract';

const bridge: ClarityBridge = {
  host: 'electron',
  invoke: (method, args) => ipcRenderer.invoke(IPC_CHANNELS.invoke, method, args),
  startStream: (streamId, method, args) => ipcRenderer.invoke(IPC_CHANNELS.streamStart, streamId, method, args),
  abortStream: async (streamId) => {
    ipcRenderer.send(IPC_CHANNELS.streamAbort, streamId);
  },
  onStreamMessage(callback) {
    const listener = (_event: IpcRendererEvent, message: StreamMessage): void => callback(message);
    ipcRenderer.on(IPC_CHANNELS.streamMessage, listener);
    return () => void ipcRenderer.off(IPC_CHANNELS.streamMessage, listener);
  },
  onPush(event, callback) {
    if (!(PUSH_EVENT_NAMES as readonly string[]).includes(event as PushEventName)) throw new Error(`Unknown push event ${String(event)}`);
    const listener = (_event: IpcRendererEvent, frame: { event: string; payload: never }): void => {
      if (frame.event === event) callback(frame.payload);
    };
    ipcRenderer.on(IPC_CHANNELS.push, listener);
    return () => void ipcRenderer.off(IPC_CHANNELS.push, listener);
  },
};

contextBridge.exposeInMainWorld('clarity', bridge);
