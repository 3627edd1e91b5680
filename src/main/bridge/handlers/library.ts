/** The library: saved answers, conversations and reports; search, tags, delete/restore; team libraries and bundles. */
import { resolve } from 'node:path';
import { fail, ok, type ExportSource } from '../../../shared/bridge-contract';
import { buildDocument } from '../../services/export/documents';
import { applyImport, BundleError, exportBundle, planImport, readBundleInBackground } from '../../services/library/library-bundle';
import { LibraryError } from '../../services/library/library-hub';
import { LibraryReadOnlyError } from '../../services/library/library-store';
import { documentSources } from './documents';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

const GONE = 'That saved item no longer exists.';

/** Errors the user can act on become values; anything else stays an internal error. */
async function userErrors<T>(run: () => Promise<T>): Promise<T | ReturnType<typeof fail>> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof LibraryError || error instanceof LibraryReadOnlyError) return fail({ code: 'invalid_request', message: error.message });
    if (error instanceof BundleError) return fail({ code: 'invalid_request', message: `This bundle was refused and nothing was written: ${error.message}` });
    throw error;
  }
}

export function libraryHandlers(context: HandlerContext): HandlerMap<MethodsIn<'library'>> {
  const { library } = context;
  /**
   * Where the host has a folder dialog, a team library is a folder the user picked in it: main
   * keeps what the dialog returned, and the renderer cannot add any other path. (The browser
   * host has no dialog: there the path is typed, and the system-folder rule still applies.)
   */
  const picked = new Set<string>();
  const save = (source: ExportSource, location: string | undefined) =>
    userErrors(async () => {
      const doc = await buildDocument(source, documentSources(context));
      if (!doc) return fail({ code: 'not_found', message: 'There is nothing to save yet: the answer or report has no text.' });
      const item = await library.save({ kind: doc.kind, title: doc.title, markdown: doc.markdown, citations: doc.citations, createdAt: doc.createdAt, meta: doc.meta }, location);
      return ok(library.summary(item.id, location)!);
    });
  const summaryOr = (id: string, message = GONE) => {
    const summary = library.summary(id);
    return summary ? ok(summary) : fail({ code: 'not_found', message });
  };
  return {
    'library.search': (query) => userErrors(async () => ok(library.search(query))),
    'library.facets': () => ok(library.facets()),
    'library.get': async ({ id, location }) => {
      const item = await library.view(id, location);
      return item ? ok(item) : fail({ code: 'not_found', message: GONE });
    },
    'library.saveAnswer': ({ location, ...args }) => save({ kind: 'answer', ...args }, location),
    'library.saveConversation': ({ location, ...args }) => save({ kind: 'conversation', ...args }, location),
    'library.saveReport': ({ location, ...args }) => save({ kind: 'report', ...args }, location),
    'library.update': ({ id, revision, ...patch }) =>
      userErrors(async () => {
        const result = await library.find(id)?.updateWithConflict(id, patch, revision);
        const summary = result && library.summary(id);
        return summary ? ok({ ...summary, conflict: result.conflict }) : fail({ code: 'not_found', message: GONE });
      }),
    'library.delete': ({ id }) => userErrors(async () => ((await library.find(id)?.remove(id)) ? ok({ deleted: true as const }) : fail({ code: 'not_found', message: GONE }))),
    'library.restore': ({ id }) =>
      userErrors(async () => {
        const store = [...library.locations()].map((l) => library.store(l.id)).find((s) => s.index.entries.get(id)?.deletedAt);
        const item = await store?.restore(id);
        return item ? summaryOr(id) : fail({ code: 'not_found', message: 'Nothing to restore.' });
      }),
    'library.locations': () => ok(library.locations()),
    'library.addLocation': ({ path, name }) =>
      userErrors(async () => {
        if (context.capabilities.pickFolder && !picked.has(resolve(path))) throw new LibraryError('Choose the team folder with “Choose…”: the app adds only a folder picked in the folder dialog.');
        const location = await library.addLocation(path, name);
        picked.delete(resolve(path));
        return ok(location);
      }),
    'library.pickFolder': async () => {
      if (!context.capabilities.pickFolder) return ok({ available: false, path: null });
      const path = await context.capabilities.pickFolder();
      if (path) picked.add(resolve(path));
      return ok({ available: true, path });
    },
    'library.removeLocation': ({ id }) =>
      userErrors(async () => {
        await library.removeLocation(id);
        return ok(library.locations());
      }),
    'library.transfer': ({ id, to, mode }) =>
      userErrors(async () => {
        const item = await library.transfer(id, to, mode);
        return ok(library.summary(item.id, to)!);
      }),
    'library.resolveConflict': ({ id, file, keep }) =>
      userErrors(async () => {
        const item = await library.find(id)?.resolveConflict(id, file, keep);
        return item ? summaryOr(id) : fail({ code: 'not_found', message: 'That conflict has already been resolved.' });
      }),
    'library.exportBundle': ({ ids, tag }) =>
      userErrors(async () => {
        const wanted = new Set(ids ?? []);
        if (tag) for (const hit of library.search({ tag }, 5_000).items) wanted.add(hit.id);
        const items = (await Promise.all([...wanted].map((id) => library.get(id)))).filter((item) => item !== undefined);
        if (items.length === 0) return fail({ code: 'not_found', message: 'Nothing to put in a bundle: choose saved items or a tag.' });
        const data = exportBundle(items, tag ? `tag: ${tag}` : items.length === 1 ? items[0]!.title : `${items.length} items`);
        const base = (tag ?? items[0]!.title).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'library';
        const filename = `${base}.clarity`;
        if (context.capabilities.saveFile) return ok({ filename, mime: 'application/zip', savedPath: await context.capabilities.saveFile(filename, data), base64: null });
        return ok({ filename, mime: 'application/zip', savedPath: null, base64: data.toString('base64') });
      }),
    'library.inspectBundle': ({ data, location }) => userErrors(async () => ok(planImport((await readBundleInBackground(Buffer.from(data, 'base64'))).items, library.store(location)))),
    'library.importBundle': ({ data, location, replace }) =>
      userErrors(async () => {
        const { items } = await readBundleInBackground(Buffer.from(data, 'base64'));
        return ok(await applyImport(items, library.store(location), replace));
      }),
  };
}
