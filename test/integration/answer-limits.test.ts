/**
 * A service that bloats: the bridge host, pointed at the lying service over real HTTP, ends an
 * answer past its caps with a clear "the service sent more than …" error and keeps (and
 * saves) what arrived before the cap.
 */
import { mkdtemp, rm, stat, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { AnswerLimiter, ANSWER_LIMITS } from '../../src/main/services/conversations/answer-limits';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import type { StreamMessage } from '../../src/shared/bridge-contract';
import { startHostileService, type HostileService } from '../support/hostile-service';

let dir: string;
let host: BridgeHost;
let conversations: ConversationStore;
let hostile: HostileService;

beforeAll(async () => {
  hostile = await startHostileService();
  dir = await mkdtemp(join(tmpdir(), 'clarity-limits-'));
  const settings = await SettingsStore.open(dir);
  await settings.update({ service: { mode: 'remote', baseUrl: hostile.url } });
  conversations = await ConversationStore.open(dir);
  host = await createBridgeHost({
    settings, conversations, library: await LibraryStore.open(dir), dataDir: dir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'bearer'),
    localService: null,
  });
  await host.start();
});
afterAll(async () => {
  await host.dispose();
  await hostile.close();
  await rm(dir, { recursive: true, force: true });
});

async function ask(question: string): Promise<{ end: StreamMessage; text: string; conversationId: string }> {
  const conversation = await conversations.create();
  const streamId = `stream_${Math.random().toString(36).slice(2, 10)}`;
  let text = '';
  const end = await new Promise<StreamMessage>((resolve) => {
    const started = host.startStream(streamId, 'ask', { question, conversationId: conversation.id }, (message) => {
      if (message.kind === 'events') for (const event of message.events) if (event.type === 'text') text += event.text;
      if (message.kind === 'done' || message.kind === 'error') resolve(message);
    });
    expect(started).toEqual({ ok: true, value: null });
  });
  await expect.poll(() => host.activeStreamCount).toBe(0); // released
  await host.streamsSettled(); // and its conversation saved (the test reads the file)
  return { end, text, conversationId: conversation.id };
}

describe('caps on one answer from a service that bloats', () => {
  it('64 MB of valid deltas: ends past 2 million characters with a clear error; the first 2 million are kept and saved', async () => {
    const { end, text, conversationId } = await ask('flood me');
    expect(end).toMatchObject({ kind: 'error', incomplete: true, error: { code: 'payload_too_large', message: expect.stringContaining('The service sent more than 2 million characters of answer text') } });
    expect(text.length).toBe(ANSWER_LIMITS.textChars);
    const turn = conversations.get(conversationId)!.turns[0]!;
    expect(turn.answer.status).toBe('incomplete');
    expect(turn.answer.text.length).toBe(ANSWER_LIMITS.textChars);
    expect(turn.answer.error?.message).toContain('sent more than');
    // What is stored is bounded too: about the cap, not 64 MB.
    const files = await readdir(join(dir, 'conversations'));
    const sizes = await Promise.all(files.map(async (file) => (await stat(join(dir, 'conversations', file))).size));
    expect(Math.max(...sizes)).toBeLessThan(ANSWER_LIMITS.textChars * 1.5);
  });

  it('20,000 citations: ends at the citation cap, with the citations so far', async () => {
    const { end, conversationId } = await ask('many citations please');
    expect(end).toMatchObject({ kind: 'error', error: { message: expect.stringContaining(`more than ${ANSWER_LIMITS.citations} citations`) } });
    expect(conversations.get(conversationId)!.turns[0]!.answer.citations).toHaveLength(ANSWER_LIMITS.citations);
  });

  it('a 1 MB citation title: ends with the field named', async () => {
    const { end, text } = await ask('one long field');
    expect(end).toMatchObject({ kind: 'error', incomplete: true, error: { message: expect.stringContaining('in one field (citation.title)') } });
    expect(text).toBe('A long field follows. ');
  });
});

describe('AnswerLimiter', () => {
  it('counts events of every kind and cuts the delta that crosses the text cap', () => {
    const limiter = new AnswerLimiter({ textChars: 10, citations: 2, events: 4, fieldChars: 5 });
    expect(limiter.admit({ type: 'text', text: '12345678' })).toEqual({ ok: true, event: { type: 'text', text: '12345678' } });
    expect(limiter.admit({ type: 'text', text: 'abcd' })).toMatchObject({ ok: false, partial: { type: 'text', text: 'ab' } });
    const events = new AnswerLimiter({ textChars: 100, citations: 100, events: 2, fieldChars: 100 });
    events.admit({ type: 'confidence', value: 0.5 });
    events.admit({ type: 'confidence', value: 0.5 });
    expect(events.admit({ type: 'confidence', value: 0.5 })).toMatchObject({ ok: false, error: { message: expect.stringContaining('more than 2 events') } });
  });
});
