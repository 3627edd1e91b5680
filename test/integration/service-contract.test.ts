/** Contract of the local service: errors, limits, headers, health caching, OpenAPI. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthSnapshot } from '../../src/shared/service-schemas';
import type { RunningService } from '../../src/service/server';
import { ask, postJson, startTestService } from '../support/local-service';

let service: RunningService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

const expectErrorBody = async (response: Response, status: number, code: string): Promise<string> => {
  expect(response.status).toBe(status);
  expect(response.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
  const body = (await response.json()) as { error: string; message: string };
  expect(body.error).toBe(code);
  expect(body.message.length).toBeGreaterThan(5);
  return body.message;
};

describe('errors are {error, message} with the status of docs/decisions/design.md §3', () => {
  it('400 for malformed JSON', async () => {
    const response = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages": [' });
    await expectErrorBody(response, 400, 'invalid_request');
  });
  it('400 naming the invalid field', async () => {
    const message = await expectErrorBody(await postJson(`${service.url}/api/v1/ask`, { messages: [{ role: 'assistant', content: 'x' }] }), 400, 'invalid_request');
    expect(message).toContain('messages.0.role');
  });
  it('400 for too many turns', async () => {
    const messages = Array.from({ length: 51 }, () => ({ role: 'user', content: 'x' }));
    expect(await expectErrorBody(await postJson(`${service.url}/api/v1/ask`, { messages }), 400, 'invalid_request')).toContain('messages');
  });
  it('404 for unknown routes and unknown signals', async () => {
    await expectErrorBody(await fetch(`${service.url}/api/v1/nothing-here`), 404, 'not_found');
    await expectErrorBody(await fetch(`${service.url}/api/v1/signals/sig_0000000000000000`), 404, 'not_found');
    await expectErrorBody(await fetch(`${service.url}/signal/no-such-slug`), 404, 'not_found');
  });
  it('413 for bodies over 64 KB', async () => {
    const response = await postJson(`${service.url}/api/v1/ask`, ask('x'.repeat(70 * 1024)));
    await expectErrorBody(response, 413, 'payload_too_large');
  });
  it('415 for a body that is not JSON', async () => {
    const response = await fetch(`${service.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    await expectErrorBody(response, 415, 'unsupported_media_type');
  });
});

describe('the ask limit: 30 per 60 s per IP', () => {
  it('counts down, refuses the 31st with Retry-After, and opens again when the window resets', async () => {
    let now = Date.parse('2026-11-01T10:00:00Z');
    const limited = await startTestService({ now: () => now });
    try {
      const remaining: number[] = [];
      for (let i = 0; i < 30; i += 1) {
        const response = await postJson(`${limited.url}/api/v1/ask`, ask('Zudio stores'));
        expect(response.status).toBe(200);
        remaining.push(Number(response.headers.get('x-rate-limit-remaining')));
        await response.arrayBuffer();
      }
      expect(remaining[0]).toBe(29);
      expect(remaining[29]).toBe(0);
      now += 15_000;
      const refused = await postJson(`${limited.url}/api/v1/ask`, ask('Zudio stores'));
      await expectErrorBody(refused, 429, 'rate_limited');
      expect(refused.headers.get('retry-after')).toBe('45');
      expect(refused.headers.get('x-rate-limit-remaining')).toBe('0');
      // Other routes still carry the header, errors included.
      expect((await fetch(`${limited.url}/nope`)).headers.get('x-rate-limit-remaining')).toBe('0');
      now += 45_000;
      const reopened = await postJson(`${limited.url}/api/v1/ask`, ask('Zudio stores'));
      expect(reopened.status).toBe(200);
      expect(reopened.headers.get('x-rate-limit-remaining')).toBe('29');
    } finally {
      await limited.close();
    }
  });
});

describe('GET /api/v1/sources/health', () => {
  it('serves a snapshot of every source, cacheable for 60 s, revalidating to 304', async () => {
    const response = await fetch(`${service.url}/api/v1/sources/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('max-age=60');
    const etag = response.headers.get('etag');
    expect(etag).toBeTruthy();
    const snapshot = HealthSnapshot.parse(await response.json());
    expect(snapshot.sources.length).toBeGreaterThanOrEqual(140);
    expect(snapshot.stats.sources_total).toBe(snapshot.sources.length);
    expect(snapshot.stats.healthy + snapshot.stats.degraded + snapshot.stats.down).toBe(snapshot.sources.length);
    const again = await fetch(`${service.url}/api/v1/sources/health`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });
});

describe('pages', () => {
  it('renders a signal page with every value escaped', async () => {
    const id = (await (await postJson(`${service.url}/api/v1/ask`, ask('Nykaa beauty Mumbai'))).json()).citations[0] as string;
    const { signal } = (await (await fetch(`${service.url}/api/v1/signals/${id}`)).json()) as { signal: { slug: string; title: string } };
    const page = await fetch(`${service.url}/signal/${signal.slug}`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain(signal.title.replace(/&/g, '&amp;').replace(/'/g, '&#39;'));
    expect(html).not.toMatch(/<script/i);
  });
});

describe('OpenAPI', () => {
  it('serves a document that validates as OpenAPI 3.1 and names every route', async () => {
    const response = await fetch(`${service.url}/.well-known/openapi.yaml`);
    expect(response.headers.get('content-type')).toContain('yaml');
    const document = parseYaml(await response.text()) as { openapi: string; paths: Record<string, unknown>; servers: Array<{ url: string }> };
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers[0]!.url).toBe(service.url);
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // Every route the server registered is documented, with its method.
    expect(service.routes.length).toBeGreaterThan(15);
    for (const route of service.routes) {
      const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
      const operations = document.paths[path] as Record<string, unknown> | undefined;
      expect(operations?.[route.method.toLowerCase()], `${route.method} ${path} is documented`).toBeDefined();
    }
  });
});

describe('the developer area’s form posts document the body errors they send', () => {
  const forms = ['/developer/sign-in', '/developer/sign-out', '/developer/keys', '/developer/keys/key_0f1e2d3c4b5a6978/revoke'];
  it.each(forms)('%s answers 415 for a body that is not a form and 413 for one over 64 KB, both documented', async (path) => {
    const document = parseYaml(await (await fetch(`${service.url}/.well-known/openapi.yaml`)).text()) as { paths: Record<string, { post: { responses: Record<string, unknown> } }> };
    const documented = document.paths[path.replace('key_0f1e2d3c4b5a6978', '{id}')]!.post.responses;
    const wrongType = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'email=a@example.com', redirect: 'manual' });
    expect(wrongType.status).toBe(415);
    expect(documented).toHaveProperty('415');
    const tooLarge = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=${'a'.repeat(70_000)}`, redirect: 'manual' });
    expect(tooLarge.status).toBe(413);
    expect(documented).toHaveProperty('413');
  });
});
