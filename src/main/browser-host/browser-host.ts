/**
 * The browser host: the real main-process services and the real renderer build, served to a
 * browser on 127.0.0.1 through the same bridge contract as Electron (docs/decisions/design.md §1).
 *
 * SECURITY: loopback only; a secret token per launch, good exactly once, exchanged for an
 * HttpOnly, SameSite=Strict session cookie holding a different random value (so the token
 * printed in the terminal, or left in shell history, opens nothing). Every page, asset and
 * WebSocket request must carry the cookie and a Host (and, for WebSockets, an Origin) naming
 * this server, which defeats DNS rebinding. Every error answers in the project's error shape.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { rendererCsp } from '../../shared/csp';
import type { BridgeHost } from '../bridge/bridge-host';
import { attachWebSocketTransport } from '../transports/ws-transport';

const COOKIE = 'clarity_session';
const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export interface BrowserHostOptions {
  host: BridgeHost;
  /** The renderer build (out/renderer). */
  rendererDir: string;
  port?: number;
  token?: string;
  /** The session cookie's value; kept across restarts by the CLI (host-session.ts). Random if absent. */
  session?: string;
}

export interface RunningBrowserHost {
  server: Server;
  port: number;
  origin: string;
  /** The URL to open: it carries the per-launch token once. */
  launchUrl: string;
  token: string;
  close(): Promise<void>;
}

export async function startBrowserHost(options: BrowserHostOptions): Promise<RunningBrowserHost> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const session = options.session ?? randomBytes(32).toString('base64url');
  let launchUsed = false;
  const rendererRoot = await realpath(options.rendererDir);
  let port = 0;
  const allowedHosts = (): string[] => [`127.0.0.1:${port}`, `localhost:${port}`];

  const sameSecret = (candidate: string | undefined, secret: string): boolean => {
    if (!candidate) return false;
    const a = Buffer.from(candidate);
    const b = Buffer.from(secret);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  const sessionMatches = (candidate: string | undefined): boolean => sameSecret(candidate, session);
  const cookieSession = (request: IncomingMessage): string | undefined =>
    (request.headers.cookie ?? '')
      .split(';')
      .map((part) => part.trim().split('='))
      .find(([name]) => name === COOKIE)?.[1];
  const hostIsOurs = (request: IncomingMessage): boolean => allowedHosts().includes(request.headers.host ?? '');

  const server = createServer((request, response) => {
    void handle(request, response).catch(() => {
      if (!response.headersSent) deny(response, 'The browser host could not serve this request.', 500);
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!hostIsOurs(request)) return deny(response, 'Unknown Host header.');
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`);
    const offered = url.searchParams.get('token');
    if (offered !== null) {
      if (!sameSecret(offered, token)) return deny(response, 'This launch link is not valid. Use the URL printed by `npm run web`.');
      if (launchUsed) return deny(response, 'This launch link was already used. Keep using the tab it opened, or restart `npm run web` for a new link.');
      launchUsed = true;
      // Trade the one-time token for a session cookie of its own, and drop it from the address bar.
      response.writeHead(303, {
        'set-cookie': `${COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`,
        location: '/',
        'cache-control': 'no-store',
      });
      response.end();
      return;
    }
    if (!sessionMatches(cookieSession(request))) return deny(response, 'Open the app with the URL printed by `npm run web`.');
    if (request.method !== 'GET' && request.method !== 'HEAD') return deny(response, 'Method not allowed.', 405);
    await serveFile(url.pathname, response);
  }

  async function serveFile(pathname: string, response: ServerResponse): Promise<void> {
    let relative: string;
    try {
      relative = decodeURIComponent(pathname === '/' ? '/index.html' : pathname);
    } catch {
      return deny(response, 'The address has a malformed percent-encoding.', 400);
    }
    let file: string;
    try {
      file = await realpath(join(rendererRoot, relative));
    } catch {
      file = join(rendererRoot, 'index.html'); // client-side routes fall back to the shell
    }
    // SECURITY: nothing outside the renderer build is ever served.
    if (file !== rendererRoot && !file.startsWith(rendererRoot + sep)) return deny(response, 'Not found.', 404);
    const body = await readFile(file);
    const type = MIME[extname(file)] ?? 'application/octet-stream';
    response.writeHead(200, {
      'content-type': type,
      'cache-control': extname(file) === '.html' ? 'no-store' : 'max-age=3600',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...(type.startsWith('text/html') ? { 'content-security-policy': contentSecurityPolicy(port), 'x-frame-options': 'DENY' } : {}),
    });
    response.end(body);
  }

  const transport = attachWebSocketTransport(server, options.host, (request) => {
    const origin = request.headers.origin ?? '';
    return hostIsOurs(request) && allowedHosts().some((host) => origin === `http://${host}`) && sessionMatches(cookieSession(request));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // SECURITY: loopback only.
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  return {
    server,
    port,
    origin,
    token,
    launchUrl: `${origin}/?token=${token}`,
    async close() {
      transport.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ERROR_CODE: Record<number, string> = { 400: 'invalid_request', 403: 'forbidden', 404: 'not_found', 405: 'invalid_request', 500: 'internal' };

/** Every refusal in the project's error shape ({error, message}), with the usual headers. */
function deny(response: ServerResponse, message: string, status = 403): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  response.end(JSON.stringify({ error: ERROR_CODE[status] ?? 'invalid_request', message }));
}

/** The renderer's CSP: only its own scripts, and the bridge socket back to this server. */
export function contentSecurityPolicy(port: number): string {
  return rendererCsp({ connectSrc: [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`], delivery: 'header' });
}
