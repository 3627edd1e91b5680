/**
 * The renderer's store wired to a real bridge host in process, for tests of the chat slice: a
 * host over a temp data folder (conversations, settings, library; the local service never
 * started), the renderer's bridge pointed at it with results crossing as JSON, as the transports
 * carry them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LibraryHub } from '../../src/main/services/library/library-hub';
import { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import type { ClarityBridge } from '../../src/shared/bridge-contract';
import type { Conversation, ConversationTurn } from '../../src/shared/conversation';

export interface ConversationBridge {
  host: BridgeHost;
  conversations: ConversationStore;
  /** A conversation saved in main with these turns, as if asked earlier. */
  stored(title: string, turns: ConversationTurn[]): Promise<Conversation>;
  close(): Promise<void>;
}

/** The bridge the renderer gets, wired to the host. */
function bridgeTo(bridgeHost: BridgeHost): ClarityBridge {
  return {
    host: 'browser',
    invoke: (async (method: string, args: unknown) => JSON.parse(JSON.stringify(await bridgeHost.invoke(method, args))) as unknown) as ClarityBridge['invoke'],
    startStream: async () => ({ ok: false, error: { code: 'unknown_method', message: 'not in this test' } }),
    abortStream: async () => undefined,
    onStreamMessage: () => () => undefined,
    onPush: (event, callback) => bridgeHost.onPush((name: string, payload) => name === event && callback(payload as never)),
  };
}

export async function openConversationBridge(): Promise<ConversationBridge> {
  const dataDir = await mkdtemp(join(tmpdir(), 'clarity-chat-slice-'));
  const conversations = await ConversationStore.open(dataDir);
  const host = await createBridgeHost({
    settings: await SettingsStore.open(dataDir),
    conversations,
    library: await LibraryHub.open({ dataDir }),
    dataDir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'bearer'),
    // Never started: opening conversations needs no service.
    localService: new LocalServiceSupervisor({ command: process.execPath, args: [] }, { paceMs: 0, onExit: () => undefined }),
  });
  setBridgeForTests(bridgeTo(host));
  return {
    host,
    conversations,
    async stored(title, turns) {
      const conversation = await conversations.create(title);
      conversation.turns.push(...turns);
      await conversations.save(conversation);
      return conversation;
    },
    async close() {
      setBridgeForTests(null);
      await host.dispose();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
