/**
 * The API client against services that misbehave, over real HTTP on 127.0.0.1: over-long
 * lines, keep-alives, stalls, malformed and unknown frames, wrong content types, 429s with any
 * Retry-After, 500/503 storms. Each test counts what the client sends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskEvent } from '../../src/shared/bridge-contract';
import { RetailSignalClient } from '../../src/main/services/api-client';

type Handler = (request: IncomingMessage, response: ServerResponse, count: number) => void;
let server: Server | null = null;

async function serve(handler: Handler): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  server = createServer((request, response) => {
    count += 1;
    request.resume();
    request.on('end', () => handler(request, response, count));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, requests: () => count };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

const sse = (response: ServerResponse): void => void response.writeHead(200, { 'content-type': 'text/event-stream' });
const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const delta = (text: string): string => frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
const ASK = { messages: [{ role: 'user' as const, content: 'Zudio' }] };

async function collect(client: RetailSignalClient): Promise<{ result: Awaited<ReturnType<RetailSignalClient['askStream']>>; text: string; events: AskEvent[] }> {
  const events: AskEvent[] = [];
  const result = await client.askStream(ASK, { onEvent: (event) => events.push(event) });
  return { result, events, text: events.map((e) => (e.type === 'text' ? e.text : '')).join('') };
}

describe('streams', () => {
  it('bounds an over-long line and ends the stream with a clear error, keeping the text so far', async () => {
    const { url } = await serve((_req, res) => {
      sse(res);
      res.write(frame('message_start', { message: {} }) + delta('Kept text. '));
      res.write(`event: content_block_delta\ndata: ${'x'.repeat(3 * 1024 * 1024)}`);
      // …and the line never ends.
    });
    const { result, text } = await collect(new RetailSignalClient({ baseUrl: url, stallTimeoutMs: 5_000 }));
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'bad_response', incomplete: true, message: expect.stringContaining('larger than the client accepts') }) });
    expect(text).toBe('Kept text. ');
  });

  it('keep-alive comments and ping events reset the stall timer; silence does not', async () => {
    const { url } = await serve((_req, res, n) => {
      sse(res);
      res.write(frame('message_start', { message: {} }) + delta('Before. '));
      let ticks = 0;
      const silent = n > 1; // the second request gets no keep-alives
      const timer = setInterval(() => {
        ticks += 1;
        if (!silent) res.write(ticks % 2 ? ': keep-alive\n\n' : frame('ping', {}));
        if (ticks === 10) {
          clearInterval(timer);
          res.end(delta('After.') + frame('message_stop', {}));
        }
      }, 100);
    });
    const kept = await collect(new RetailSignalClient({ baseUrl: url, stallTimeoutMs: 350 }));
    expect(kept.result).toEqual({ ok: true });
    expect(kept.text).toBe('Before. After.');
    // The same stream without keep-alives stalls out, its partial text kept.
    const client = new RetailSignalClient({ baseUrl: url, stallTimeoutMs: 350 });
    const silent = await collect(client);
    expect(silent.result).toEqual({ ok: false, error: expect.objectContaining({ code: 'timeout', incomplete: true }) });
    expect(silent.text).toBe('Before. ');
  });

  it('skips malformed JSON, unknown events and unknown fields without losing text', async () => {
    const { url } = await serve((_req, res) => {
      sse(res);
      res.end(
        frame('message_start', { message: { id: 'm', session_id: 's', future_field: [1, 2] } }) +
          delta('One. ') +
          frame('content_block_delta', '{"index":0,"delta":{"type":"text_del') +
          frame('clarity.brand_new_event', { anything: true }) +
          frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Two. ', extra: { nested: 1 } }, more: 'x' }) +
          frame('clarity.confidence_updated', { confidence: 'high' }) +
          frame('clarity.confidence_updated', { confidence: 'certainly' }) +
          'data: no event name\n\n' +
          delta('Three.') +
          frame('message_stop', {}),
      );
    });
    const { result, text, events } = await collect(new RetailSignalClient({ baseUrl: url }));
    expect(result).toEqual({ ok: true });
    expect(text).toBe('One. Two. Three.');
    expect(events.filter((e) => e.type === 'confidence')).toEqual([{ type: 'confidence', value: 0.85 }]);
  });

  it('reports a stream that ends mid-event as incomplete, with its text', async () => {
    const { url } = await serve((_req, res) => {
      sse(res);
      res.end(`${frame('message_start', { message: {} })}${delta('Partial answer ')}event: content_block_delta\ndata: {"index":0,"de`);
    });
    const { result, text } = await collect(new RetailSignalClient({ baseUrl: url }));
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'network', incomplete: true }) });
    expect(text).toBe('Partial answer ');
  });

  it('refuses a non-SSE content type plainly', async () => {
    const { url } = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
    const { result } = await collect(new RetailSignalClient({ baseUrl: url }));
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'bad_response', message: expect.stringContaining('text/plain') }) });
  });
});

describe('retries and limits', () => {
  it('honours Retry-After in seconds, as an HTTP date, and caps garbage; a 429 is never retried', async () => {
    const values = ['17', new Date(Date.now() + 42_000).toUTCString(), 'soon-ish'];
    const { url, requests } = await serve((_req, res, n) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': values[n - 1] ?? '5' }).end('{"error":"rate_limited","message":"Slow down."}'));
    const client = new RetailSignalClient({ baseUrl: url });
    const seen: Array<number | undefined> = [];
    for (let i = 0; i < 3; i += 1) {
      const result = await client.askJson(ASK);
      seen.push(result.ok ? undefined : result.error.retryAfterS);
    }
    expect(seen[0]).toBe(17);
    expect(seen[1]).toBeGreaterThanOrEqual(41);
    expect(seen[1]).toBeLessThanOrEqual(42);
    expect(seen[2]).toBe(30);
    expect(requests()).toBe(3); // one request per call: no retry storm
    const lookup = await client.getSignal('sig_0123456789abcdef');
    expect(lookup.ok).toBe(false);
    expect(requests()).toBe(4);
  });

  it('retries a safe GET through 503s with backoff, and never repeats an ask', async () => {
    const { url, requests } = await serve((req, res, n) => {
      if (req.method === 'GET' && n <= 2) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable","message":"Busy."}');
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ signal: { id: 'sig_0123456789abcdef', slug: 's', title: 't', summary: 's', body: 'b', source_id: 'x', url: 'https://x.example', published_at: '2026-01-01T00:00:00Z', type: 'results', entities: { retailers: [], segments: [], cities: [], states: [] }, metrics: {} }, source: { id: 'x', name: 'X', kind: 'k', health: 'healthy', cadence: 'daily', items_24h: 1 } }));
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable","message":"Busy."}');
    });
    const client = new RetailSignalClient({ baseUrl: url });
    const started = Date.now();
    expect((await client.getSignal('sig_0123456789abcdef')).ok).toBe(true);
    expect(requests()).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100); // it waited between tries
    const ask = await client.askJson(ASK);
    expect(ask).toEqual({ ok: false, error: expect.objectContaining({ code: 'unavailable', status: 503 }) });
    expect(requests()).toBe(4); // the POST was sent once
  });

  it('gives up on a GET after a bounded number of tries', async () => {
    const { url, requests } = await serve((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal","message":"Broken."}'));
    const result = await new RetailSignalClient({ baseUrl: url }).getSignal('sig_0123456789abcdef');
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'internal' }) });
    expect(requests()).toBe(4);
  });

  it('does not follow a report or status URL to another host with the credential', async () => {
    const { url, requests } = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const client = new RetailSignalClient({ baseUrl: url, credential: async () => ({ secret: 'ck_secretsecretsecretsecretsecret12', presentAs: 'bearer' }) });
    const result = await client.getReport('https://elsewhere.example/report');
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'bad_response', message: expect.stringContaining('another host') }) });
    expect(requests()).toBe(0);
  });
});
