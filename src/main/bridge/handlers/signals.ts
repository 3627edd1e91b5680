/** One signal with its source, looked up on the service (the citation panel). */
import { ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function signalHandlers({ connection }: HandlerContext): HandlerMap<MethodsIn<'signals'>> {
  return {
    'signals.get': async ({ id }) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const result = await client.value.getSignal(id);
      return result.ok ? ok({ ...result.value, fetchedAt: new Date().toISOString() }) : result;
    },
  };
}
