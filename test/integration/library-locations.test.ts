/**
 * Team library folders (issue 29, item 10): where the host has a folder dialog, main adds only a
 * folder the dialog returned — a path the renderer sends is refused — and never a system folder
 * (checked on the real path, links resolved). Through the real bridge host, real temp folders.
 */
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { browserHostCapabilities } from '../../src/main/desktop/host-capabilities';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { systemFolderReason } from '../../src/main/services/library/library-folders';
import { LibraryHub } from '../../src/main/services/library/library-hub';
import { SettingsStore } from '../../src/main/services/settings/settings-store';

let root: string;
let dialogReturns: string | null = null;
const hosts: BridgeHost[] = [];

async function host(withDialog: boolean): Promise<BridgeHost> {
  const dataDir = await mkdtemp(join(root, 'data-'));
  const created = await createBridgeHost({
    settings: await SettingsStore.open(dataDir),
    conversations: await ConversationStore.open(dataDir),
    library: await LibraryHub.open({ dataDir, pollMs: 300 }),
    dataDir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'x-api-key'),
    localService: null,
    // The desktop app's capabilities differ from the browser host's by the folder dialog only, here.
    capabilities: withDialog ? { ...browserHostCapabilities(), pickFolder: async () => dialogReturns } : browserHostCapabilities(),
  });
  hosts.push(created);
  return created;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'clarity-locations-'));
});
afterAll(async () => {
  await Promise.all(hosts.map((created) => created.dispose()));
  await rm(root, { recursive: true, force: true });
});

const message = (result: Awaited<ReturnType<BridgeHost['invoke']>>): string => (result.ok ? 'ok' : result.error.message);

describe('the desktop app (a folder dialog)', () => {
  it('refuses a path the renderer sends that the dialog did not return, and adds the one it did', async () => {
    const desktop = await host(true);
    const team = join(root, 'Dropbox', 'Retail team');
    await mkdir(team, { recursive: true });
    expect(message(await desktop.invoke('library.addLocation', { path: team, name: 'Retail team' }))).toMatch(/picked in the folder dialog/);
    dialogReturns = team;
    expect(await desktop.invoke('library.pickFolder', undefined)).toEqual({ ok: true, value: { available: true, path: team } });
    const added = await desktop.invoke('library.addLocation', { path: team, name: 'Retail team' });
    expect(added).toMatchObject({ ok: true, value: { kind: 'team', path: team, name: 'Retail team' } });
    // Another path is still refused after a pick.
    expect(message(await desktop.invoke('library.addLocation', { path: join(root, 'elsewhere'), name: '' }))).toMatch(/picked in the folder dialog/);
  });

  it('refuses a system folder even when the dialog returned it, and a link that leads into one', async () => {
    const desktop = await host(true);
    for (const system of ['/', '/etc', '/usr/share', '/proc', '/var/lib']) {
      dialogReturns = system;
      await desktop.invoke('library.pickFolder', undefined);
      expect(message(await desktop.invoke('library.addLocation', { path: system, name: '' }))).toMatch(/root folder|system folder/);
    }
    const link = join(root, 'innocent-looking');
    await symlink('/etc', link);
    dialogReturns = link;
    await desktop.invoke('library.pickFolder', undefined);
    expect(message(await desktop.invoke('library.addLocation', { path: link, name: '' }))).toMatch(/leads to \/etc: .*system folder/);
  });
});

describe('the browser host (no dialog: a typed path)', () => {
  it('adds a folder of the user’s own and refuses system folders', async () => {
    const browser = await host(false);
    const team = join(root, 'Shared', 'Board');
    await mkdir(team, { recursive: true });
    expect(await browser.invoke('library.addLocation', { path: team, name: 'Board' })).toMatchObject({ ok: true });
    expect(message(await browser.invoke('library.addLocation', { path: '/etc', name: '' }))).toMatch(/system folder/);
  });
});

describe('system folders on every platform', () => {
  it.each([
    ['C:\\', 'win32', /root of a drive/],
    ['C:\\Windows\\System32', 'win32', /system folder/],
    ['c:/program files/App', 'win32', /system folder/],
    ['\\\\server\\share', 'win32', /root of a drive or share/],
    ['/boot/efi', 'linux', /system folder/],
    ['/System/Library', 'darwin', /system folder/],
  ] as const)('%s is refused', (path, platform, reason) => {
    expect(systemFolderReason(path, platform)).toMatch(reason);
  });
  it.each([
    ['D:\\Team library', 'win32'],
    ['C:\\Users\\asha\\Dropbox\\Team', 'win32'],
    ['/home/asha/Dropbox/Team', 'linux'],
    ['/Users/asha/Library Team', 'darwin'],
    ['/mnt/share/team', 'linux'],
  ] as const)('%s is allowed', (path, platform) => {
    expect(systemFolderReason(path, platform)).toBeNull();
  });
});
