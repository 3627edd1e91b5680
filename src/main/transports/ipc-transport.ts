/**
 * The Electron transport: the bridge over IPC. The only main-process file that touches
 * ipcMain. Every message is checked to come from the main frame of our own window, loaded
 * from our own origin (docs/decisions/conventions.md §2); anything else is dropped.
 */
import { ipcMain, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { IPC_CHANNELS } from '../../shared/bridge-contract';
import type { BridgeHost, StreamSink } from '../bridge/bridge-host';
import { isTrustedSender } from './ipc-sender';

export interface IpcTransportOptions {
  host: BridgeHost;
  /** The window's webContents the bridge serves. */
  webContents: () => WebContents | null;
  /** The origin the renderer is loaded from (our custom protocol). */
  trustedOrigin: string;
}

export function attachIpcTransport({ host, webContents, trustedOrigin }: IpcTransportOptions): () => void {
  const isTrusted = (event: IpcMainEvent | IpcMainInvokeEvent): boolean => {
    const contents = webContents();
    // SECURITY: our window, its main frame, our origin. Sub-frames and other windows are refused.
    return isTrustedSender(event, contents ? { webContents: contents, mainFrame: contents.mainFrame } : null, trustedOrigin);
  };
  const send = (channel: string, payload: unknown): void => {
    const contents = webContents();
    if (contents && !contents.isDestroyed()) contents.send(channel, payload);
  };
  const sink: StreamSink = (message) => send(IPC_CHANNELS.streamMessage, message);

  ipcMain.handle(IPC_CHANNELS.invoke, async (event, method: unknown, args: unknown) => {
    if (!isTrusted(event)) return { ok: false, error: { code: 'forbidden', message: 'Untrusted sender.' } };
    return host.invoke(String(method), args);
  });
  ipcMain.handle(IPC_CHANNELS.streamStart, (event, streamId: unknown, method: unknown, args: unknown) => {
    if (!isTrusted(event)) return { ok: false, error: { code: 'forbidden', message: 'Untrusted sender.' } };
    return host.startStream(streamId, method, args, sink);
  });
  const onAbort = (event: IpcMainEvent, streamId: unknown): void => {
    if (isTrusted(event)) host.abortStream(streamId);
  };
  ipcMain.on(IPC_CHANNELS.streamAbort, onAbort);
  const unsubscribePush = host.onPush((event, payload) => send(IPC_CHANNELS.push, { event, payload }));

  return () => {
    ipcMain.removeHandler(IPC_CHANNELS.invoke);
    ipcMain.removeHandler(IPC_CHANNELS.streamStart);
    ipcMain.off(IPC_CHANNELS.streamAbort, onAbort);
    unsubscribePush();
    host.detachSink(sink);
  };
}
