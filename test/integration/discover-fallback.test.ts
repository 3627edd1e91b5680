/**
 * Citation ids resolve through Discover when the service lacks the `GET /api/v1/signals/{id}`
 * extension (signals.get's fallback, src/main/bridge/handlers/signals.ts). The real local
 * service sits behind a loopback proxy that answers that route 404 the way a service without
 * the extension would, and passes everything else through (SSE included) untouched.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskEvent, SignalDetails, StreamMessage } from '../../src/shared/bridge-contract';
import type { Conversation } from '../../src/shared/conversation';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import type { RunningService } from '../../src/service/server';
import { startTestService } from '../support/local-service';

let service: RunningService;
let proxy: Server;
let proxyUrl: string;
let host: BridgeHost;
let dir: string;
/** Every request the app made through the proxy, with the status it got. */
const seen: Array<{ method: string; path: string; status: number }> = [];

beforeAll(async () => {
  service = await startTestService();
  const upstream = new URL(service.url);
  proxy = createServer((req, res) => {
    const path = req.url ?? '/';
    if (req.method === 'GET' && path.startsWith('/api/v1/signals/')) {
      seen.push({ method: 'GET', path, status: 404 });
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_found', message: 'No such route.' }));
      return;
    }
    const forwarded = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      seen.push({ method: req.method ?? 'GET', path, status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  dir = await mkdtemp(join(tmpdir(), 'clarity-discover-fallback-'));
  const settings = await SettingsStore.open(dir);
  await settings.update({ service: { mode: 'remote', baseUrl: proxyUrl } });
  host = await createBridgeHost({
    settings,
    conversations: await ConversationStore.open(dir),
    library: await LibraryStore.open(dir),
    dataDir: dir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => settings.get().credentialPresentation),
    localService: null,
  });
  await host.start();
}, 60_000);

afterAll(async () => {
  await host.dispose();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

/** Asks through the bridge and returns the ids the answer cited. */
async function citedIds(question: string): Promise<string[]> {
  const result = await host.invoke('conversations.create', undefined);
  if (!result.ok) throw new Error(result.error.message);
  const created = result as { ok: true; value: Conversation };
  const events: AskEvent[] = [];
  const final = await new Promise<StreamMessage>((resolve, reject) => {
    const started = host.startStream('fallback_ask', 'ask', { question, conversationId: created.value.id }, (message) => {
      if (message.kind === 'events') events.push(...message.events);
      if (message.kind === 'done' || message.kind === 'error') resolve(message);
    });
    if (!started.ok) reject(new Error(started.error.message));
  });
  expect(final.kind).toBe('done');
  // Main saves the finished turn after the stream ends; wait for it so cleanup does not race the write.
  const saved = () => readFile(join(dir, 'conversations', `${created.value.id}.json`), 'utf8').then((text) => text.includes('"status": "done"') || text.includes('"status":"done"'), () => false);
  await expect.poll(saved).toBe(true);
  return events.filter((e): e is Extract<AskEvent, { type: 'citation' }> => e.type === 'citation').map((e) => e.citation.id);
}

describe('a citation id on a service without the signal-lookup extension', () => {
  it('resolves through /api/v1/discover?id= to the signal, its page and its source health', async () => {
    const [id] = await citedIds('How fast is quick commerce growing in Bengaluru?');
    expect(id).toMatch(/^sig_[0-9a-f]{16}$/);
    const truth = service.store.getSignal(id!)!;

    const result = await host.invoke('signals.get', { id: id! });
    expect(result.ok).toBe(true);
    const details = (result as { ok: true; value: SignalDetails }).value;
    expect(details.signal).toMatchObject({ id, title: truth.title, slug: truth.slug, source_id: truth.source_id });
    expect(details.source.id).toBe(truth.source_id);
    expect(['healthy', 'degraded', 'down']).toContain(details.source.health);
    // The slug Discover gave opens the signal's page on the service.
    expect((await fetch(`${proxyUrl}/signal/${encodeURIComponent(details.signal.slug!)}`)).status).toBe(200);

    // It asked the extension first, got 404, then Discover by id.
    const lookups = seen.filter((r) => r.path.startsWith(`/api/v1/signals/${id}`) || r.path.startsWith('/api/v1/discover'));
    expect(lookups.map((r) => [r.path.split('?')[0], r.status])).toEqual(expect.arrayContaining([[`/api/v1/signals/${id}`, 404], ['/api/v1/discover', 200]]));
    expect(seen.some((r) => r.path.startsWith('/api/v1/discover') && new URL(r.path, proxyUrl).searchParams.get('id') === id)).toBe(true);
  });

  it('still answers not found for an id neither route knows', async () => {
    const result = await host.invoke('signals.get', { id: 'sig_0000000000000000' });
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});
