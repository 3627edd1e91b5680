/**
 * The API client against services that misbehave, over real HTTP on 127.0.0.1: over-long
 * lines, keep-alives, stalls, malformed and unknown frames, wrong content types, 429s with any
 * Retry-After, 500/503 storms. Each test counts what the client sends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AskEvent } from '../../src/shared/bridge-contract';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';

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
  vi.useRealTimers();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

const sse = (response: ServerResponse): void => void response.writeHead(200, { 'content-type': 'text/event-stream' });
const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const delta = (text: string): string => frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
const ASK = { messages: [{ role: 'user' as const, content: 'Zudio' }] };

/** Lets the event loop turn (real I/O) until `ready` holds: waiting on state, not on time. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * fetch whose response bodies report each read the client asks for. The client asks for the
 * next chunk only once it has handled the previous one, so `reads()` going up means the last
 * chunk was handled (for a stream: its stall timer re-armed).
 */
function observedFetch(): { fetch: typeof fetch; reads: () => number; calls: () => number; bodiesRead: () => number } {
  let reads = 0;
  let calls = 0;
  let bodiesRead = 0;
  const observed: typeof fetch = async (input, init) => {
    calls += 1;
    const response = await fetch(input, init);
    if (!response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          reads += 1;
          const { done, value } = await reader.read();
          if (done) {
            bodiesRead += 1;
            controller.close();
          } else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: observed, reads: () => reads, calls: () => calls, bodiesRead: () => bodiesRead };
}

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
    // The test holds the server's pen and the client's clock: each keep-alive is written once the
    // client has handled the one before, then 300 ms of the client's time pass (its stall limit
    // is 350 ms). Ten of them keep a stream alive for 3 s; without them it stalls out.
    let response: ServerResponse | null = null;
    const { url } = await serve((_req, res) => {
      sse(res);
      res.write(frame('message_start', { message: {} }) + delta('Before. '));
      response = res;
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stream = async (keepAlives: boolean): Promise<Awaited<ReturnType<typeof collect>>> => {
      response = null;
      const observed = observedFetch();
      const events: AskEvent[] = [];
      const client = new RetailSignalClient({ baseUrl: url, stallTimeoutMs: 350, fetch: observed.fetch });
      const done = client.askStream(ASK, { onEvent: (event) => events.push(event) });
      const text = (): string => events.map((e) => (e.type === 'text' ? e.text : '')).join('');
      await until(() => text() === 'Before. ' && observed.reads() >= 2);
      if (keepAlives) {
        for (let tick = 1; tick <= 10; tick += 1) {
          vi.advanceTimersByTime(300);
          const reads = observed.reads();
          response!.write(tick % 2 ? ': keep-alive\n\n' : frame('ping', {}));
          await until(() => observed.reads() > reads);
        }
        response!.end(delta('After.') + frame('message_stop', {}));
      } else {
        vi.advanceTimersByTime(300);
        vi.advanceTimersByTime(100);
      }
      return { result: await done, events, text: text() };
    };
    const kept = await stream(true);
    expect(kept.result).toEqual({ ok: true });
    expect(kept.text).toBe('Before. After.');
    // The same stream without keep-alives stalls out, its partial text kept.
    const silent = await stream(false);
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
    // The client's clock is fixed (on a whole second, as an HTTP date is): the date is 42 s away.
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const values = ['17', new Date(now + 42_000).toUTCString(), 'soon-ish'];
    const { url, requests } = await serve((_req, res, n) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': values[n - 1] ?? '5' }).end('{"error":"rate_limited","message":"Slow down."}'));
    const client = new RetailSignalClient({ baseUrl: url, now: () => now });
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
    const observed = observedFetch();
    const client = new RetailSignalClient({ baseUrl: url, fetch: observed.fetch });
    // The client's clock is the test's: after each 503 nothing is sent until its backoff passes.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const lookup = client.getSignal('sig_0123456789abcdef');
    for (let failed = 1; failed <= 2; failed += 1) {
      await until(() => observed.bodiesRead() === failed);
      vi.advanceTimersByTime(99);
      await new Promise((resolve) => setImmediate(resolve));
      expect(observed.calls(), 'no retry within 99 ms').toBe(failed); // it waits between tries
      vi.advanceTimersByTime(4_000 - 99); // the backoff's cap
      await until(() => observed.calls() === failed + 1);
    }
    expect((await lookup).ok).toBe(true);
    vi.useRealTimers();
    expect(requests()).toBe(3);
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
