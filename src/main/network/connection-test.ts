/**
 * "Test connection" in Settings: walks the hops a service request takes — DNS, the proxy's
 * CONNECT, TLS, then a real HTTP request through the app's own fetch — and names the first hop
 * that fails, in words an IT department can act on. Electron-free; the Electron entry maps
 * Chromium's net errors with `hopOfChromiumError` instead.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, Socket, connect as netConnect } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { displayProxy } from './proxy-env';
import { ENDPOINTS } from '../../shared/endpoints/table';

export type Hop = 'dns' | 'connect' | 'proxy' | 'tls' | 'http';
export const HOP_NAMES: Record<Hop, string> = { dns: 'DNS', connect: 'Connection', proxy: 'Proxy', tls: 'TLS', http: 'HTTP' };

export interface HopResult {
  hop: Hop;
  ok: boolean;
  detail: string;
}

export interface ConnectionReport {
  url: string;
  proxy: string;
  ok: boolean;
  failedHop: Hop | null;
  hops: HopResult[];
  summary: string;
}

export interface ConnectionTestOptions {
  /** The proxy this URL goes through (null: direct), as the app's fetch would choose it. */
  proxy: string | null;
  /** The CA list the app's fetch uses (undefined: Node's default store). */
  ca?: string[];
  /** The app's own fetch: the last hop must prove the real request path works. */
  fetch: typeof fetch;
  lookup?: (host: string) => Promise<{ address: string }>;
  timeoutMs?: number;
}

class HopFailure extends Error {
  constructor(
    readonly hop: Hop,
    message: string,
  ) {
    super(message);
  }
}

const TLS_TRUST_CODES = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_UNTRUSTED']);

/** Words for a TLS failure, by OpenSSL/Node error code. */
export function explainTlsError(code: string | undefined, message: string): string {
  if (code && TLS_TRUST_CODES.has(code)) {
    return `the certificate is not from an authority this app trusts (${code}). Behind a TLS-inspecting proxy, add the company's root certificate (NODE_EXTRA_CA_CERTS, or NODE_USE_SYSTEM_CA=1 once it is in the system store).`;
  }
  if (code === 'CERT_HAS_EXPIRED') return 'the server certificate has expired (CERT_HAS_EXPIRED).';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the certificate is for a different host name (${code}).`;
  return `${message}${code ? ` (${code})` : ''}.`;
}

function withTimeout<T>(promise: Promise<T>, ms: number, hop: Hop, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_resolve, reject) => {
      timer = setTimeout(() => reject(new HopFailure(hop, `${what} did not answer within ${Math.round(ms / 1000)} s.`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function openSocket(host: string, port: number, hop: Hop): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(new HopFailure(hop, `cannot connect to ${host}:${port} (${error.code ?? error.message}).`));
    });
  });
}

/** Sends CONNECT through the proxy and waits for its status line. */
function tunnel(socket: Socket, proxy: URL, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const auth = proxy.username ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n` : '';
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      if (status === 200) resolve();
      else if (status === 407) reject(new HopFailure('proxy', 'the proxy asks for credentials (407). Put them in the proxy address (http://user:password@proxy:port) or use the Electron app, which uses the system login.'));
      else reject(new HopFailure('proxy', `the proxy refused the tunnel to ${host}:${port} (${status ? `HTTP ${status}` : 'no valid answer'}).`));
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new HopFailure('proxy', 'the proxy closed the connection before answering CONNECT.')));
    socket.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n${auth}\r\n`);
  });
}

function handshake(socket: Socket, servername: string, ca: string[] | undefined): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const secure = tlsConnect({ socket, servername: isIP(servername) ? undefined : servername, ca, ALPNProtocols: ['http/1.1'] });
    secure.once('secureConnect', () => resolve(secure));
    secure.once('error', (error: NodeJS.ErrnoException) => {
      secure.destroy();
      reject(new HopFailure('tls', explainTlsError(error.code, error.message)));
    });
  });
}

export async function testConnection(target: string, options: ConnectionTestOptions): Promise<ConnectionReport> {
  const url = new URL(target);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const lookup = options.lookup ?? ((host: string) => dnsLookup(host));
  const proxyUrl = options.proxy ? new URL(options.proxy.includes('://') ? options.proxy : `http://${options.proxy}`) : null;
  const hops: HopResult[] = [];
  const targetPort = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let socket: Socket | null = null;
  try {
    // DNS: through a proxy only the proxy's name is resolved here; the proxy resolves the rest.
    const first = proxyUrl ? proxyUrl.hostname.replace(/^\[|\]$/g, '') : host;
    if (isIP(first)) hops.push({ hop: 'dns', ok: true, detail: `${first} is an address; nothing to resolve.` });
    else {
      const resolved = await withTimeout(lookup(first), timeoutMs, 'dns', `DNS for ${first}`).catch((error: unknown) => {
        if (error instanceof HopFailure) throw error;
        throw new HopFailure('dns', `cannot resolve ${first} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
      });
      hops.push({ hop: 'dns', ok: true, detail: `${first} → ${resolved.address}` });
    }
    if (proxyUrl) {
      const proxyPort = Number(proxyUrl.port) || (proxyUrl.protocol === 'https:' ? 443 : 80);
      socket = await withTimeout(openSocket(proxyUrl.hostname.replace(/^\[|\]$/g, ''), proxyPort, 'proxy'), timeoutMs, 'proxy', 'The proxy');
      if (url.protocol === 'https:') {
        await withTimeout(tunnel(socket, proxyUrl, host, targetPort), timeoutMs, 'proxy', 'The proxy');
        hops.push({ hop: 'proxy', ok: true, detail: `${displayProxy(options.proxy)} opened a tunnel to ${host}:${targetPort}.` });
      } else hops.push({ hop: 'proxy', ok: true, detail: `${displayProxy(options.proxy)} accepts connections (plain HTTP is forwarded, not tunnelled).` });
    } else {
      socket = await withTimeout(openSocket(host, targetPort, 'connect'), timeoutMs, 'connect', `${host}:${targetPort}`);
      hops.push({ hop: 'connect', ok: true, detail: `connected to ${host}:${targetPort} directly.` });
    }
    if (url.protocol === 'https:') {
      const secure = await withTimeout(handshake(socket, host, options.ca), timeoutMs, 'tls', 'The TLS handshake');
      const issuer = secure.getPeerCertificate().issuer as { CN?: string; O?: string } | undefined;
      hops.push({ hop: 'tls', ok: true, detail: `certificate trusted${issuer ? `, issued by ${issuer.CN ?? issuer.O ?? 'an unnamed authority'}` : ''}.` });
      secure.destroy();
    } else socket.destroy();
    socket = null;
    // HTTP: the app's own fetch, so a difference between our probe and the real path shows up.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let response: Response;
    try {
      response = await options.fetch(new URL(ENDPOINTS.getSourcesHealth.path, url), { signal: controller.signal, headers: { accept: 'application/json' } });
      await response.body?.cancel();
    } catch (error) {
      throw new HopFailure(hopOfFetchError(error), `the request failed: ${describeError(error)}.`);
    } finally {
      clearTimeout(timer);
    }
    if (response.status >= 500) throw new HopFailure('http', `the service answered HTTP ${response.status}.`);
    hops.push({ hop: 'http', ok: true, detail: `the service answered HTTP ${response.status}.` });
    return { url: url.origin, proxy: displayProxy(options.proxy), ok: true, failedHop: null, hops, summary: `Connected to ${url.host}${proxyUrl ? ' through the proxy' : ''}.` };
  } catch (error) {
    socket?.destroy();
    const failure = error instanceof HopFailure ? error : new HopFailure('http', describeError(error));
    hops.push({ hop: failure.hop, ok: false, detail: failure.message });
    return {
      url: url.origin,
      proxy: displayProxy(options.proxy),
      ok: false,
      failedHop: failure.hop,
      hops,
      summary: `${HOP_NAMES[failure.hop]} failed: ${failure.message}`,
    };
  }
}

function describeError(error: unknown): string {
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
  const code = cause?.code ?? (error as NodeJS.ErrnoException).code;
  const message = cause?.message ?? (error as Error).message ?? String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/** Which hop a failed fetch (undici) died at, from its cause. */
export function hopOfFetchError(error: unknown): Hop {
  const cause = (error as { cause?: NodeJS.ErrnoException & { name?: string } }).cause ?? (error as NodeJS.ErrnoException);
  const code = cause?.code ?? '';
  const message = cause?.message ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (/proxy|tunnel/i.test(message)) return 'proxy';
  if (TLS_TRUST_CODES.has(code) || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code === 'CERT_HAS_EXPIRED') return 'tls';
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH') return 'connect';
  return 'http';
}

/** Which hop a Chromium net error (Electron's net.fetch) names, e.g. `net::ERR_PROXY_CONNECTION_FAILED`. */
export function hopOfChromiumError(message: string): Hop {
  const code = /ERR_[A-Z_]+/.exec(message)?.[0] ?? '';
  if (/^ERR_(NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|DNS_)/.test(code)) return 'dns';
  if (/^ERR_(PROXY|TUNNEL|MANDATORY_PROXY|SOCKS)/.test(code) || code === 'ERR_PAC_SCRIPT_FAILED' || code === 'ERR_PAC_NOT_IN_DHCP') return 'proxy';
  if (/^ERR_(CERT|SSL)_/.test(code) || code === 'ERR_BAD_SSL_CLIENT_AUTH_CERT') return 'tls';
  if (/^ERR_(CONNECTION|ADDRESS|INTERNET_DISCONNECTED|NETWORK_CHANGED|TIMED_OUT)/.test(code)) return 'connect';
  return 'http';
}
