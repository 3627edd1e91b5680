/**
 * The browser host's transport: the bridge over one WebSocket per page, on the same origin
 * as the page. The HTTP server decides who may connect (token, Origin, Host); this file maps
 * frames to the bridge host and back.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { WsClientFrame, WsServerFrame } from '../../shared/bridge-contract';
import type { BridgeHost, PushListener, StreamSink } from '../bridge/bridge-host';

export const WS_PATH = '/bridge';
const MAX_FRAME_BYTES = 256 * 1024;

export function attachWebSocketTransport(
  server: Server,
  host: BridgeHost,
  isAllowed: (request: IncomingMessage) => boolean,
): { close(): void; clientCount(): number } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    // SECURITY: refuse before the handshake: wrong path, no token, foreign Origin or Host.
    if (path !== WS_PATH || !isAllowed(request)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => serve(ws));
  });

  function serve(ws: WebSocket): void {
    const send = (frame: WsServerFrame): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    };
    const sink: StreamSink = (message) => send({ t: 'stream', message });
    const onPush: PushListener = (event, payload) => send({ t: 'push', event, payload });
    const unsubscribe = host.onPush(onPush);

    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let frame: WsClientFrame;
      try {
        frame = JSON.parse(data.toString()) as WsClientFrame;
      } catch {
        return;
      }
      if (frame.t === 'invoke' && typeof frame.id === 'number') {
        void host.invoke(frame.method, frame.args).then((result) => send({ t: 'result', id: frame.id, result }));
      } else if (frame.t === 'stream-start' && typeof frame.id === 'number') {
        send({ t: 'result', id: frame.id, result: host.startStream(frame.streamId, frame.method, frame.args, sink) });
      } else if (frame.t === 'stream-abort') {
        host.abortStream(frame.streamId);
      }
    });
    ws.on('close', () => {
      unsubscribe();
      host.detachSink(sink);
    });
  }

  return {
    close: () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
    clientCount: () => wss.clients.size,
  };
}
