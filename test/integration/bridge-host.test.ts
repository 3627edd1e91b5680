/**
 * The bridge host with the real supervisor: the local service runs in its own process, an ask
 * streams through the bridge as coalesced messages, abort works, listeners are released.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamMessage } from '../../src/shared/bridge-contract';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import { serviceEntry } from '../support/built-code';

let dir: string;
let host: BridgeHost;
let supervisor: LocalServiceSupervisor;
let settings: SettingsStore;
const exits: string[] = [];

function collect(streamId: string): { messages: StreamMessage[]; done: Promise<StreamMessage[]>; sink: (m: StreamMessage) => void } {
  const messages: StreamMessage[] = [];
  let finish: (value: StreamMessage[]) => void = () => undefined;
  const done = new Promise<StreamMessage[]>((resolve) => (finish = resolve));
  return {
    messages,
    done,
    sink: (message) => {
      if (message.streamId !== streamId) return;
      messages.push(message);
      if (message.kind === 'done' || message.kind === 'error') finish(messages);
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clarity-bridge-'));
  settings = await SettingsStore.open(dir);
  supervisor = new LocalServiceSupervisor(
    { command: process.execPath, args: [...serviceEntry(), '--no-live'] },
    {
      paceMs: 3,
      // Wired as compose-services wires it.
      onExit: (detail) => {
        exits.push(detail);
        host.localServiceExited(detail);
      },
    },
  );
  host = await createBridgeHost({
    settings, conversations: await ConversationStore.open(dir), library: await LibraryStore.open(dir), dataDir: dir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'bearer'),
    localService: supervisor,
  });
  await host.start();
}, 90_000);
afterAll(async () => {
  await host.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('bridge host over the supervised local service', () => {
  it('starts the local service on a free loopback port and reports it as synthetic', () => {
    expect(host.serviceStatus()).toMatchObject({ mode: 'local', state: 'ready', synthetic: true, baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
  });

  it('streams an answer as open → coalesced events → done', async () => {
    const { sink, done } = collect('stream_one');
    expect(host.startStream('stream_one', 'ask', { question: 'How fast is quick commerce growing in Bengaluru?' }, sink)).toEqual({ ok: true, value: null });
    const messages = await done;
    expect(messages[0]!.kind).toBe('open');
    expect(messages[messages.length - 1]!.kind).toBe('done');
    const batches = messages.filter((m): m is Extract<StreamMessage, { kind: 'events' }> => m.kind === 'events');
    const deltas = batches.flatMap((b) => b.events).filter((e) => e.type === 'text');
    // Coalesced: far fewer messages than the service's deltas, yet several of them.
    expect(batches.length).toBeGreaterThan(3);
    expect(batches.map((b) => b.seq)).toEqual(batches.map((_, i) => i));
    const text = deltas.map((e) => (e.type === 'text' ? e.text : '')).join('');
    expect(text).toContain('## Quick commerce in Bengaluru');
    // 'done' is sent before the conversation's last save; a stream is released only once that
    // save is on disk (ask-stream.ts), so the count reaches 0 a moment after 'done', not with it.
    await expect.poll(() => host.activeStreamCount).toBe(0);
    expect(host.serviceStatus().rateLimitRemaining).toBe(29);
  });

  it('aborts a stream on request and keeps the text that arrived', async () => {
    const { sink, done, messages } = collect('stream_two');
    // Abort on the event itself: the first batch that carries answer text.
    let firstText: () => void = () => undefined;
    const textArrived = new Promise<void>((resolve) => (firstText = resolve));
    const textOf = (list: StreamMessage[]) =>
      list.flatMap((m) => (m.kind === 'events' ? m.events : [])).map((e) => (e.type === 'text' ? e.text : '')).join('');
    host.startStream('stream_two', 'ask', { question: 'Zudio store openings' }, (message) => {
      sink(message);
      if (textOf(messages).length > 0) firstText();
    });
    await textArrived;
    const kept = textOf(messages);
    host.abortStream('stream_two');
    await done;
    // Ended as aborted, marked incomplete because text had arrived, and that text is still there.
    expect(messages[messages.length - 1]).toMatchObject({ kind: 'error', error: { code: 'aborted' }, incomplete: true });
    expect(kept.length).toBeGreaterThan(0);
    expect(textOf(messages).startsWith(kept)).toBe(true);
    await expect.poll(() => host.activeStreamCount).toBe(0); // released once its last save is on disk
  });

  it('tells the app its name and version (the bridge-method recipe of CONTRIBUTING.md)', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    expect(await host.invoke('settings.about', undefined)).toEqual({ ok: true, value: { name: 'Clarity Desktop', version } });
  });

  it('validates stream arguments', () => {
    const sink = () => undefined;
    expect(host.startStream('../bad id', 'ask', { question: 'x' }, sink)).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(host.startStream('stream_three', 'shell', {}, sink)).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(host.startStream('stream_four', 'ask', { question: '   ' }, sink)).toMatchObject({ ok: false, error: { code: 'invalid_argument', message: 'Type a question first.' } });
  });

  it('persists the service setting and rejects URLs that are neither https nor loopback', async () => {
    const bad = await host.invoke('service.set', { mode: 'remote', baseUrl: 'http://retail.example.com' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    const good = await host.invoke('service.set', { mode: 'remote', baseUrl: 'https://retail.example.com' });
    expect(good).toMatchObject({ ok: true, value: { mode: 'remote', baseUrl: 'https://retail.example.com', synthetic: false } });
    expect(supervisor.running).toBe(false);
    expect(JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')).service).toEqual({ mode: 'remote', baseUrl: 'https://retail.example.com' });
    const back = await host.invoke('service.set', { mode: 'local' });
    expect(back).toMatchObject({ ok: true, value: { mode: 'local', state: 'ready' } });
    expect(exits).toEqual([]);
  }, 60_000);

  it('marks the service unreachable when the local process dies', async () => {
    process.kill(supervisor.pid!, 'SIGKILL');
    await expect.poll(() => host.serviceStatus().state, { timeout: 10_000 }).toBe('unreachable');
    expect(exits.length).toBe(1);
  });
});

describe('settings survive a corrupt file', () => {
  it('sets a corrupt settings file aside and starts with defaults', async () => {
    const corruptDir = await mkdtemp(join(tmpdir(), 'clarity-corrupt-'));
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(corruptDir, 'settings.json'), '{"version": 1, "service": {"mo');
    const store = await SettingsStore.open(corruptDir);
    expect(store.get().service).toEqual({ mode: 'local' });
    expect(store.recoveredFrom).toMatch(/settings\.json\.corrupt-\d+$/);
    await rm(corruptDir, { recursive: true, force: true });
  });
});
