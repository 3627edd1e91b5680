/** The service credential: kept in the OS keychain; only its status crosses the bridge. */
import { fail, ok, type CredentialStatus } from '../../../shared/bridge-contract';
import type { CredentialStore } from '../../services/credentials/credential-store';
import type { ServiceConnection } from '../service-connection';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

/** The store's status with whether the service in use refused the credential (#14). */
export async function credentialStatus(credentials: CredentialStore, connection: ServiceConnection): Promise<CredentialStatus> {
  const judgedFor = connection.status.state === 'ready' ? connection.status.baseUrl : null;
  return { ...(await credentials.status()), rejected: connection.credentialRejection, owner: await connection.actsAsOwner(), judgedFor };
}

function credentialVerdict(verdict: 'accepted' | 'refused' | 'forbidden' | 'none', said: string | null, owner = false): string {
  if (verdict === 'none') return 'No credential is set: you ask anonymously, and research needs one.';
  if (verdict === 'accepted' && owner) return 'The local service knows you as its owner: research and follows work with nothing to type.';
  if (verdict === 'accepted') return 'The service accepts this credential: research and follows will work.';
  if (verdict === 'refused') return `The service refused this credential as invalid or expired${said ? ` (“${said}”)` : ''}. Paste a new one.`;
  return `The service knows this credential but does not allow research with it${said ? ` (“${said}”)` : ''}.`;
}

export function credentialHandlers({ settings, credentials, connection, push }: HandlerContext): HandlerMap<MethodsIn<'credentials'>> {
  return {
    'credentials.status': async () => ok(await credentialStatus(credentials, connection)),
    'credentials.set': async ({ secret, presentAs }) => {
      await settings.update({ credentialPresentation: presentAs });
      try {
        await credentials.set(secret);
      } catch {
        return fail({ code: 'keychain_unavailable', message: 'The OS keychain refused to store the credential. It was not saved.' });
      }
      connection.clearCredentialRejection();
      const status = await credentialStatus(credentials, connection);
      push('credentials.status', status);
      return ok(status);
    },
    'credentials.devToken': async ({ email }) => {
      if (connection.status.mode !== 'local') {
        return fail({ code: 'invalid_argument', message: 'Development tokens come from the embedded local service; a remote service issues credentials its own way.' });
      }
      const client = connection.requireClient();
      if (!client.ok) return client;
      const issued = await client.value.issueDevelopmentToken(email);
      if (!issued.ok) return issued;
      await settings.update({ credentialPresentation: 'bearer' });
      try {
        // SECURITY: the token goes from main straight to the keychain; the renderer never sees it.
        await credentials.set(issued.value.token);
      } catch {
        return fail({ code: 'keychain_unavailable', message: 'The OS keychain refused to store the token. It was not saved.' });
      }
      connection.clearCredentialRejection();
      const status = await credentialStatus(credentials, connection);
      push('credentials.status', status);
      return ok(status);
    },
    'credentials.test': async () => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const checked = await client.value.checkCredential();
      if (!checked.ok) return fail({ ...checked.error, message: `Could not test the credential: ${checked.error.message}` });
      return ok({ verdict: checked.value.verdict, message: credentialVerdict(checked.value.verdict, checked.value.message, await connection.actsAsOwner()) });
    },
    'credentials.clear': async () => {
      await credentials.clear();
      connection.clearCredentialRejection();
      const status = await credentialStatus(credentials, connection);
      push('credentials.status', status);
      return ok(status);
    },
  };
}
