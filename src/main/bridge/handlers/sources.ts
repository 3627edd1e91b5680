/** The Sources view: the feeds the service in use fetches, managed by its administrator (source-admin.ts). */
import { ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function sourceHandlers({ sources, settings, connection }: HandlerContext): HandlerMap<MethodsIn<'sources'>> {
  /** The allowed hosts changed: the embedded service starts again with its new flags (issue 47). */
  const setHosts = async (hosts: string[]) => {
    const updated = await settings.update({ sourceHosts: hosts });
    await connection.restartLocalService('Restarting the local service with the hosts you allowed…');
    return ok(updated);
  };
  return {
    'sources.allowHost': ({ host }) => setHosts([...new Set([...(settings.get().sourceHosts ?? []), host])]),
    'sources.withdrawHost': ({ host }) => setHosts((settings.get().sourceHosts ?? []).filter((allowed) => allowed !== host)),
    'sources.overview': () => sources.overview(),
    'sources.history': ({ id }) => sources.history(id),
    'sources.preview': (args) => sources.preview(args),
    'sources.add': (args) => sources.add(args),
    'sources.update': ({ id, ...patch }) => sources.update(id, patch),
    'sources.remove': ({ id }) => sources.remove(id),
    'sources.acceptProposal': ({ id, ...options }) => sources.accept(id, options),
    'sources.rejectProposal': ({ id, reason }) => sources.reject(id, reason),
  };
}
