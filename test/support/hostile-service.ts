/**
 * A Retail Signal service that lies (SECURITY.md threat model): it speaks the interface (SSE
 * ask, citations, health, research reports) but every piece of content is crafted to forge,
 * steer, leak or bloat, and it can redirect requests to another origin that records whether
 * a credential arrived. Tests choose a fault by the words of the question:
 *   "redirect"         → 307 to the other origin (which answers a plausible stream)
 *   "flood"            → 2,048 deltas of 32 KB (64 MB)
 *   "many citations"   → 20,000 citation events
 *   "long field"       → one citation whose title is 1 MB
 *   anything else      → the hostile corpus: forged chips, markers in code, scripts, bad URLs
 * `redirectGets: true` also redirects every GET (health, reports, signals).
 * Run standalone: `npx tsx test/support/hostile-service.ts` prints its URL.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | null;
  apiKey: string | null;
}

export interface HostileService {
  url: string;
  /** The origin redirects point to, and what reached it. */
  elsewhere: { url: string; requests: RecordedRequest[] };
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface HostileOptions {
  redirectGets?: boolean;
  floodDeltas?: number;
}

/** Chips only the app makes; the corpus cites these two real-looking ids. */
export const CITED = ['sig_00000000000000a1', 'sig_00000000000000b2'] as const;

/** Non-http(s) addresses a citation or link may name. None may reach an href. */
export const HOSTILE_URLS = [
  'javascript:window.__pwned=1',
  'JaVaScRiPt:window.__pwned=1',
  ' javascript:window.__pwned=1',
  'file:///etc/passwd',
  'data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+',
  'vbscript:msgbox(1)',
  'clarity://settings',
] as const;

/**
 * The hostile answer, one paragraph per attack. Streamed in small deltas so every attack is
 * also seen half-written. Markers in attributes and code must never become chips.
 */
export const HOSTILE_MARKDOWN = [
  `Opening line cites a real signal [${CITED[0]}].`,
  // Forged chip: a marker inside an attribute once broke out and became a chip link.
  `<a href="https://evil.invalid/login" title="[sig_0000000000000001]">forged chip in a title</a>`,
  `<a href="https://evil.invalid/x" class="cite-chip" data-cite="sig_0000000000000002" data-testid="citation-chip">7</a>`,
  `<button data-cite="sig_0000000000000003" data-testid="citation-chip" class="cite-chip">9</button>`,
  `<span title="x [sig_0000000000000004] y">marker in a span title</span>`,
  // Markers in code are text.
  'Code span `[sig_0000000000000005]` stays text.',
  '```\nfenced [sig_0000000000000006] block\n```',
  '<pre>pre [sig_0000000000000007] block</pre>',
  // Script and handlers.
  '<img src=x onerror="window.__pwned=1">',
  '<svg onload="window.__pwned=1"><circle r=1></circle></svg>',
  '<script>window.__pwned=1</script>',
  '<iframe src="https://evil.invalid/frame"></iframe>',
  '<a href="https://evil.invalid/h" onclick="window.__pwned=1" target="_top">handler link</a>',
  '<form action="https://evil.invalid/f"><input name=a><button>go</button></form>',
  '<math><mi xlink:href="javascript:window.__pwned=1">m</mi></math>',
  '<div style="background:url(https://evil.invalid/bg)">styled</div>',
  // Links that must not navigate.
  ...HOSTILE_URLS.map((url, i) => `[bad link ${i}](${url.trim()})`),
  '<a href="javascript:window.__pwned=1">raw js link</a>',
  '<a href="//evil.invalid/protocol-relative">protocol relative</a>',
  '[ordinary link](https://retail.example/allowed)',
  // A list and a table streamed item by item (issue 31: their changed items alone are sanitised again).
  '- item with `[sig_000000000000000b]` in code\n- item with a [js link](javascript:window.__pwned=1) and &lt;script&gt;\n- item with a [titled link](https://evil.invalid/t "[sig_000000000000000c]")\n- item &amp; [data link](data:text/html,x)',
  '| Head [js](javascript:window.__pwned=1) | B |\n|---|---|\n| `[sig_000000000000000d]` | &lt;img src=x onerror=1&gt; |\n| [vb](vbscript:msgbox) | two &amp; three |\n| last | row |',
  `Closing line cites another [${CITED[1]}] and the first again [${CITED[0]}].`,
].join('\n\n');

/** Citations: the two cited ones with hostile URLs, and titles that try to be markup. */
export function hostileCitations(): Array<Record<string, unknown>> {
  return [
    { id: CITED[0], title: '<img src=x onerror="window.__pwned=1"> Title', source_id: 'src_hostile', source_name: 'Hostile <b>wire</b>', published_at: '2026-11-01T00:00:00Z', url: 'javascript:window.__pwned=1', snippet: '[sig_0000000000000008] <script>window.__pwned=1</script>' },
    { id: CITED[1], title: 'File link', source_id: 'src_hostile', source_name: 'Hostile wire', published_at: '2026-11-02T00:00:00Z', url: 'file:///etc/passwd', snippet: 'snippet' },
    ...HOSTILE_URLS.slice(2).map((url, i) => ({ id: `sig_00000000000000c${i}`, title: `Uncited ${i}`, source_id: 'src_hostile', source_name: 'Hostile wire', published_at: '2026-11-03T00:00:00Z', url, snippet: 's' })),
  ];
}

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const delta = (text: string): string => frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });

function record(request: IncomingMessage): RecordedRequest {
  return {
    method: request.method ?? 'GET',
    path: request.url ?? '/',
    authorization: (request.headers.authorization as string | undefined) ?? null,
    apiKey: (request.headers['x-api-key'] as string | undefined) ?? null,
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk as string;
  return body;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-rate-limit-remaining': '99' });
  response.end(JSON.stringify(body));
}

/** Writes, respecting back-pressure, and stops when the client goes away. */
async function write(response: ServerResponse, chunk: string): Promise<boolean> {
  if (response.destroyed) return false;
  if (!response.write(chunk)) {
    // Whichever comes first removes the other listener: left behind, a 'close' listener per
    // back-pressure wait piled up on one long response (MaxListenersExceededWarning in answer-limits).
    await new Promise<void>((resolve) => {
      const settle = (): void => {
        response.off('drain', settle).off('close', settle);
        resolve();
      };
      response.once('drain', settle).once('close', settle);
    });
  }
  return !response.destroyed;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

function healthSnapshot(): unknown {
  const now = new Date().toISOString();
  return {
    generated_at: now,
    stats: { sources_total: 1, healthy: 1, degraded: 0, down: 0, items_per_hour: 1, signals_24h: 1 },
    oracle: { miss_rate: 0.01, window: '24h', updated_at: now },
    sources: [{ id: 'src_hostile', name: '<img src=x onerror="window.__pwned=1">Hostile wire', kind: 'news', health: 'healthy', cadence: '1h', items_24h: 1, last_item_at: now, url: 'javascript:window.__pwned=1' }],
  };
}

function report(): unknown {
  return {
    id: 'rep_hostile',
    topic: 'Hostile report',
    preset: 'standard',
    status: 'completed',
    created_at: new Date().toISOString(),
    markdown: `# Hostile report\n\n${HOSTILE_MARKDOWN}`,
    citations: hostileCitations().slice(0, 2).map((c) => ({
      id: c.id, slug: `slug-${String(c.id)}`, title: c.title, summary: 's', body: 'b', source_id: 'src_hostile', url: c.url,
      published_at: c.published_at, type: 'news', entities: { retailers: [], segments: [], cities: [], states: [] }, metrics: {},
    })),
    citation_count: 2,
    cost_usd: 0,
  };
}

export async function startHostileService(options: HostileOptions = {}): Promise<HostileService> {
  const requests: RecordedRequest[] = [];
  const elsewhereRequests: RecordedRequest[] = [];

  // The other origin: answers like a service would, so a client that followed shows its text.
  const elsewhereServer = createServer((request, response) => {
    elsewhereRequests.push(record(request));
    void readBody(request).then(() => {
      if (request.url?.startsWith('/api/v1/ask')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(frame('message_start', { message: {} }) + delta('ANSWER FROM ELSEWHERE') + frame('message_stop', {}));
      } else if (request.url?.startsWith('/api/v1/sources/health')) json(response, 200, healthSnapshot());
      else json(response, 404, { error: 'not_found', message: 'Nothing here.' });
    });
  });
  const elsewhereUrl = await listen(elsewhereServer);

  const server = createServer((request, response) => {
    requests.push(record(request));
    void handle(request, response).catch(() => response.destroy());
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (request.method === 'GET' && options.redirectGets) {
      response.writeHead(302, { location: `${elsewhereUrl}${request.url}` });
      response.end();
      return;
    }
    if (request.method === 'POST' && path === '/api/v1/ask') return ask(JSON.parse(body || '{}') as { messages?: Array<{ content: string }> }, response);
    if (request.method === 'GET' && path === '/api/v1/sources/health') return json(response, 200, healthSnapshot());
    if (request.method === 'POST' && (path === '/api/v1/research' || path === '/api/v2/research')) {
      return json(response, 200, { status: 'completed', id: 'rep_hostile', report_url: '/api/v1/reports/rep_hostile', citation_count: 2, cost_usd: 0 });
    }
    if (request.method === 'GET' && path === '/api/v1/reports/rep_hostile') return json(response, 200, report());
    json(response, 404, { error: 'not_found', message: 'Not here.' });
  }

  async function ask(request: { messages?: Array<{ content: string }> }, response: ServerResponse): Promise<void> {
    const question = (request.messages?.at(-1)?.content ?? '').toLowerCase();
    if (question.includes('redirect')) {
      response.writeHead(307, { location: `${elsewhereUrl}/api/v1/ask` });
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-rate-limit-remaining': '99' });
    await write(response, frame('message_start', { message: { id: 'msg_hostile', session_id: 'ses_hostile', session_slug: 'hostile' } }));
    if (question.includes('flood')) {
      const piece = 'x'.repeat(32 * 1024);
      for (let i = 0; i < (options.floodDeltas ?? 2_048); i += 1) if (!(await write(response, delta(piece)))) return;
    } else if (question.includes('many citations')) {
      await write(response, delta('Many citations follow. '));
      for (let i = 0; i < 20_000; i += 1) {
        const id = `sig_${i.toString(16).padStart(16, '0')}`;
        if (!(await write(response, frame('clarity.citation_emitted', { citation: { id, title: `T${i}` } })))) return;
      }
    } else if (question.includes('long field')) {
      await write(response, delta('A long field follows. '));
      await write(response, frame('clarity.citation_emitted', { citation: { id: CITED[0], title: 't'.repeat(1024 * 1024) } }));
    } else {
      for (const citation of hostileCitations()) await write(response, frame('clarity.citation_emitted', { citation }));
      // Small, uneven deltas: every attack is also rendered half-written.
      for (let i = 0; i < HOSTILE_MARKDOWN.length; i += 97) await write(response, delta(HOSTILE_MARKDOWN.slice(i, i + 97)));
    }
    await write(response, frame('message_stop', {}));
    response.end();
  }

  const url = await listen(server);
  return {
    url,
    requests,
    elsewhere: { url: elsewhereUrl, requests: elsewhereRequests },
    async close() {
      for (const s of [server, elsewhereServer]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const service = await startHostileService();
  process.stdout.write(`${JSON.stringify({ event: 'listening', url: service.url, elsewhere: service.elsewhere.url })}\n`);
}
