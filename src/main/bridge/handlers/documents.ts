/** Where saving and exporting read answers, conversations and reports from. */
import { resolveZone } from '../../../shared/format';
import type { DocumentSources } from '../../services/export/documents';
import type { HandlerContext } from './types';

export function documentSources({ conversations, library, research, connection, settings }: HandlerContext): DocumentSources {
  return {
    // The zone the app shows dates in (Settings › Display): exports write the same dates.
    timeZone: () => resolveZone(settings.get().display.timeZone),
    conversations,
    library,
    research,
    serviceUrl: () => connection.status.baseUrl,
    client: () => {
      const client = connection.requireClient();
      return client.ok ? client.value : null;
    },
  };
}
