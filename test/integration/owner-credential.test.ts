/**
 * Issue 47: the analyst is the owner of the embedded service. The real supervisor starts the real
 * service, trades its one-time secret for the owner token, and the service connection presents it
 * for calls that need a caller (research, follows) with no credential typed; the follow made is
 * still there after the service restarts; a credential the analyst sets wins; a remote service
 * gets no owner token.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceConnection } from '../../src/main/bridge/service-connection';
import { CredentialStore } from '../../src/main/services/credentials/credential-store';
import { LocalServiceSupervisor } from '../../src/main/services/local-service/local-service-supervisor';
import { serviceEntry } from '../support/built-code';
import { seedServiceFolder } from '../support/prepared-service-folder';

let dir: string;
let supervisor: LocalServiceSupervisor;
let connection: ServiceConnection;
let credentials: CredentialStore;

beforeAll(async () => {
  // Begun with the migrated database a first start leaves (the suite's copy; the default sample is its own): these tests are about the owner's token.
  dir = await seedServiceFolder(await mkdtemp(join(tmpdir(), 'clarity-owner-')), { corpus: false });
  supervisor = new LocalServiceSupervisor({ command: process.execPath, args: [...serviceEntry(), '--research-ms', '50', '--data-dir', dir] }, { startTimeoutMs: 180_000 });
  credentials = new CredentialStore({ keychain: null, detail: 'No keychain in this test.' }, () => 'bearer', `clarity-owner-test-${process.pid}`);
  connection = new ServiceConnection({ initial: { mode: 'local' }, credentials, localService: supervisor, onStatus: () => undefined });
  await connection.apply({ mode: 'local' });
}, 200_000);

afterAll(async () => {
  await connection?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const claims = (token: string): Record<string, unknown> => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('the owner credential of the embedded service', () => {
  it('is obtained at start, names the local owner on the team tier, and is presented with nothing typed', async () => {
    expect(connection.status.state).toBe('ready');
    const presented = await connection.credential();
    expect(presented?.presentAs).toBe('bearer');
    expect(claims(presented!.secret)).toMatchObject({ role: 'admin', tier: 'team' });
    expect(await connection.actsAsOwner()).toBe(true);
  });

  it('research and a follow succeed with no credential typed, and the follow outlives a restart of the service', async () => {
    const client = connection.client!;
    const research = await client.startResearch('Quick commerce in Bengaluru', 'standard', { queue: false });
    expect(research.ok ? research.value.kind : JSON.stringify(research.error)).toBe('completed');
    const followed = await client.call('follow', { body: { target: { type: 'city', value: 'Pune' } } }, 'a follow');
    expect(followed.ok).toBe(true);

    const before = supervisor.ownerToken;
    await connection.restartLocalService();
    expect(connection.status.state).toBe('ready');
    // A new token for the new process, the same owner: the follow is still theirs.
    expect(supervisor.ownerToken).not.toBe(before);
    expect(claims(supervisor.ownerToken!).sub).toBe(claims(before!).sub);
    const listed = await connection.client!.call('listFollows', {}, 'the follows');
    expect(listed.ok && listed.value.follows.map((follow) => follow.target)).toContainEqual({ type: 'city', value: 'Pune' });
  });

  it('a credential the analyst sets wins over the owner token, and clearing it brings the owner back', async () => {
    await credentials.set('ck_abcdefghijklmnopqrstuvwxyz012345');
    expect((await connection.credential())?.secret).toBe('ck_abcdefghijklmnopqrstuvwxyz012345');
    expect(await connection.actsAsOwner()).toBe(false);
    await credentials.clear();
    expect(await connection.actsAsOwner()).toBe(true);
  });

  it('a remote service is never sent the owner token', async () => {
    const remote = new ServiceConnection({ initial: { mode: 'remote', baseUrl: connection.status.baseUrl! }, credentials, localService: null, onStatus: () => undefined });
    await remote.apply({ mode: 'remote', baseUrl: connection.status.baseUrl! });
    expect(await remote.credential()).toBeNull();
    const research = await remote.client!.startResearch('Quick commerce in Bengaluru', 'standard', { queue: false });
    expect(research.ok || research.error.code).toBe('unauthorized');
    await remote.dispose();
  });
});
