/**
 * `window.clarity` for the browser host: the same ClarityBridge as the Electron preload, over
 * one WebSocket to the page's own origin (the HTTP-only session cookie authenticates it).
 */
import type {
  ClarityBridge,
  PushEventName,
  PushEvents,
  Result,
  StreamMessage,
  WsClientFrame,
  WsServerFrame,
} from '../../../shared/bridge-contract';

const RECONNECT_MAX_MS = 5_000;
/** Window event the page listens to: the host went away (`connected: false`) or came back. */
export const HOST_CONNECTION_EVENT = 'clarity:host-connection';
export interface HostConnectionDetail {
  connected: boolean;
  /** Failed reconnection attempts so far. */
  attempts: number;
}
const announce = (detail: HostConnectionDetail): void => void window.dispatchEvent(new CustomEvent<HostConnectionDetail>(HOST_CONNECTION_EVENT, { detail }));

export function createWebSocketBridge(url: string): ClarityBridge {
  let socket: WebSocket | null = null;
  let nextId = 1;
  let attempt = 0;
  let lost = false;
  const queue: string[] = [];
  const pending = new Map<number, (result: Result<unknown>) => void>();
  const streamListeners = new Set<(message: StreamMessage) => void>();
  const pushListeners = new Map<PushEventName, Set<(payload: unknown) => void>>();
  const openStreams = new Set<string>();

  const deliverStream = (message: StreamMessage): void => {
    if (message.kind === 'done' || message.kind === 'error') openStreams.delete(message.streamId);
    for (const listener of streamListeners) listener(message);
  };

  const connect = (): void => {
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      if (lost) announce({ connected: true, attempts: 0 });
      lost = false;
      while (queue.length > 0) ws.send(queue.shift()!);
    };
    ws.onmessage = (event) => {
      let frame: WsServerFrame;
      try {
        frame = JSON.parse(String(event.data)) as WsServerFrame;
      } catch {
        return;
      }
      if (frame.t === 'result') {
        pending.get(frame.id)?.(frame.result);
        pending.delete(frame.id);
      } else if (frame.t === 'stream') deliverStream(frame.message);
      else if (frame.t === 'push') for (const listener of pushListeners.get(frame.event) ?? []) listener(frame.payload);
    };
    ws.onclose = () => {
      socket = null;
      // Whatever was in flight is lost with the connection: say so, keep what was shown.
      for (const resolve of pending.values()) resolve({ ok: false, error: { code: 'network', message: 'Lost the connection to the app host.' } });
      pending.clear();
      for (const streamId of [...openStreams]) {
        deliverStream({ streamId, kind: 'error', incomplete: true, error: { code: 'network', message: 'Lost the connection to the app host.' } });
      }
      attempt += 1;
      lost = true;
      announce({ connected: false, attempts: attempt });
      setTimeout(connect, Math.min(RECONNECT_MAX_MS, 250 * 2 ** attempt));
    };
  };

  const send = (frame: WsClientFrame): void => {
    const text = JSON.stringify(frame);
    if (socket?.readyState === WebSocket.OPEN) socket.send(text);
    else queue.push(text);
  };

  const request = <T>(frame: WsClientFrame & { id: number }): Promise<Result<T>> =>
    new Promise((resolve) => {
      pending.set(frame.id, resolve as (result: Result<unknown>) => void);
      send(frame);
    });

  connect();

  return {
    host: 'browser',
    invoke: (method, args) => request({ t: 'invoke', id: nextId++, method, args }),
    startStream: async (streamId, method, args) => {
      openStreams.add(streamId);
      const result = await request<null>({ t: 'stream-start', id: nextId++, streamId, method, args });
      if (!result.ok) openStreams.delete(streamId);
      return result;
    },
    abortStream: async (streamId) => send({ t: 'stream-abort', streamId }),
    onStreamMessage(callback) {
      streamListeners.add(callback);
      return () => void streamListeners.delete(callback);
    },
    onPush<E extends PushEventName>(event: E, callback: (payload: PushEvents[E]) => void) {
      const set = pushListeners.get(event) ?? new Set();
      pushListeners.set(event, set);
      const listener = callback as (payload: unknown) => void;
      set.add(listener);
      return () => void set.delete(listener);
    },
  };
}
