/**
 * A traffic script over every operation of the OpenAPI document, errors included, sent through
 * a validating proxy. Collects the proxy's violations: the `sl-violations` header Prism adds, and
 * any answer Prism made itself (`application/problem+json`) instead of forwarding.
 */
import type { RunningService } from '../../src/service/server';

export interface TrafficResult {
  violations: string[];
  /** `METHOD /path/{template}` of every operation exercised. */
  operations: Set<string>;
  statuses: Set<number>;
}

export async function runTraffic(proxyUrl: string, service: RunningService): Promise<TrafficResult> {
  const result: TrafficResult = { violations: [], operations: new Set(), statuses: new Set() };
  const jwt = await service.idp.issueToken('integrator@example.com');
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  const send = async (operation: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> => {
    const { json, ...rest } = init;
    const response = await fetch(`${proxyUrl}${path}`, {
      ...rest,
      ...(json !== undefined ? { body: JSON.stringify(json), headers: { 'content-type': 'application/json', ...(rest.headers as Record<string, string>) } } : {}),
    });
    const text = await response.clone().text();
    const violations = response.headers.get('sl-violations');
    if (violations) result.violations.push(`${operation} (${response.status}): ${violations}`);
    if ((response.headers.get('content-type') ?? '').includes('application/problem+json')) result.violations.push(`${operation}: Prism answered ${response.status}: ${text}`);
    result.operations.add(operation);
    result.statuses.add(response.status);
    return response;
  };
  const body = async <T>(response: Response): Promise<T> => (await response.json()) as T;
  const question = { messages: [{ role: 'user', content: 'Which fashion chains opened stores in Pune?' }] };

  // Ask: JSON, streamed, and the errors a caller meets.
  const answer = await body<{ citations: string[]; session_id: string; session_slug: string }>(await send('POST /api/v1/ask', '/api/v1/ask', { method: 'POST', json: question }));
  await (await send('POST /api/v1/ask', '/api/v1/ask', { method: 'POST', json: { ...question, stream: true } })).text();
  await send('POST /api/v1/ask', '/api/v1/ask', { method: 'POST', json: question, headers: { ...bearer(jwt), 'x-api-key': jwt } }); // 400
  await send('POST /api/v1/ask', '/api/v1/ask', { method: 'POST', json: question, headers: bearer('expired') }); // 401
  const long = { messages: Array.from({ length: 10 }, () => ({ role: 'user', content: 'x'.repeat(7_000) })) };
  await send('POST /api/v1/ask', '/api/v1/ask', { method: 'POST', json: long }); // 413: valid by the schema, over 64 KB

  // Sources.
  const health = await send('GET /api/v1/sources/health', '/api/v1/sources/health');
  await send('GET /api/v1/sources/health', '/api/v1/sources/health', { headers: { 'if-none-match': health.headers.get('etag') ?? '' } }); // 304
  await send('GET /api/v1/sources/health', '/api/v1/sources/health', { headers: bearer('expired') }); // 401
  const signalId = answer.citations[0]!;
  await send('GET /api/v1/signals/{id}', `/api/v1/signals/${signalId}`);
  await send('GET /api/v1/signals/{id}', '/api/v1/signals/sig_0000000000000000'); // 404
  const proposal = { url: 'https://example.com/retail-feed', name: 'Example retail feed' };
  for (let i = 0; i < 4; i += 1) await send('POST /api/v1/sources/propose', '/api/v1/sources/propose', { method: 'POST', json: proposal }); // 202 ×3, then 429

  // Sharing and pages.
  const { slug } = await body<{ signal: { slug: string } }>(await fetch(`${service.url}/api/v1/signals/${signalId}`)).then((lookup) => lookup.signal);
  await send('GET /signal/{slug}', `/signal/${slug}`);
  await send('GET /signal/{slug}', '/signal/no-such-signal'); // 404
  await send('POST /api/v1/sessions/{id}/visibility', `/api/v1/sessions/${answer.session_id}/visibility`, { method: 'POST', json: { public: true } });
  await send('GET /ask/{slug}/{turn}', `/ask/${answer.session_slug}/1`);

  // Research, signed in.
  const completed = await body<{ id: string; report_url: string }>(
    await send('POST /api/v1/research', '/api/v1/research', { method: 'POST', json: { topic: 'Quick commerce in Bengaluru' }, headers: bearer(jwt) }),
  );
  await send('POST /api/v2/research', '/api/v2/research', { method: 'POST', json: { topic: 'Zudio fashion stores' }, headers: bearer(jwt) });
  await send('GET /api/v1/research/{id}', `/api/v1/research/${completed.id}`, { headers: bearer(jwt) });
  await send('GET /api/v1/research/{id}', '/api/v1/research/run_missing', { headers: bearer(jwt) }); // 404
  for (const accept of ['application/json', 'text/markdown', 'text/html']) {
    await send('GET /api/v1/research/{id}/report', completed.report_url, { headers: { ...bearer(jwt), accept } });
  }

  // API keys and the identity provider.
  const issued = await body<{ key: string; id: string }>(await send('POST /api/v1/keys', '/api/v1/keys', { method: 'POST', json: {}, headers: bearer(jwt) }));
  await send('POST /api/v1/keys', '/api/v1/keys', { method: 'POST', json: {}, headers: bearer(issued.key) }); // 403
  await send('GET /api/v1/keys', '/api/v1/keys', { headers: { 'x-api-key': issued.key } });
  await send('DELETE /api/v1/keys/{id}', `/api/v1/keys/${issued.id}`, { method: 'DELETE', headers: bearer(jwt) });
  await send('GET /.well-known/jwks.json', '/.well-known/jwks.json');
  await send('POST /api/v1/dev/token', '/api/v1/dev/token', { method: 'POST', json: { email: 'settings@example.com' } });
  await send('POST /api/v1/dev/token', '/api/v1/dev/token', { method: 'POST', json: { email: 'settings@example.com' }, headers: { origin: 'https://example.com' } }); // 403

  // Developer pages and this document.
  await send('GET /developer/keys', '/developer/keys', { headers: bearer(jwt) });
  await send('GET /developer/changelog', '/developer/changelog');
  await send('GET /.well-known/openapi.yaml', '/.well-known/openapi.yaml');
  return result;
}
