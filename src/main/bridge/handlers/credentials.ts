/** The service credential: kept in the OS keychain; only its status crosses the bridge. */
import { fail, ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function credentialHandlers({ settings, credentials, push }: HandlerContext): HandlerMap<MethodsIn<'credentials'>> {
  return {
    'credentials.status': async () => ok(await credentials.status()),
    'credentials.set': async ({ secret, presentAs }) => {
      await settings.update({ credentialPresentation: presentAs });
      try {
        await credentials.set(secret);
      } catch {
        return fail({ code: 'keychain_unavailable', message: 'The OS keychain refused to store the credential. It was not saved.' });
      }
      const status = await credentials.status();
      push('credentials.status', status);
      return ok(status);
    },
    'credentials.clear': async () => {
      await credentials.clear();
      const status = await credentials.status();
      push('credentials.status', status);
      return ok(status);
    },
  };
}
