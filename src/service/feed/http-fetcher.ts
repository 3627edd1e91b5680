/**
 * One polite, bounded HTTP GET for the feed: the only place the service reaches out to a source.
 * SECURITY: sources come from an administrator and from anonymous proposals, so this is an SSRF
 * surface. Every hop of a redirect chain is checked, both the literal host and every address its
 * name resolves to at connect time (DNS that changes its answer cannot slip past), unless the
 * service runs with --allow-private-sources. Bodies are capped while streaming, before and after
 * decompression, and every wait has a deadline.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import zlib from 'node:zlib';
import { isPrivateAddress } from '../webhooks/address-guard';
import { FeedFailure } from './feed-failure';

// Taken as CommonJS builtins, not ES imports: importing node:http as a module reads every export,
// and its WebSocket getter loads undici (~0.1 s of CPU in every start; decision 0040, round 7).
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

export interface FetchLimits {
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** Bytes on the wire. */
  maxBodyBytes: number;
  /** Bytes after gzip/deflate/br are undone. */
  maxDecompressedBytes: number;
  maxRedirects: number;
}

/** Documented defaults (docs/feed.md): 10 s to connect, 30 s in all, 10 MB body, 50 MB decompressed, 5 redirects. */
export const DEFAULT_FETCH_LIMITS: FetchLimits = {
  connectTimeoutMs: 10_000,
  totalTimeoutMs: 30_000,
  maxBodyBytes: 10 * 1024 * 1024,
  maxDecompressedBytes: 50 * 1024 * 1024,
  maxRedirects: 5,
};

export interface FetchRequest {
  url: string;
  userAgent: string;
  allowPrivate: boolean;
  /**
   * Exact `host:port` pairs allowed even though private (tests: the fixture web on loopback, so
   * a redirect from it to another loopback host is still refused). Empty by default.
   */
  allowedPrivateHosts?: readonly string[];
  etag?: string | null;
  lastModified?: string | null;
  accept?: string;
  limits?: Partial<FetchLimits>;
  /** Aborts the fetch at once (the service is stopping). */
  signal?: AbortSignal;
}

export interface FetchResponse {
  status: number;
  /** Where the body came from after redirects. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  notModified: boolean;
}

/**
 * A private host the operator allowed (`--allow-source-host`): named with its port (`host:port`,
 * that port only) or without (any port of that host). Only that host: a redirect to another
 * private one is checked again at its hop.
 */
function hostAllowed(url: URL, allowed: readonly string[]): boolean {
  return allowed.includes(url.host.toLowerCase()) || allowed.includes(url.hostname.toLowerCase());
}

/** Why a URL may not be fetched, or null. Checked before each hop (the connect-time lookup checks the rest). */
export function refusedTarget(url: URL, allowPrivate: boolean, allowedPrivateHosts: readonly string[] = []): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs are fetched (got ${url.protocol})`;
  if (url.username || url.password) return 'credentials in a source URL are not accepted';
  if (allowPrivate || hostAllowed(url, allowedPrivateHosts)) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback host (allowed only with --allow-private-sources)`;
  if (isIP(host) && isPrivateAddress(host)) return `${host} is a private, loopback or reserved address (allowed only with --allow-private-sources)`;
  return null;
}

export async function fetchResource(request: FetchRequest): Promise<FetchResponse> {
  const limits = { ...DEFAULT_FETCH_LIMITS, ...request.limits };
  const deadline = Date.now() + limits.totalTimeoutMs;
  let url = new URL(request.url);
  const seen = new Set<string>();
  for (let hop = 0; ; hop += 1) {
    const refused = refusedTarget(url, request.allowPrivate, request.allowedPrivateHosts);
    if (refused) throw new FeedFailure(hop === 0 ? 'blocked_address' : 'redirect_blocked', hop === 0 ? `Not fetched: ${refused}.` : `A redirect led to a refused address: ${refused}.`);
    seen.add(url.href);
    const response = await getOnce(url, { ...request, allowPrivate: request.allowPrivate || hostAllowed(url, request.allowedPrivateHosts ?? []) }, limits, deadline, hop === 0);
    if ([301, 302, 303, 307, 308].includes(response.status)) {
      const location = response.headers.location;
      if (!location) throw new FeedFailure('http_error', `HTTP ${response.status} without a Location header.`);
      const next = new URL(location, url);
      if (seen.has(next.href)) throw new FeedFailure('redirect_loop', `Redirect loop: ${next.href} was already visited.`);
      if (hop + 1 > limits.maxRedirects) throw new FeedFailure('too_many_redirects', `More than ${limits.maxRedirects} redirects.`);
      url = next;
      continue;
    }
    return { ...response, url: url.href };
  }
}

function getOnce(url: URL, request: FetchRequest, limits: FetchLimits, deadline: number, conditional: boolean): Promise<Omit<FetchResponse, 'url'>> {
  const client = url.protocol === 'https:' ? https : http;
  const headers: Record<string, string> = {
    'user-agent': request.userAgent,
    accept: request.accept ?? 'application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.8, application/pdf;q=0.8, */*;q=0.5',
    'accept-encoding': 'gzip, deflate, br',
  };
  if (conditional && request.etag) headers['if-none-match'] = request.etag;
  if (conditional && request.lastModified) headers['if-modified-since'] = request.lastModified;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: FeedFailure): void => {
      if (settled) return;
      settled = true;
      clearTimeout(totalTimer);
      clearTimeout(connectTimer);
      outgoing.destroy();
      reject(error);
    };
    const outgoing = client.request(url, {
      method: 'GET',
      headers,
      agent: false,
      // SECURITY: the address actually connected to is checked, on every hop.
      lookup: (hostname, options, callback) => {
        dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
          const list = addresses as unknown as LookupAddress[];
          if (error) return callback(error, '', 4);
          if (!request.allowPrivate && list.some((entry) => isPrivateAddress(entry.address))) {
            return callback(Object.assign(new Error(`${hostname} resolves to a private or loopback address (allowed only with --allow-private-sources)`), { code: 'EPRIVATE' }), '', 4);
          }
          if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
          return callback(null, list[0]!.address, list[0]!.family);
        });
      },
    });
    const remaining = Math.max(1, deadline - Date.now());
    const totalTimer = setTimeout(() => fail(new FeedFailure('timeout', `No complete answer within ${Math.round(limits.totalTimeoutMs / 1000)} s.`)), remaining);
    const connectTimer = setTimeout(() => fail(new FeedFailure('timeout', `Could not connect within ${Math.round(limits.connectTimeoutMs / 1000)} s.`)), Math.min(limits.connectTimeoutMs, remaining));
    outgoing.on('socket', (socket) => {
      const connected = (): void => clearTimeout(connectTimer);
      if (!socket.connecting) connected();
      else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => fail(networkFailure(error, url)));
    const stop = (): void => fail(new FeedFailure('network', 'The fetch was stopped (the service is shutting down).'));
    if (request.signal?.aborted) stop();
    request.signal?.addEventListener('abort', stop, { once: true });
    outgoing.on('close', () => request.signal?.removeEventListener('abort', stop));
    outgoing.on('response', (response) => {
      clearTimeout(connectTimer);
      const status = response.statusCode ?? 0;
      if (status === 304 || (status >= 300 && status < 400)) {
        response.resume();
        settled = true;
        clearTimeout(totalTimer);
        resolve({ status, headers: response.headers, body: Buffer.alloc(0), notModified: status === 304 });
        return;
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
        fail(new FeedFailure('body_too_large', `The body is ${megabytes(declared)} MB, over the ${megabytes(limits.maxBodyBytes)} MB cap.`));
        return;
      }
      const chunks: Buffer[] = [];
      let wire = 0;
      let decoded = 0;
      const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
      const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : encoding === 'br' ? zlib.createBrotliDecompress() : null;
      response.on('data', (chunk: Buffer) => {
        wire += chunk.length;
        if (wire > limits.maxBodyBytes) fail(new FeedFailure('body_too_large', `The body passed the ${megabytes(limits.maxBodyBytes)} MB cap while downloading.`));
      });
      response.on('error', (error: NodeJS.ErrnoException) => fail(networkFailure(error, url)));
      const sink = decoder ? response.pipe(decoder) : response;
      if (decoder) decoder.on('error', () => fail(new FeedFailure('bad_encoding', `The ${encoding} body could not be decompressed.`)));
      sink.on('data', (chunk: Buffer) => {
        if (settled) return;
        decoded += chunk.length;
        if (decoded > limits.maxDecompressedBytes) {
          fail(new FeedFailure('decompressed_too_large', `The body decompresses past the ${megabytes(limits.maxDecompressedBytes)} MB cap (a compression bomb?).`));
          decoder?.destroy();
          return;
        }
        chunks.push(chunk);
      });
      sink.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(totalTimer);
        resolve({ status, headers: response.headers, body: Buffer.concat(chunks), notModified: false });
      });
      response.on('aborted', () => fail(new FeedFailure('connection_reset', 'The server closed the connection mid-body.')));
    });
    outgoing.end();
  });
}

function networkFailure(error: NodeJS.ErrnoException, url: URL): FeedFailure {
  if (error.code === 'EPRIVATE') return new FeedFailure('blocked_address', `Not fetched: ${error.message}.`);
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.message === 'socket hang up') return new FeedFailure('connection_reset', `The server reset the connection (${url.host}).`);
  if (error.code === 'ECONNREFUSED') return new FeedFailure('connection_refused', `Nothing is listening at ${url.host}.`);
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return new FeedFailure('dns', `The host ${url.hostname} does not resolve.`);
  if (error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')) return new FeedFailure('tls', `TLS failed for ${url.host}: ${error.message}.`);
  return new FeedFailure('network', `Network error reaching ${url.host}: ${error.message}.`);
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 0);
}
