/**
 * Bodies that are not streamed are bounded too (#11 review): a service that sends an endless
 * JSON body, a huge report, or a report citing 20,000 signals cannot make main buffer it,
 * store it or fire a request per marker. Real HTTP on 127.0.0.1, a real temp directory.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ANSWER_LIMITS } from '../../src/main/services/conversations/answer-limits';
import { MAX_JSON_BYTES, MAX_REPORT_BYTES, RetailSignalClient } from '../../src/main/services/service-client/api-client';
import { ResearchService } from '../../src/main/services/research/research-service';
import type { ResearchRunSummary } from '../../src/shared/research';

let server: Server | null = null;
const dirs: string[] = [];

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => handler(request, response));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Writes `total` bytes of `unit` in chunks without a Content-Length (chunked), as a liar would. */
function endless(response: ServerResponse, type: string, prefix: string, unit: string, total: number): void {
  response.writeHead(200, { 'content-type': type });
  response.write(prefix);
  let sent = 0;
  const chunk = unit.repeat(Math.ceil(65_536 / unit.length));
  const pump = (): void => {
    while (sent < total) {
      sent += chunk.length;
      if (!response.write(chunk)) return void response.once('drain', pump);
    }
    response.end();
  };
  response.on('close', () => (sent = total));
  pump();
}

describe('bounded bodies', () => {
  it('a JSON body past the bound (no Content-Length) is refused with a clear error', async () => {
    const url = await serve((_request, response) => endless(response, 'application/json', '{"stats":{},"sources":["', 'x', MAX_JSON_BYTES + 1_048_576));
    const result = await new RetailSignalClient({ baseUrl: url }).getHealth(null);
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'bad_response', message: expect.stringContaining('more than 16 MB in one response') }) });
  });

  it('a declared Content-Length past the bound is refused before reading', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/markdown', 'content-length': String(MAX_REPORT_BYTES + 1) });
      response.write('# A report that never arrives in full');
    });
    const result = await new RetailSignalClient({ baseUrl: url }).getReport('/api/v1/reports/big');
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ message: expect.stringContaining('more than 8 MB in one response') }) });
  });
});

describe('report caps', () => {
  async function runReport(report: unknown): Promise<{ run: ResearchRunSummary; lookups: number; mostInFlight: number; dataDir: string }> {
    let lookups = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    const url = await serve((request, response) => {
      if (request.method === 'POST') {
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end(JSON.stringify({ status: 'completed', id: 'rep_big', report_url: '/api/v1/reports/rep_big' }));
      }
      if (request.url === '/api/v1/reports/rep_big') {
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end(JSON.stringify(report));
      }
      // Signal lookups: answer slowly, counting how many are in flight at once.
      lookups += 1;
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found","message":"no such signal"}');
      }, 5);
    });
    const dataDir = await mkdtemp(join(tmpdir(), 'clarity-report-limits-'));
    dirs.push(dataDir);
    const client = new RetailSignalClient({ baseUrl: url, credential: async () => ({ secret: 'test-secret', presentAs: 'bearer' as const }) });
    let last: ResearchRunSummary | null = null;
    const research = await ResearchService.open({ dataDir, client: () => client, onUpdate: (run) => (last = run) });
    research.start('Everything', 'standard', 'wait', url);
    await expect.poll(() => last?.state, { timeout: 30_000 }).toMatch(/completed|failed/);
    await research.dispose();
    return { run: last!, lookups, mostInFlight, dataDir };
  }

  it('a report citing 20,000 signals is refused, after at most one lookup past the cap, a few at a time', async () => {
    const markers = Array.from({ length: 20_000 }, (_, i) => `[sig_${i.toString(16).padStart(16, '0')}]`).join(' ');
    const { run, lookups, mostInFlight, dataDir } = await runReport({ topic: 'Everything', markdown: `# Everything\n\n${markers}`, citations: [] });
    expect(run.state).toBe('failed');
    expect(run.error).toBe(`The service sent more than ${ANSWER_LIMITS.citations} citations in one report; the report was not kept.`);
    expect(lookups).toBeLessThanOrEqual(ANSWER_LIMITS.citations + 1);
    expect(mostInFlight).toBeLessThanOrEqual(8);
    expect(await readdir(join(dataDir, 'research', 'reports'))).toEqual([]);
  });

  it('a report past the text cap is refused and nothing is stored', async () => {
    const { run, dataDir } = await runReport({ topic: 'Long', markdown: 'word '.repeat(ANSWER_LIMITS.textChars / 5 + 10), citations: [] });
    expect(run.state).toBe('failed');
    expect(run.error).toContain('M characters of report text; the report was not kept.');
    expect(await readdir(join(dataDir, 'research', 'reports'))).toEqual([]);
  });
});
