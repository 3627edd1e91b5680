/**
 * A traffic script over every operation of the OpenAPI document, errors included, sent through
 * a validating proxy. Collects the proxy's violations: the `sl-violations` header Prism adds, and
 * any answer Prism made itself (`application/problem+json`) instead of forwarding.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunningService } from '../../src/service/server';

export interface TrafficResult {
  violations: string[];
  /** `METHOD /path/{template}` of every operation exercised. */
  operations: Set<string>;
  statuses: Set<number>;
  /** Operations sent to the service directly (they only redirect), with the status they got. */
  direct: Map<string, number>;
}

export async function runTraffic(proxyUrl: string, service: RunningService, adminSecret: string): Promise<TrafficResult> {
  const result: TrafficResult = { violations: [], operations: new Set(), statuses: new Set(), direct: new Map() };
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
  const proposalIds: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    const proposed = await send('POST /api/v1/sources/propose', '/api/v1/sources/propose', { method: 'POST', json: proposal }); // 202 ×3, then 429
    if (proposed.status === 202) proposalIds.push((await body<{ proposal_id: string }>(proposed)).proposal_id);
  }

  // The supervising app's administrator token: a wrong secret, the right one once, then spent.
  await send('POST /api/v1/dev/admin-token', '/api/v1/dev/admin-token', { method: 'POST', headers: { 'x-clarity-admin-secret': 'not-the-secret' } }); // 403
  await send('POST /api/v1/dev/admin-token', '/api/v1/dev/admin-token', { method: 'POST', headers: { 'x-clarity-admin-secret': adminSecret } }); // 201
  await send('POST /api/v1/dev/admin-token', '/api/v1/dev/admin-token', { method: 'POST', headers: { 'x-clarity-admin-secret': adminSecret } }); // 403: spent

  // Feed sources, as the administrator: a folder source (no network needed).
  const admin = bearer(await service.idp.issueToken('admin@example.com', 3_600, Date.now(), { role: 'admin' }));
  const folder = await mkdtemp(join(tmpdir(), 'clarity-traffic-folder-'));
  const empty = await mkdtemp(join(tmpdir(), 'clarity-traffic-empty-'));
  await writeFile(join(folder, 'zudio.md'), '# Zudio opens 40 stores in Tamil Nadu\n\nTrent’s Zudio opened 40 stores in Chennai.');
  const definition = { name: 'My notes', kind: 'folder', url: pathToFileURL(folder).href, cadence_s: 3_600 };
  await send('GET /api/v1/sources', '/api/v1/sources', { headers: admin });
  await send('GET /api/v1/sources', '/api/v1/sources', { headers: bearer(jwt) }); // 403
  await send('POST /api/v1/sources', '/api/v1/sources?dry_run=true', { method: 'POST', json: definition, headers: admin });
  const created = await body<{ source: { id: string } }>(await send('POST /api/v1/sources', '/api/v1/sources', { method: 'POST', json: definition, headers: admin }));
  await send('POST /api/v1/sources', '/api/v1/sources', { method: 'POST', json: { ...definition, url: pathToFileURL(empty).href }, headers: admin }); // 422
  await send('GET /api/v1/sources/{id}', `/api/v1/sources/${created.source.id}`, { headers: admin });
  await send('GET /api/v1/sources/{id}', '/api/v1/sources/no-such-source', { headers: admin }); // 404
  await send('PATCH /api/v1/sources/{id}', `/api/v1/sources/${created.source.id}`, { method: 'PATCH', json: { paused: true }, headers: admin });
  await send('GET /api/v1/sources/proposals', '/api/v1/sources/proposals', { headers: admin });
  await send('GET /api/v1/sources/proposals/{id}', `/api/v1/sources/proposals/${proposalIds[0]}`);
  await send('POST /api/v1/sources/proposals/{id}/reject', `/api/v1/sources/proposals/${proposalIds[0]}/reject`, { method: 'POST', json: { reason: 'Duplicates an existing source.' }, headers: admin });
  await send('POST /api/v1/sources/proposals/{id}/accept', `/api/v1/sources/proposals/${proposalIds[1]}/accept`, { method: 'POST', json: { kind: 'rss', cadence_s: 86_400 }, headers: admin });
  await send('DELETE /api/v1/sources/{id}', `/api/v1/sources/${created.source.id}`, { method: 'DELETE', headers: admin });
  await rm(folder, { recursive: true, force: true });
  await rm(empty, { recursive: true, force: true });

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
  await send('GET /api/v2/research/{id}', `/api/v2/research/${completed.id}`, { headers: bearer(jwt) });
  // Schedules: created, listed, run now (a normal v2 run), deleted.
  const schedule = await body<{ id: string }>(
    await send('POST /api/v2/research/schedules', '/api/v2/research/schedules', { method: 'POST', json: { topic: 'Quick commerce in tier-2 cities', preset: 'standard', every: 'weekly' }, headers: bearer(jwt) }),
  );
  await send('GET /api/v2/research/schedules', '/api/v2/research/schedules', { headers: bearer(jwt) });
  await send('POST /api/v2/research/schedules/{id}/run', `/api/v2/research/schedules/${schedule.id}/run`, { method: 'POST', json: {}, headers: bearer(jwt) });
  await send('PATCH /api/v2/research/schedules/{id}', `/api/v2/research/schedules/${schedule.id}`, { method: 'PATCH', json: { every: 'daily', at: '03:30' }, headers: bearer(jwt) });
  await send('DELETE /api/v2/research/schedules/{id}', `/api/v2/research/schedules/${schedule.id}`, { method: 'DELETE', headers: bearer(jwt) });

  // API keys and the identity provider.
  const issued = await body<{ key: string; id: string }>(await send('POST /api/v1/keys', '/api/v1/keys', { method: 'POST', json: {}, headers: bearer(jwt) }));
  await send('POST /api/v1/keys', '/api/v1/keys', { method: 'POST', json: {}, headers: bearer(issued.key) }); // 403
  await send('GET /api/v1/keys', '/api/v1/keys', { headers: { 'x-api-key': issued.key } });
  await send('DELETE /api/v1/keys/{id}', `/api/v1/keys/${issued.id}`, { method: 'DELETE', headers: bearer(jwt) });
  await send('GET /.well-known/jwks.json', '/.well-known/jwks.json');
  await send('POST /api/v1/dev/token', '/api/v1/dev/token', { method: 'POST', json: { email: 'settings@example.com' } });
  await send('POST /api/v1/dev/token', '/api/v1/dev/token', { method: 'POST', json: { email: 'settings@example.com' }, headers: { origin: 'https://example.com' } }); // 403

  // Discover, follow, predict, webhooks.
  await send('GET /api/v1/discover', `/api/v1/discover?q=${encodeURIComponent('quick commerce Bengaluru')}&limit=5`);
  await send('GET /api/v1/discover', `/api/v1/discover?id=${signalId}`);
  await send('GET /api/v1/entities', `/api/v1/entities?q=${encodeURIComponent('Zudio')}`);
  const follow = await body<{ id: string }>(await send('POST /api/v1/follow', '/api/v1/follow', { method: 'POST', json: { target: { type: 'entity', value: 'Zudio' } }, headers: bearer(jwt) }));
  await send('GET /api/v1/follow', '/api/v1/follow', { headers: bearer(jwt) });
  await send('GET /api/v1/follow/feed', '/api/v1/follow/feed', { headers: bearer(jwt) });
  await send('DELETE /api/v1/follow/{id}', `/api/v1/follow/${follow.id}`, { method: 'DELETE', headers: bearer(jwt) });
  await send('POST /api/v1/predict', '/api/v1/predict', { method: 'POST', json: { entity: 'DMart', metric: 'revenue_cr', horizon: 'next_quarter' }, headers: bearer(jwt) });
  await send('GET /api/v1/predict/metrics', `/api/v1/predict/metrics?entity=${encodeURIComponent('DMart')}`);
  const hook = await send('POST /api/v1/webhooks', '/api/v1/webhooks', { method: 'POST', json: { url: 'https://example.com/hooks/clarity', events: ['research.completed'] }, headers: bearer(jwt) });
  const hookId = hook.status === 201 ? (await body<{ id: string }>(hook)).id : 'whk_missing';
  await send('GET /api/v1/webhooks', '/api/v1/webhooks', { headers: bearer(jwt) });
  await send('GET /api/v1/webhooks/{id}/deliveries', `/api/v1/webhooks/${hookId}/deliveries`, { headers: bearer(jwt) });
  await send('POST /api/v1/webhooks/{id}/rotate-secret', `/api/v1/webhooks/${hookId}/rotate-secret`, { method: 'POST', json: {}, headers: bearer(jwt) });
  await send('POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', `/api/v1/webhooks/${hookId}/deliveries/dlv_missing/redeliver`, { method: 'POST', json: {}, headers: bearer(jwt) }); // 404
  await send('DELETE /api/v1/webhooks/{id}', `/api/v1/webhooks/${hookId}`, { method: 'DELETE', headers: bearer(jwt) });

  // The signed-in developer area: a session cookie and the CSRF token of the rendered form.
  const home = await send('GET /developer', '/developer');
  const cookie = (home.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrfOf = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const form = (fields: Record<string, string>, session: string): RequestInit => ({
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session },
    body: new URLSearchParams(fields).toString(),
  });
  // Prism's forwarder follows redirects, so a 303 cannot pass through it: the operations that
  // only redirect go straight to the service (their status is checked by the test).
  const direct = async (operation: string, path: string, init: RequestInit): Promise<Response> => {
    const response = await fetch(`${service.url}${path}`, init);
    result.direct.set(operation, response.status);
    return response;
  };
  const signedIn = await direct('POST /developer/sign-in', '/developer/sign-in', form({ csrf: csrfOf(await home.text()), email: 'pages@example.com', tier: 'free' }, cookie));
  const session = (signedIn.headers.get('set-cookie') ?? cookie).split(';')[0]!;
  const keysPage = await (await fetch(`${service.url}/developer/keys`, { headers: { cookie: session } })).text();
  const csrf = csrfOf(keysPage);
  const issuedPage = await (await send('POST /developer/keys', '/developer/keys', form({ csrf }, session))).text();
  const pageKeyId = /\/developer\/keys\/([^/"]+)\/revoke/.exec(issuedPage)?.[1] ?? /\/developer\/keys\/([^/"]+)\/revoke/.exec(await (await fetch(`${service.url}/developer/keys`, { headers: { cookie: session } })).text())?.[1] ?? 'key_missing';
  await direct('POST /developer/keys/{id}/revoke', `/developer/keys/${pageKeyId}/revoke`, form({ csrf }, session));
  await send('GET /developer/webhooks', '/developer/webhooks', { headers: { cookie: session } });
  await direct('POST /developer/sign-out', '/developer/sign-out', form({ csrf }, session));

  // Developer pages and this document.
  await send('GET /developer/keys', '/developer/keys', { headers: bearer(jwt) });
  await send('GET /developer/changelog', '/developer/changelog');
  await send('GET /developer/changelog.json', '/developer/changelog.json');
  await send('GET /developer/changelog.atom', '/developer/changelog.atom');
  await send('GET /.well-known/openapi.yaml', '/.well-known/openapi.yaml');
  return result;
}
