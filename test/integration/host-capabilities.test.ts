/**
 * Host capabilities (issue 29, item 4): what differs between Electron and the browser host is
 * one typed object given to the bridge host. The same bridge host, handed the browser host's
 * object, takes every page-side path (no dialog, no system browser, a download, no folders to
 * open); handed that object with Electron's abilities filled in, it takes the desktop paths.
 * And no main-process code outside the capability object and src/main/electron/ asks which
 * shell it runs in.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { browserHostCapabilities, type HostCapabilities } from '../../src/main/desktop/host-capabilities';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LibraryHub } from '../../src/main/services/library/library-hub';
import { SettingsStore } from '../../src/main/services/settings/settings-store';

let root: string;
const hosts: BridgeHost[] = [];
const savedIds = new Map<BridgeHost, string>();

async function hostWith(capabilities: HostCapabilities): Promise<BridgeHost> {
  const dataDir = await mkdtemp(join(root, 'data-'));
  const library = await LibraryHub.open({ dataDir });
  const item = await library.save({ kind: 'answer', title: 'Zudio in Pune', markdown: 'Stores opened [sig_0123456789abcdef]', citations: [{ id: 'sig_0123456789abcdef', title: 'A signal' }], createdAt: '2026-11-01T00:00:00Z', meta: {} });
  const host = await createBridgeHost({
    settings: await SettingsStore.open(dataDir),
    conversations: await ConversationStore.open(dataDir),
    library,
    dataDir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'x-api-key'),
    localService: null,
    capabilities,
  });
  hosts.push(host);
  savedIds.set(host, item.id);
  return host;
}

function value<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** Asks for the host's saved item as a `.clarity` bundle (Library › Export). */
async function exportABundle(host: BridgeHost): Promise<{ savedPath: string | null; base64: string | null }> {
  return value(await host.invoke('library.exportBundle', { ids: [savedIds.get(host)!] })) as { savedPath: string | null; base64: string | null };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'clarity-capabilities-'));
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.dispose()));
  await rm(root, { recursive: true, force: true });
});

describe('the capability object decides the Electron-only behaviour', () => {
  it('with the browser host’s object: no folder dialog, no system browser, a download, no folders to open', async () => {
    const host = await hostWith(browserHostCapabilities());
    expect(value(await host.invoke('library.pickFolder', undefined))).toEqual({ available: false, path: null });
    expect(value(await host.invoke('links.openExternal', { url: 'https://example.com/report' }))).toEqual({ opened: false });
    const bundle = await exportABundle(host);
    expect(bundle.savedPath).toBeNull();
    expect(Buffer.from(bundle.base64 ?? '', 'base64').subarray(0, 2).toString('latin1')).toBe('PK');
    expect(value(await host.invoke('desktop.info', undefined))).toMatchObject({ canOpenFolders: false, logsDir: null });
    expect(value(await host.invoke('desktop.openLogsFolder', undefined))).toEqual({ opened: false, path: null });
  });

  it('with the same object given Electron’s abilities, the same bridge host takes the desktop paths', async () => {
    const saved: string[] = [];
    const opened: string[] = [];
    const picked = join(root, 'team');
    const browser = browserHostCapabilities();
    const host = await hostWith({
      ...browser,
      kind: 'electron',
      openExternal: async (url) => (opened.push(url), true),
      saveFile: async (filename) => (saved.push(filename), join(root, filename)),
      pickFolder: async () => picked,
    });
    expect(value(await host.invoke('library.pickFolder', undefined))).toEqual({ available: true, path: picked });
    expect(value(await host.invoke('links.openExternal', { url: 'https://example.com/report' }))).toEqual({ opened: true });
    expect(opened).toEqual(['https://example.com/report']);
    const bundle = await exportABundle(host);
    expect(bundle).toMatchObject({ base64: null, savedPath: join(root, saved[0]!) });
    expect(saved[0]).toMatch(/\.clarity$/);
  });

  it('no main-process module outside src/main/electron/ and the capability object asks which shell it runs in', async () => {
    const mainDir = join(process.cwd(), 'src/main');
    const files = (await readdir(mainDir, { recursive: true })).filter((file) => file.endsWith('.ts')).map((file) => join(mainDir, file));
    const offenders: string[] = [];
    for (const file of files) {
      const path = relative(mainDir, file).split('\\').join('/');
      // Electron's own code, its IPC transport (the bridge's wire there), and the capability object.
      if (path.startsWith('electron/') || path === 'transports/ipc-transport.ts' || path === 'desktop/host-capabilities.ts') continue;
      const text = await readFile(file, 'utf8');
      // Asking the runtime, importing Electron, or taking an Electron-only ability as an option of its own.
      if (/process\.versions\.electron|from 'electron'|^\s*(readonly\s+)?(saveFile|pickFolder|openExternal)\??:/m.test(text)) offenders.push(path);
    }
    expect(offenders).toEqual([]);
  });
});
