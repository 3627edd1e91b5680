/**
 * Settings → Developer: API keys on the service, managed with the user's JWT. A new key is
 * shown once; main keeps it only when the user asks to use it as the app's credential
 * (keychain), never in a file or a log.
 */
import { fail, ok, type ApiKeySummary } from '../../../shared/bridge-contract';
import { ApiKeyIssued, ApiKeyList } from '../../../shared/service-schemas';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function developerHandlers({ connection, credentials, push }: HandlerContext): HandlerMap<MethodsIn<'developer'>> {
  const list = async () => {
    const client = connection.requireClient();
    if (!client.ok) return client;
    const keys = await client.value.callJson('GET', '/api/v1/keys', undefined, ApiKeyList, 'a key list');
    if (!keys.ok) return keys;
    return ok(keys.value.keys.map((key): ApiKeySummary => ({ id: key.id, last4: key.last4, createdAt: key.created_at, revokedAt: key.revoked_at })));
  };
  return {
    'developer.listKeys': list,
    'developer.issueKey': async ({ storeInKeychain }) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const issued = await client.value.callJson('POST', '/api/v1/keys', {}, ApiKeyIssued, 'a new key');
      if (!issued.ok) return issued;
      let stored = false;
      if (storeInKeychain) {
        try {
          await credentials.set(issued.value.key);
          stored = true;
          push('credentials.status', await credentials.status());
        } catch {
          return fail({ code: 'keychain_unavailable', message: `The key was issued (…${issued.value.last4}) but the keychain refused it: copy it now, it will not be shown again.` });
        }
      }
      return ok({ key: issued.value.key, id: issued.value.id, last4: issued.value.last4, storedInKeychain: stored });
    },
    'developer.revokeKey': async ({ id }) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const revoked = await client.value.callJson('DELETE', `/api/v1/keys/${encodeURIComponent(id)}`, undefined, ApiKeyList.partial(), 'an answer');
      if (!revoked.ok) return revoked;
      return list();
    },
  };
}
