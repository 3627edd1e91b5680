/**
 * The team library through the real bridge host and the real local service: a credential is
 * set and used to ask, the answer is saved to a team folder and exported as a bundle, which is
 * imported back; a hostile bundle is refused with a clear message; the credential is then
 * searched for in every file written and in the bundle. And a team folder the user cannot
 * write opens read-only and says so.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamMessage } from '../../src/shared/bridge-contract';
import type { Conversation } from '../../src/shared/conversation';
import type { LibraryLocation, LibrarySummary } from '../../src/shared/library';
import type { BridgeHost } from '../../src/main/bridge/bridge-host';
import { createBridgeHost } from '../../src/main/compose-services';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LibraryHub } from '../../src/main/services/library/library-hub';
import { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { SettingsStore } from '../../src/main/services/settings/settings-store';
import { serviceEntry } from '../support/built-code';

let root: string;
let dataDir: string;
let team: string;
let host: BridgeHost;

async function call<T>(method: string, args?: unknown): Promise<T> {
  const result = await host.invoke(method, args);
  if (!result.ok) throw new Error(`${method}: ${result.error.message}`);
  return result.value as T;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'clarity-team-bridge-'));
  dataDir = join(root, 'data');
  team = join(root, 'Shared', 'Retail team');
  await mkdir(team, { recursive: true });
  await mkdir(dataDir);
  const supervisor = new LocalServiceSupervisor({ command: process.execPath, args: [...serviceEntry(), '--no-live'] }, { paceMs: 0, onExit: () => undefined });
  host = await createBridgeHost({
    settings: await SettingsStore.open(dataDir),
    conversations: await ConversationStore.open(dataDir),
    library: await LibraryHub.open({ dataDir, pollMs: 300 }),
    dataDir,
    credentials: new CredentialStore({ keychain: null, detail: 'test' }, () => 'x-api-key'),
    localService: supervisor,
  });
  await host.start();
}, 90_000);
afterAll(async () => {
  await host.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('team library through the bridge', () => {
  it('saves an answer to a team folder, round-trips it as a bundle, refuses a hostile one, and writes the credential nowhere', async () => {
    const secret = `ck_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x').slice(0, 32)}`;
    await call('credentials.set', { secret, presentAs: 'x-api-key' });
    const conversation = await call<Conversation>('conversations.create');
    const done = new Promise<StreamMessage>((resolve) => {
      const result = host.startStream('stream_team', 'ask', { question: 'Zudio store openings', conversationId: conversation.id }, (message) => {
        if (message.kind === 'done' || message.kind === 'error') resolve(message);
      });
      expect(result.ok).toBe(true);
    });
    const ended = await done; expect(ended.kind, JSON.stringify(ended)).toBe('done');
    const turn = (await call<Conversation>('conversations.get', { id: conversation.id })).turns[0]!;

    const location = await call<LibraryLocation>('library.addLocation', { path: team, name: 'Retail team' });
    expect(location).toMatchObject({ kind: 'team', readOnly: false, name: 'Retail team' });
    const saved = await call<LibrarySummary>('library.saveAnswer', { conversationId: conversation.id, turnId: turn.id, location: location.id });
    expect(saved.location).toBe(location.id);
    expect(await readdir(team)).toEqual(expect.arrayContaining([`${saved.id}.json`, `${saved.id}.md`]));

    const bundle = await call<{ filename: string; base64: string }>('library.exportBundle', { ids: [saved.id] });
    expect(bundle.filename).toMatch(/\.clarity$/);
    expect(await call('library.inspectBundle', { data: bundle.base64, location: 'personal' })).toMatchObject({ items: [{ id: saved.id, status: 'new' }] });
    expect(await call('library.importBundle', { data: bundle.base64, location: 'personal' })).toEqual({ added: 1, replaced: 0, conflicts: 0, skipped: 0 });
    const original = await call<{ citations: unknown[] }>('library.get', { id: saved.id, location: location.id });
    const imported = await call<{ citations: unknown[] }>('library.get', { id: saved.id, location: 'personal' });
    expect(imported.citations.length).toBeGreaterThan(0);
    expect(imported.citations).toEqual(original.citations);
    // Imported again: recognised as identical (content hashes agree after a round trip).
    expect(await call('library.inspectBundle', { data: bundle.base64, location: 'personal' })).toMatchObject({ items: [{ id: saved.id, status: 'same' }] });

    const files = unzipSync(Buffer.from(bundle.base64, 'base64'));
    const traversal = Buffer.from(zipSync({ ...files, '../../../tmp/evil.json': strToU8('{}') })).toString('base64');
    const refused = await host.invoke('library.importBundle', { data: traversal, location: location.id });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringMatching(/^This bundle was refused and nothing was written: The bundle contains a file it should not/) } });

    // SECURITY: the credential that was used is in no file the app wrote, and not in the bundle.
    for (const path of [...(await filesUnder(dataDir)), ...(await filesUnder(team))]) {
      expect(await readFile(path, 'latin1'), path).not.toContain(secret);
    }
    for (const [name, data] of Object.entries(files)) expect(strFromU8(data), name).not.toContain(secret);
  }, 60_000);

  it('opens a team folder the user cannot write read-only, says so, and saves nothing there', async () => {
    const folder = join(root, 'Read-only share');
    await mkdir(folder);
    const writer = await LibraryHub.open({ dataDir: join(root, 'writer') });
    const teamId = (await writer.addLocation(folder, 'Board packs')).id;
    await writer.save({ kind: 'report', title: 'Board pack', markdown: 'Text', citations: [], createdAt: '2026-11-01T00:00:00Z', meta: {} }, teamId);
    await writer.close();
    const cache = join(root, 'probe-cache');
    await mkdir(cache);
    await chmod(folder, 0o555);
    await chmod(cache, 0o777);
    await chmod(root, 0o755);
    // Root can write anywhere, so the probe runs as an unprivileged user where the tests run as root.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/library-open-probe.ts', folder, cache], { ...asUser, env: { ...process.env, HOME: cache } });
    const seen = JSON.parse(stdout) as { readOnly: boolean; message: string; saveError: string; titles: string[] };
    expect(seen.readOnly).toBe(true);
    expect(seen.message).toMatch(/^Read-only: you can read this team library but not change it/);
    expect(seen.titles).toEqual(['Board pack']);
    expect(seen.saveError).toBe('“Retail team” is read-only for you: nothing can be saved or changed there.');
    expect((await readdir(folder)).filter((n) => n.endsWith('.json'))).toHaveLength(1);
    await chmod(folder, 0o755);
  }, 60_000);
});
