/** Exports: Electron saves through the system dialog; the browser host downloads the file. */
import { fail, ok } from '../../../shared/bridge-contract';
import { buildDocument } from '../../services/export/documents';
import { documentSources } from './documents';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function exportHandlers(context: HandlerContext): HandlerMap<MethodsIn<'export'>> {
  return {
    'export.render': async ({ source, format }) => {
      const doc = await buildDocument(source, documentSources(context));
      if (!doc) return fail({ code: 'not_found', message: 'There is nothing to export yet.' });
      // Loaded on first export: the PDF and Word writers (pdfkit, docx) would otherwise add
      // about a tenth of a second to every start for a feature used now and then.
      const { renderExport } = await import('../../services/export/exporter');
      const file = await renderExport(doc, format);
      if (context.capabilities.saveFile) {
        const savedPath = await context.capabilities.saveFile(file.filename, file.data);
        return ok({ filename: file.filename, mime: file.mime, savedPath, base64: null });
      }
      return ok({ filename: file.filename, mime: file.mime, savedPath: null, base64: file.data.toString('base64') });
    },
  };
}
