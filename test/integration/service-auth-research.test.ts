/** Authentication, research (v1 and v2), proposals, sharing and faults of the local service. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DevIdentityProvider } from '../../src/service/auth';
import type { RunningService } from '../../src/service/server';
import { Report, ResearchQueuedResponse, ResearchRun, ResearchV1Response } from '../../src/shared/service-schemas';
import { RetailSignalClient } from '../../src/main/services/service-client/api-client';
import { ask, parseSseText, postJson, startTestService } from '../support/local-service';

let service: RunningService;
let now = Date.parse('2026-11-21T09:00:00Z');
let jwt: string;

beforeAll(async () => {
  service = await startTestService({ now: () => now, research: { durationMs: 150, queueMs: 50 }, faults: { enabled: true } });
  const issued = await postJson(`${service.url}/api/v1/keys`, {});
  expect(issued.status).toBe(401);
  // Tokens come from the service's own identity provider (same key, in memory for tests).
  jwt = await tokenFor('analyst@example.com');
});
afterAll(() => service.close());

async function tokenFor(email: string, ttlS?: number): Promise<string> {
  return service.idp.issueToken(email, ttlS, now);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('authentication', () => {
  it('publishes the JWKS of its ES256 identity provider', async () => {
    const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kty: string; crv: string; alg: string }> };
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
  });

  it('refuses research anonymously with 401 naming the credential needed', async () => {
    const response = await postJson(`${service.url}/api/v1/research`, { topic: 'Quick commerce in Bengaluru', preset: 'standard' });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'unauthorized', message: expect.stringContaining('bearer JWT or an API key') });
  });

  it('refuses a tampered, foreign or expired JWT with 401, never treating it as anonymous', async () => {
    const tampered = `${jwt.slice(0, -4)}AAAA`;
    for (const token of [tampered, 'not.a.jwt']) {
      const response = await postJson(`${service.url}/api/v1/ask`, ask('Zudio'), bearer(token));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="retail-signal", error="invalid_token"/);
      expect(((await response.json()) as { message: string }).message).toMatch(/not valid/);
    }
    // A token from another data directory's key says so.
    const foreign = await postJson(`${service.url}/api/v1/ask`, ask('Zudio'), bearer(await (await DevIdentityProvider.open(null)).issueToken('x@example.com')));
    expect(foreign.status).toBe(401);
    expect(((await foreign.json()) as { message: string }).message).toMatch(/signed by a different key: was it issued by another data directory\?/);
    const shortLived = await tokenFor('brief@example.com', 60);
    now += 120_000;
    const expired = await postJson(`${service.url}/api/v1/ask`, ask('Zudio'), bearer(shortLived));
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { message: string }).message).toMatch(/expired/);
  });

  it('issues an API key once, accepts it as Bearer and as X-API-Key, and refuses it once revoked', async () => {
    const issued = await postJson(`${service.url}/api/v1/keys`, {}, bearer(jwt));
    expect(issued.status).toBe(201);
    const { key, id } = (await issued.json()) as { key: string; id: string };
    expect(key).toMatch(/^ck_[A-Za-z0-9]{32}$/);
    const listed = (await (await fetch(`${service.url}/api/v1/keys`, { headers: bearer(jwt) })).json()) as { keys: Array<Record<string, unknown>> };
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(listed.keys[0]).toMatchObject({ id, last4: key.slice(-4), revoked_at: null });
    const page = await (await fetch(`${service.url}/developer/keys`, { headers: { 'x-api-key': key } })).text();
    expect(page).toContain(`…${key.slice(-4)}`);
    expect(page).not.toContain(key);

    for (const headers of [bearer(key), { 'x-api-key': key }]) {
      const research = await postJson(`${service.url}/api/v1/research`, { topic: 'Tanishq jewellery in Kerala' }, headers);
      expect(research.status).toBe(200);
    }
    // An API key cannot mint more keys: 403.
    const minted = await postJson(`${service.url}/api/v1/keys`, {}, { 'x-api-key': key });
    expect(minted.status).toBe(403);
    expect(await minted.json()).toEqual({ error: 'forbidden', message: expect.stringContaining('JWT') });
    const revoked = await fetch(`${service.url}/api/v1/keys/${id}`, { method: 'DELETE', headers: bearer(jwt) });
    expect(revoked.status).toBe(200);
    const refused = await postJson(`${service.url}/api/v1/ask`, ask('Zudio'), { 'x-api-key': key });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { message: string }).message).toMatch(/revoked/);
  });
});

describe('research', () => {
  it('v1 completes synchronously and serves a cited report as JSON, markdown and HTML', async () => {
    const response = await postJson(`${service.url}/api/v1/research`, { topic: 'Quick commerce in Bengaluru', preset: 'standard' }, bearer(jwt));
    expect(response.status).toBe(200);
    const completed = ResearchV1Response.parse(await response.json());
    expect(completed.citation_count).toBeGreaterThanOrEqual(5);
    // Written locally by the extractive composer: nothing was bought, and the report says so.
    expect(completed.cost_usd).toBe(0);
    const report = Report.parse(await (await fetch(new URL(completed.report_url, service.url), { headers: bearer(jwt) })).json());
    for (const heading of ['## Overview', '## Key developments', '## Players involved', '## Key figures', '## Risks', '## Outlook']) {
      expect(report.markdown).toContain(heading);
    }
    for (const signal of report.citations) expect(report.markdown).toContain(`[${signal.id}]`);
    expect(report.citation_count).toBe(completed.citation_count);
    expect(report.cost_basis).toBe('local');
    const markdown = await fetch(new URL(completed.report_url, service.url), { headers: { ...bearer(jwt), accept: 'text/markdown' } });
    expect(markdown.headers.get('content-type')).toContain('text/markdown');
    expect(await markdown.text()).toBe(report.markdown);
    const html = await (await fetch(new URL(completed.report_url, service.url), { headers: { ...bearer(jwt), accept: 'text/html' } })).text();
    expect(html).not.toMatch(/<script/i);
    // Another user cannot read it.
    const other = await fetch(new URL(completed.report_url, service.url), { headers: bearer(await tokenFor('other@example.com')) });
    expect(other.status).toBe(404);
  });

  it('v2 answers 202 queued at once and moves through running to completed', async () => {
    const response = await postJson(`${service.url}/api/v2/research`, { topic: 'Zudio fashion stores', preset: 'standard' }, bearer(await tokenFor('v2@example.com')));
    expect(response.status).toBe(202);
    const queued = ResearchQueuedResponse.parse(await response.json());
    // The 202 itself says queued (the schema's literal); a worker may take the run before the first
    // poll, so the polls are only asked to see it running before it completes.
    const seen = new Set<string>([queued.status]);
    const read = async () => ResearchRun.parse(await (await fetch(new URL(queued.status_url, service.url), { headers: bearer(await tokenFor('v2@example.com')) })).json());
    let run = await read();
    // Polled until the run says it completed (a deadline, not a count of polls: a busy machine is slower).
    await vi.waitUntil(async () => {
      if (run.status === 'completed') return true;
      seen.add(run.status);
      run = await read();
      return run.status === 'completed';
    }, { timeout: 30_000, interval: 10 });
    expect(seen).toEqual(new Set(['queued', 'running']));
    expect(run).toMatchObject({ status: 'completed', report_url: expect.stringContaining(run.id), citation_count: expect.any(Number) });
  });

  it('fails a run that has nothing to report on, saying why', async () => {
    const response = await postJson(`${service.url}/api/v1/research`, { topic: 'qwxz vbnm' }, bearer(await tokenFor('empty@example.com')));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/Too few signals/);
  });

  it('limits research to 5 per 5 minutes per user, with Retry-After', async () => {
    const token = await tokenFor('limits@example.com');
    for (let i = 0; i < 5; i += 1) {
      const response = await postJson(`${service.url}/api/v2/research`, { topic: 'DMart grocery' }, bearer(token));
      expect(response.status).toBe(202);
      expect(response.headers.get('x-rate-limit-remaining')).toBe(String(4 - i));
    }
    const refused = await postJson(`${service.url}/api/v2/research`, { topic: 'DMart grocery' }, bearer(token));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Per user: another user is unaffected.
    expect((await postJson(`${service.url}/api/v2/research`, { topic: 'DMart grocery' }, bearer(await tokenFor('someone@example.com')))).status).toBe(202);
    now += 5 * 60_000;
    expect((await postJson(`${service.url}/api/v2/research`, { topic: 'DMart grocery' }, bearer(token))).status).toBe(202);
  });

  it('reads research through the API client', async () => {
    const client = new RetailSignalClient({ baseUrl: service.url, credential: async () => ({ secret: jwt, presentAs: 'bearer' }) });
    expect(client.baseUrl).toBe(service.url);
  });
});

describe('source proposals', () => {
  it('accepts a valid proposal with 202 and limits to 3 per hour', async () => {
    const body = { url: 'https://newsroom.example.in/retail', name: 'Example newsroom', kind: 'company_newsroom', rationale: 'Covers store openings.' };
    for (let i = 0; i < 3; i += 1) {
      const response = await postJson(`${service.url}/api/v1/sources/propose`, body);
      expect(response.status).toBe(202);
      const received = (await response.json()) as { proposal_id: string; status_url: string };
      expect(received).toEqual({ status: 'received', proposal_id: expect.stringMatching(/^prp_[0-9a-f]{16}$/), status_url: `/api/v1/sources/proposals/${received.proposal_id}` });
      // Stored, not discarded: the proposer reads its status (pending until the administrator decides).
      expect(await (await fetch(`${service.url}${received.status_url}`)).json()).toMatchObject({ id: received.proposal_id, url: body.url, status: 'pending', reason: null });
    }
    const refused = await postJson(`${service.url}/api/v1/sources/propose`, body);
    expect(refused.status).toBe(429);
  });

  it('names the bad field of an invalid proposal', async () => {
    const response = await postJson(`${service.url}/api/v1/sources/propose`, { url: 'javascript:alert(1)' }, bearer(await tokenFor('p@example.com')));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain('`url`');
  });
});

describe('sharing a session', () => {
  it('serves /ask/{slug}/{turn} only once the owner makes the session public', async () => {
    const token = await tokenFor('share@example.com');
    const answer = (await (await postJson(`${service.url}/api/v1/ask`, ask('Kalyan Jewellers <b>in</b> Kochi'), bearer(token))).json()) as { session_id: string; session_slug: string };
    expect((await fetch(`${service.url}/ask/${answer.session_slug}/1`)).status).toBe(404);
    const stranger = await postJson(`${service.url}/api/v1/sessions/${answer.session_id}/visibility`, { public: true }, bearer(await tokenFor('stranger@example.com')));
    expect(stranger.status).toBe(404);
    const shared = await postJson(`${service.url}/api/v1/sessions/${answer.session_id}/visibility`, { public: true }, bearer(token));
    expect(await shared.json()).toMatchObject({ public: true, url: `/ask/${answer.session_slug}/1` });
    const page = await fetch(`${service.url}/ask/${answer.session_slug}/1`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Kalyan Jewellers &lt;b&gt;in&lt;/b&gt; Kochi');
    expect((await fetch(`${service.url}/ask/${answer.session_slug}/2`)).status).toBe(404);
  });

  it('serves the changelog page', async () => {
    expect(await (await fetch(`${service.url}/developer/changelog`)).text()).toContain('/api/v2/research');
  });
});

describe('fault injection', () => {
  it('answers 500 and 503 with the error body', async () => {
    const internal = await postJson(`${service.url}/api/v1/ask`, ask('Zudio [fault:500]'));
    expect(internal.status).toBe(500);
    expect(await internal.json()).toMatchObject({ error: 'internal' });
    expect((await postJson(`${service.url}/api/v1/ask`, ask('Zudio [fault:503]'))).status).toBe(503);
  });

  it('drops a stream after N bytes', async () => {
    const response = await postJson(`${service.url}/api/v1/ask`, ask('Zudio [fault:drop-after=1500]', { stream: true }));
    let received = 0;
    const reader = response.body!.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.length;
      }
    } catch {
      // The connection was cut: that is the fault.
    }
    expect(received).toBe(1500);
  });

  it('sends a malformed frame the client skips, and the answer still completes', async () => {
    const response = await postJson(`${service.url}/api/v1/ask`, ask('Zudio [fault:malformed]', { stream: true }));
    const text = await response.text();
    expect(text).toContain('"type":"text_del\n');
    expect(() => parseSseText(text)).toThrow();
    const client = new RetailSignalClient({ baseUrl: service.url });
    const result = await client.askStream({ messages: [{ role: 'user', content: 'Zudio [fault:malformed]' }] }, { onEvent: () => undefined });
    expect(result).toEqual({ ok: true });
  });

  it('stalls a stream, which the client times out with its partial text kept', async () => {
    const client = new RetailSignalClient({ baseUrl: service.url, stallTimeoutMs: 300 });
    let text = '';
    const result = await client.askStream({ messages: [{ role: 'user', content: 'Zudio [fault:stall]' }] }, { onEvent: (e) => (text += e.type === 'text' ? e.text : '') });
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'timeout', incomplete: true }) });
    expect(text.length).toBeGreaterThan(10);
  });

  it('fails mid-stream with an error event, then ends; the client keeps the partial text', async () => {
    const raw = await (await postJson(`${service.url}/api/v1/ask`, ask('Zudio [fault:stream-error]', { stream: true }))).text();
    const frames = parseSseText(raw);
    expect(frames[frames.length - 1]).toMatchObject({ event: 'error', data: { error: { error: 'unavailable' } } });
    expect(frames.some((frame) => frame.event === 'message_stop')).toBe(false);
    const client = new RetailSignalClient({ baseUrl: service.url });
    let text = '';
    const result = await client.askStream({ messages: [{ role: 'user', content: 'Zudio [fault:stream-error]' }] }, { onEvent: (e) => (text += e.type === 'text' ? e.text : '') });
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'unavailable', incomplete: true, message: expect.stringContaining('mid-answer') }) });
    expect(text.length).toBeGreaterThan(10);
  });

  it('is off unless the service was started with it', async () => {
    const plain = await startTestService();
    try {
      expect((await postJson(`${plain.url}/api/v1/ask`, ask('Zudio [fault:500]'))).status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});
