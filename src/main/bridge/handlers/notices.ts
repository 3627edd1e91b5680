/**
 * What the service in use announces: deprecations its responses carried (Deprecation / Sunset
 * headers, kept in ServiceNoticeStore) and its changelog ("What's new in the service").
 */
import { ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function noticeHandlers({ connection, serviceNotices }: HandlerContext): HandlerMap<MethodsIn<'notices'>> {
  const current = () => ok(serviceNotices.list(connection.serviceKey));
  return {
    'notices.list': current,
    'notices.acknowledge': ({ id }) => {
      serviceNotices.acknowledge(id);
      return current();
    },
    'notices.changelog': async () => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      const changelog = await client.value.getChangelog();
      return changelog.ok ? ok({ ...changelog.value, serviceLabel: connection.serviceLabel }) : changelog;
    },
  };
}
