/** Where saving and exporting read answers, conversations and reports from. */
import type { DocumentSources } from '../../services/export/documents';
import type { HandlerContext } from './types';

export function documentSources({ conversations, library, research, connection }: HandlerContext): DocumentSources {
  return {
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
