/**
 * The credential store against a real Secret Service (gnome-keyring in a private D-Bus
 * session, see scripts/with-keychain.sh). Under CI=true a missing keychain fails the suite.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridgeHost } from '../../src/main/compose-services';
import { CredentialStore, probeKeychain, type KeychainProbe } from '../../src/main/services/credentials/credential-store';
import { ConversationStore } from '../../src/main/services/conversations/conversation-store';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { SettingsStore } from '../../src/main/services/settings/settings-store';

const SERVICE = `Clarity Desktop keychain test ${process.pid}`;
const SECRET = 'ck_Zx81TestSecretValue000000000wXyZ';

let probe: KeychainProbe;
let dataDir: string;

beforeAll(async () => {
  probe = await probeKeychain(SERVICE);
  dataDir = await mkdtemp(join(tmpdir(), 'clarity-keychain-'));
});

afterAll(async () => {
  await probe.keychain?.deletePassword(SERVICE, 'retail-signal-credential').catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
});

describe('credentials in the OS keychain', () => {
  it('has a working keychain (required in CI)', () => {
    if (!probe.keychain && process.env.CI !== 'true') {
      console.warn(`No keychain here: ${probe.detail} Run through scripts/with-keychain.sh.`);
      return;
    }
    expect(probe.keychain, probe.detail).not.toBeNull();
    expect(probe.detail).toContain('Secret Service');
  });

  it('stores the secret in the keychain, returns only set/last four, and clears it', async (context) => {
    if (!probe.keychain) context.skip();
    const settings = await SettingsStore.open(dataDir);
    const store = new CredentialStore(probe, () => settings.get().credentialPresentation, SERVICE);
    const host = await createBridgeHost({ settings, conversations: await ConversationStore.open(dataDir), library: await LibraryStore.open(dataDir), dataDir: dataDir, credentials: store, localService: null });

    const set = await host.invoke('credentials.set', { secret: SECRET, presentAs: 'x-api-key' });
    expect(set).toEqual({
      ok: true,
      value: expect.objectContaining({ set: true, last4: 'wXyZ', kind: 'api-key', presentAs: 'x-api-key', backend: 'keychain' }),
    });
    // What crosses the bridge never contains the secret.
    expect(JSON.stringify(set)).not.toContain(SECRET);
    expect(JSON.stringify(await host.invoke('credentials.status', undefined))).not.toContain(SECRET);

    // It is in the real keychain…
    expect(await probe.keychain!.getPassword(SERVICE, 'retail-signal-credential')).toBe(SECRET);
    // …a fresh store (a restarted app) reads it back from there…
    const reopened = new CredentialStore(probe, () => 'bearer', SERVICE);
    expect((await reopened.status()).last4).toBe('wXyZ');
    // …and no file anywhere under the data directory holds it.
    const walk = async (dir: string): Promise<string[]> =>
      (await Promise.all((await readdir(dir)).map(async (name) => ((await stat(join(dir, name))).isDirectory() ? walk(join(dir, name)) : [join(dir, name)])))).flat();
    for (const file of await walk(dataDir)) expect(await readFile(file, 'utf8'), file).not.toContain(SECRET);

    const cleared = await host.invoke('credentials.clear', undefined);
    expect(cleared).toEqual({ ok: true, value: expect.objectContaining({ set: false, last4: null }) });
    expect(await probe.keychain!.getPassword(SERVICE, 'retail-signal-credential')).toBeNull();
  });
});

describe('without a keychain', () => {
  it('keeps the credential for the session only and says so', async () => {
    const store = new CredentialStore({ keychain: null, detail: 'No Secret Service.' }, () => 'bearer');
    await store.set('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln');
    const status = await store.status();
    expect(status).toMatchObject({ set: true, kind: 'jwt', backend: 'session-only' });
    expect(status.backendDetail).toContain('session only');
  });
});
