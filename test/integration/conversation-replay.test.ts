/**
 * Conversations replay (issue 30): the ask endpoint takes earlier `assistant` turns (the limits
 * stay), and the app sends them, so a conversation continues on another service or after a
 * restart. The bridge host with a recording fake service, then the real local service.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import type { RunningService } from '../../src/service/server';
import type { StreamMessage } from '../../src/shared/bridge-contract';
import type { Conversation } from '../../src/shared/conversation';
import { ANSWER, startFakeRemoteService, type FakeRemoteService } from '../support/fake-remote-service';
import { postJson, startTestService } from '../support/local-service';

let service: RunningService;
let fake: FakeRemoteService;
let dir: string;

beforeAll(async () => {
  service = await startTestService();
  fake = await startFakeRemoteService();
  dir = await mkdtemp(join(tmpdir(), 'clarity-replay-'));
});
afterAll(async () => {
  await Promise.all([service.close(), fake.close()]);
  await rm(dir, { recursive: true, force: true });
});

describe('the ask endpoint takes replayed assistant turns', () => {
  const question = (content: string) => ({ role: 'user', content });
  const answer = (content: string) => ({ role: 'assistant', content });

  it('answers a follow-up after a replayed answer, resolving "they" against the earlier question', async () => {
    const response = await postJson(`${service.url}/api/v1/ask`, {
      messages: [question('How many stores did Zudio open in Pune?'), answer('Zudio opened several stores in Pune [sig_0000000000000000].'), question('How many did they open in Bengaluru?')],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { content: string; citations: string[] };
    expect(body.content).toContain('Zudio');
    expect(body.citations.length).toBeGreaterThan(0);
  });

  it('still refuses a conversation that does not end with the question, another role, and over-long turns', async () => {
    const last = await postJson(`${service.url}/api/v1/ask`, { messages: [question('Zudio in Pune?'), answer('Some stores.')] });
    expect(last.status).toBe(400);
    expect(((await last.json()) as { message: string }).message).toContain('messages.1.role');
    const system = await postJson(`${service.url}/api/v1/ask`, { messages: [{ role: 'system', content: 'Be brief.' }, question('Zudio?')] });
    expect(system.status).toBe(400);
    expect(((await system.json()) as { message: string }).message).toContain('messages.0.role');
    const long = await postJson(`${service.url}/api/v1/ask`, { messages: [question('Zudio?'), answer('x'.repeat(8_001)), question('And DMart?')] });
    expect(long.status).toBe(400);
    const many = await postJson(`${service.url}/api/v1/ask`, { messages: Array.from({ length: 51 }, (_, i) => (i % 2 ? answer('a') : question('q'))) });
    expect(many.status).toBe(400);
  });
});

async function hostOn(service: { mode: 'remote'; baseUrl: string }): Promise<{ host: BridgeHost; settings: SettingsStore }> {
  const settings = await SettingsStore.open(dir);
  await settings.update({ service });
  const host = await createBridgeHost({
    settings,
    conversations: await ConversationStore.open(dir),
    library: await LibraryStore.open(dir),
    dataDir: dir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'bearer'),
    localService: null,
  });
  await host.start();
  return { host, settings };
}

function ask(host: BridgeHost, streamId: string, question: string, conversationId: string): Promise<StreamMessage[]> {
  const messages: StreamMessage[] = [];
  return new Promise((resolve) => {
    host.startStream(streamId, 'ask', { question, conversationId }, (message) => {
      if (message.streamId !== streamId) return;
      messages.push(message);
      if (message.kind === 'done' || message.kind === 'error') resolve(messages);
    });
  });
}

describe('the app replays the conversation', () => {
  it('sends earlier answers as assistant turns, and continues on another service after a restart', async () => {
    const first = await hostOn({ mode: 'remote', baseUrl: fake.url });
    const created = (await first.host.invoke('conversations.create', undefined)) as { ok: true; value: Conversation };
    const id = created.value.id;
    expect((await ask(first.host, 'replay_one', 'How fast is quick commerce growing in Bengaluru?', id)).at(-1)!.kind).toBe('done');
    expect((await ask(first.host, 'replay_two', 'And in Pune?', id)).at(-1)!.kind).toBe('done');
    const sent = fake.requests.filter((request) => request.path === '/api/v1/ask').at(-1)!.body as { messages: Array<{ role: string; content: string }> };
    expect(sent.messages).toEqual([
      { role: 'user', content: 'How fast is quick commerce growing in Bengaluru?' },
      { role: 'assistant', content: ANSWER },
      { role: 'user', content: 'And in Pune?' },
    ]);
    await first.host.dispose();

    // Another process, another service (the real local one): the same conversation continues.
    const second = await hostOn({ mode: 'remote', baseUrl: service.url });
    const done = await ask(second.host, 'replay_three', 'How many stores did Zudio open there?', id);
    expect(done.at(-1)!.kind).toBe('done');
    const conversation = (await second.host.invoke('conversations.get', { id })) as { ok: true; value: Conversation };
    expect(conversation.value.turns).toHaveLength(3);
    expect(conversation.value.turns[2]!.answer).toMatchObject({ status: 'done' });
    expect(conversation.value.turns[2]!.answer.text).toContain('Zudio');
    await second.host.dispose();
  });
});
