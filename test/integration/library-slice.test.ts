/**
 * The renderer's library slice against the real bridge host (in-process, no socket): it loads the
 * libraries, follows main's `library.changed` push, searches, and opens a saved item the way a
 * `clarity-desktop://saved/lib_…` link does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClarityBridge } from '../../src/shared/bridge-contract';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LibraryHub } from '../../src/main/services/library/library-hub';
import { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import { setBridgeForTests } from '../../src/renderer/src/bridge/clarity';
import { useAppStore } from '../../src/renderer/src/store/app-store';

let dataDir: string;
let host: BridgeHost;
let library: LibraryHub;
let disconnect: () => void;

/** The bridge the renderer gets, wired straight to the host (what the transports carry). */
function bridgeTo(bridgeHost: BridgeHost): ClarityBridge {
  return {
    host: 'browser',
    invoke: ((method: string, args: unknown) => bridgeHost.invoke(method, args)) as ClarityBridge['invoke'],
    startStream: async () => ({ ok: false, error: { code: 'unknown_method', message: 'not in this test' } }),
    abortStream: async () => undefined,
    onStreamMessage: () => () => undefined,
    onPush: (event, callback) => bridgeHost.onPush((name: string, payload) => name === event && callback(payload as never)),
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'clarity-library-slice-'));
  library = await LibraryHub.open({ dataDir });
  host = await createBridgeHost({
    settings: await SettingsStore.open(dataDir),
    conversations: await ConversationStore.open(dataDir),
    library,
    dataDir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'bearer'),
    // Never started: the library needs no service.
    localService: new LocalServiceSupervisor({ command: process.execPath, args: [] }, { paceMs: 0, onExit: () => undefined }),
  });
  setBridgeForTests(bridgeTo(host));
  disconnect = useAppStore.getState().connectLibrary();
});
afterAll(async () => {
  disconnect();
  setBridgeForTests(null);
  await host.dispose();
  await rm(dataDir, { recursive: true, force: true });
});

describe('library slice', () => {
  it('loads the libraries from main and follows its changes', async () => {
    await vi.waitUntil(() => useAppStore.getState().libraryLocations.length > 0);
    expect(useAppStore.getState().libraryLocations.map((l) => l.id)).toEqual(['personal']);
    const before = useAppStore.getState().libraryChanges;
    await library.save({ kind: 'answer', title: 'Zudio in Pune', markdown: 'Stores opened [sig_0123456789abcdef]', citations: [{ id: 'sig_0123456789abcdef', title: 'A signal' }], createdAt: '2026-11-01T00:00:00Z', meta: {} });
    await vi.waitUntil(() => useAppStore.getState().libraryChanges > before);
    await useAppStore.getState().searchLibrary({ text: 'Zudio', source: '' });
    expect(useAppStore.getState().libraryResult?.items.map((item) => item.title)).toEqual(['Zudio in Pune']);
  });

  it('opens a saved item from a link: the library view with the item in the reader', async () => {
    const id = useAppStore.getState().libraryResult!.items[0]!.id;
    useAppStore.getState().setView('chat');
    expect(await useAppStore.getState().openSaved(id)).toBe(true);
    expect(useAppStore.getState().view).toBe('library');
    expect(useAppStore.getState().libraryItem).toMatchObject({ id, title: 'Zudio in Pune', location: 'personal' });
  });

  it('says so when the linked item is gone, and keeps what was open', async () => {
    const open = useAppStore.getState().libraryItem;
    expect(await useAppStore.getState().openSaved('lib_ffffffffffffffff')).toBe(false);
    expect(useAppStore.getState().libraryError).toMatch(/./);
    expect(useAppStore.getState().libraryItem).toBe(open);
  });
});
