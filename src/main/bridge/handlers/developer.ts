/**
 * Settings → Developer: API keys on the service, managed with the user's JWT. A new key is
 * shown once; main keeps it only when the user asks to use it as the app's credential
 * (keychain), never in a file or a log.
 */
import { z } from 'zod';
import { fail, ok, type ApiKeySummary, type Result } from '../../../shared/bridge-contract';
import type { Delivery, Webhook } from '../../../shared/surface-schemas';
import type { DeliveryView, WebhookView, WebhookWithSecret } from '../../../shared/webhooks';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';
import { credentialStatus } from './credentials';

export function developerHandlers({ connection, credentials, push }: HandlerContext): HandlerMap<MethodsIn<'developer'>> {
  const list = async () => {
    const client = connection.requireClient();
    if (!client.ok) return client;
    const keys = await client.value.call('listApiKeys', {}, 'a key list');
    if (!keys.ok) return keys;
    return ok(keys.value.keys.map((key): ApiKeySummary => ({ id: key.id, last4: key.last4, createdAt: key.created_at, revokedAt: key.revoked_at })));
  };
  const client = () => connection.requireClient();
  const listWebhooks = async (): Promise<Result<WebhookView[]>> => {
    const api = client();
    if (!api.ok) return api;
    const listed = await api.value.call('listWebhooks', {}, 'a webhook list');
    return listed.ok ? ok(listed.value.webhooks.map(webhookView)) : listed;
  };
  const deliveries = async (id: string): Promise<Result<DeliveryView[]>> => {
    const api = client();
    if (!api.ok) return api;
    const listed = await api.value.call('webhookDeliveries', { params: { id } }, 'a delivery list');
    return listed.ok ? ok(listed.value.deliveries.map(deliveryView)) : listed;
  };
  /** SECURITY: the secret goes to the renderer once, to be shown; main neither stores nor logs it. */
  const withSecret = (hook: z.infer<typeof Webhook>): Result<WebhookWithSecret> =>
    hook.secret ? ok({ webhook: webhookView(hook), secret: hook.secret }) : fail({ code: 'bad_response', message: 'The service did not send the webhook\'s signing secret.' });
  return {
    'developer.listWebhooks': listWebhooks,
    'developer.createWebhook': async ({ url, events }) => {
      const api = client();
      if (!api.ok) return api;
      const created = await api.value.call('createWebhook', { body: { url, events } }, 'a new webhook');
      return created.ok ? withSecret(created.value) : created;
    },
    'developer.deleteWebhook': async ({ id }) => {
      const api = client();
      if (!api.ok) return api;
      const deleted = await api.value.call('deleteWebhook', { params: { id } }, 'an answer');
      return deleted.ok ? listWebhooks() : deleted;
    },
    'developer.rotateWebhookSecret': async ({ id }) => {
      const api = client();
      if (!api.ok) return api;
      const rotated = await api.value.call('rotateWebhookSecret', { params: { id }, body: {} }, 'a new secret');
      if (!rotated.ok && rotated.error.status === 404) return fail({ ...rotated.error, message: `${rotated.error.message} (A service without secret rotation answers 404 too: delete the webhook and create it again.)` });
      return rotated.ok ? withSecret(rotated.value) : rotated;
    },
    'developer.webhookDeliveries': ({ id }) => deliveries(id),
    'developer.redeliver': async ({ id, deliveryId }) => {
      const api = client();
      if (!api.ok) return api;
      const sent = await api.value.call('redeliverWebhookDelivery', { params: { id, deliveryId }, body: {} }, 'a delivery');
      return sent.ok ? deliveries(id) : sent;
    },
    'developer.listKeys': list,
    'developer.issueKey': async ({ storeInKeychain }) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const issued = await client.value.call('issueApiKey', { body: {} }, 'a new key');
      if (!issued.ok) return issued;
      let stored = false;
      if (storeInKeychain) {
        try {
          await credentials.set(issued.value.key);
          stored = true;
          push('credentials.status', await credentialStatus(credentials, connection));
        } catch {
          return fail({ code: 'keychain_unavailable', message: `The key was issued (…${issued.value.last4}) but the keychain refused it: copy it now, it will not be shown again.` });
        }
      }
      return ok({ key: issued.value.key, id: issued.value.id, last4: issued.value.last4, storedInKeychain: stored });
    },
    'developer.revokeKey': async ({ id }) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const revoked = await client.value.call('revokeApiKey', { params: { id } }, 'an answer');
      if (!revoked.ok) return revoked;
      return list();
    },
  };
}

const webhookView = (hook: z.infer<typeof Webhook>): WebhookView => ({ id: hook.id, url: hook.url, events: hook.events, createdAt: hook.created_at });

const deliveryView = (delivery: z.infer<typeof Delivery>): DeliveryView => ({
  id: delivery.id,
  event: delivery.event,
  createdAt: delivery.created_at,
  state: delivery.state,
  attempts: delivery.attempts.map((attempt) => ({ attempt: attempt.attempt, at: attempt.at, status: attempt.status, ok: attempt.ok, error: attempt.error })),
  nextAttemptAt: delivery.next_attempt_at,
});
