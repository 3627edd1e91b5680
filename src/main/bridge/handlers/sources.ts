/** The Sources view: the feeds the service in use fetches, managed by its administrator (source-admin.ts). */
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function sourceHandlers({ sources }: HandlerContext): HandlerMap<MethodsIn<'sources'>> {
  return {
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
