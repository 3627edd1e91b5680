/** Discover: search and browse signals on the service. */
import { fail } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function discoverHandlers({ connection }: HandlerContext): HandlerMap<MethodsIn<'discover'>> {
  return {
    'discover.search': async ({ ids, ...filters }) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(filters)) if (value !== undefined && value !== '') query.set(key, String(value));
      for (const id of ids ?? []) query.append('id', id);
      const page = await client.value.call('discover', { query }, 'a Discover page');
      if (!page.ok && page.error.status === 404 && page.error.code === 'not_found' && !filters.cursor) {
        return fail({ code: 'not_found', message: 'This service has no Discover surface.', status: 404 });
      }
      return page;
    },
  };
}
