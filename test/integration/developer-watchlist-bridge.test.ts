/**
 * Settings › Developer and the watchlist through the bridge (src/main/bridge/handlers/developer.ts,
 * src/main/services/watchlist/watchlist.ts) against the real local service over HTTP: every
 * call they make is a row of the endpoint table, answered and read as the row says. A real
 * receiver on loopback takes the webhook deliveries.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import type { InvokeArgs, InvokeMethod, InvokeResults } from '../../src/shared/bridge-contract';
import { startTestService } from '../support/local-service';

let service: RunningService;
let receiver: Server;
let receiverUrl: string;
let host: BridgeHost;
let dir: string;
let deliveriesReceived = 0;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      deliveriesReceived += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  service = await startTestService({ extensions: { allowPrivateWebhooks: true } });

  dir = await mkdtemp(join(tmpdir(), 'clarity-developer-bridge-'));
  const settings = await SettingsStore.open(dir);
  await settings.update({ service: { mode: 'remote', baseUrl: service.url }, credentialPresentation: 'bearer' });
  const credentials = new CredentialStore({ keychain: null, detail: 'test' }, () => settings.get().credentialPresentation);
  await credentials.set(await service.idp.issueToken('developer@example.com'));
  host = await createBridgeHost({ settings, conversations: await ConversationStore.open(dir), library: await LibraryStore.open(dir), dataDir: dir, credentials, localService: null });
  await host.start();
}, 60_000);

afterAll(async () => {
  await host?.dispose();
  await service?.close();
  // Deliveries keep their connection alive; close it rather than wait for it to idle out.
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await rm(dir, { recursive: true, force: true });
}, 30_000);

/** A bridge method's answer, typed by the contract; a failure throws with its code and message. */
async function value<M extends InvokeMethod>(method: M, args: InvokeArgs<M>): Promise<InvokeResults[M]> {
  const settled = await host.invoke(method, args);
  if (!settled.ok) throw new Error(`${settled.error.code}: ${settled.error.message}`);
  return settled.value as InvokeResults[M];
}

describe('Settings › Developer through the bridge', () => {
  it('issues an API key (shown once), lists it by its last four, and revokes it', async () => {
    const issued = await value('developer.issueKey', { storeInKeychain: false });
    expect(issued.key).toMatch(/^ck_/);
    expect(issued.storedInKeychain).toBe(false);
    const listed = await value('developer.listKeys', undefined);
    expect(listed).toContainEqual(expect.objectContaining({ id: issued.id, last4: issued.last4, revokedAt: null }));
    const afterRevoke = await value('developer.revokeKey', { id: issued.id });
    expect(afterRevoke.find((key) => key.id === issued.id)?.revokedAt).toEqual(expect.any(String));
    // A key that is not the caller's: the service's 404, as the bridge's not_found.
    const unknown = await host.invoke('developer.revokeKey', { id: 'key_0000000000000000' });
    expect(!unknown.ok && unknown.error.code).toBe('not_found');
  });

  it('creates a webhook (secret once), lists it, rotates its secret, sends a delivery again, and deletes it', async () => {
    const created = await value('developer.createWebhook', { url: receiverUrl, events: ['follow.matched'] });
    expect(created.secret).toMatch(/^whsec_/);
    const id = created.webhook.id;
    expect((await value('developer.listWebhooks', undefined)).map((hook) => hook.id)).toContain(id);
    const rotated = await value('developer.rotateWebhookSecret', { id });
    expect(rotated.secret).not.toBe(created.secret);

    // A delivery to send again: a follow matched by a live signal.
    await value('watchlist.follow', { type: 'segment', value: 'fashion' });
    for (let i = 0; i < 300 && !service.store.addLiveSignal(new Date()).entities.segments.includes('fashion'); i += 1);
    await expect.poll(async () => (await value('developer.webhookDeliveries', { id })).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const [first] = await value('developer.webhookDeliveries', { id });
    const again = await value('developer.redeliver', { id, deliveryId: first!.id });
    expect(again.length).toBeGreaterThan(1);
    await expect.poll(() => deliveriesReceived, { timeout: 10_000 }).toBeGreaterThan(1);

    expect((await value('developer.deleteWebhook', { id })).map((hook) => hook.id)).not.toContain(id);
    // Rotation on a webhook that is gone: the 404, with the hint for services without rotation.
    const gone = await host.invoke('developer.rotateWebhookSecret', { id });
    expect(!gone.ok && gone.error.message).toMatch(/A service without secret rotation answers 404 too/);
  });
});

describe('the watchlist through the bridge', () => {
  it('follows, lists the follow with the tier, and unfollows', async () => {
    const followed = await value('watchlist.follow', { type: 'entity', value: 'Zudio' });
    const follow = followed.follows.find((entry) => entry.target.value === 'Zudio');
    expect(follow).toBeDefined();
    expect(followed.tier).toBe('free');
    const after = await value('watchlist.unfollow', { id: follow!.id });
    expect(after.follows.map((entry) => entry.id)).not.toContain(follow!.id);
  });
});
