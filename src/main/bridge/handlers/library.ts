/** The library: saved answers, conversations and reports; search, tags, delete/restore. */
import { fail, ok, type ExportSource } from '../../../shared/bridge-contract';
import { buildDocument } from '../../services/documents';
import { summarize } from '../../services/library-store';
import { documentSources } from './documents';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

const GONE = 'That saved item no longer exists.';

export function libraryHandlers(context: HandlerContext): HandlerMap<MethodsIn<'library'>> {
  const { library } = context;
  const save = async (source: ExportSource) => {
    const doc = await buildDocument(source, documentSources(context));
    if (!doc) return fail({ code: 'not_found', message: 'There is nothing to save yet: the answer or report has no text.' });
    const item = await library.save({ kind: doc.kind, title: doc.title, markdown: doc.markdown, citations: doc.citations, createdAt: doc.createdAt, meta: doc.meta });
    return ok(summarize(item));
  };
  return {
    'library.search': (query) => ok(library.search(query)),
    'library.facets': () => ok(library.facets()),
    'library.get': ({ id }) => {
      const item = library.get(id);
      return item ? ok(item) : fail({ code: 'not_found', message: GONE });
    },
    'library.saveAnswer': (args) => save({ kind: 'answer', ...args }),
    'library.saveConversation': (args) => save({ kind: 'conversation', ...args }),
    'library.saveReport': (args) => save({ kind: 'report', ...args }),
    'library.update': async ({ id, ...patch }) => {
      const item = await library.update(id, patch);
      return item ? ok(summarize(item)) : fail({ code: 'not_found', message: GONE });
    },
    'library.delete': async ({ id }) => ((await library.remove(id)) ? ok({ deleted: true }) : fail({ code: 'not_found', message: GONE })),
    'library.restore': async ({ id }) => {
      const item = await library.restore(id);
      return item ? ok(summarize(item)) : fail({ code: 'not_found', message: 'Nothing to restore.' });
    },
  };
}
