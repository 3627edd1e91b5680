/** Forecasts of an entity's metric from the service's predict surface; saving one to the library. */
import { fail, ok } from '../../../shared/bridge-contract';
import { forecastDocument } from '../../services/export/forecast-document';
import { documentSources } from './documents';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function forecastHandlers(context: HandlerContext): HandlerMap<MethodsIn<'forecast'>> {
  const { connection, library } = context;
  return {
    'forecast.get': async (request) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      return client.value.call('predict', { body: request }, 'a forecast');
    },
    'forecast.metrics': async ({ entity }) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      return client.value.call('forecastable', { query: new URLSearchParams({ entity }) }, "an entity's forecastable metrics");
    },
    // Saved as an answer through the library's ordinary save: the store needs no forecast kind.
    'forecast.save': async (source) => {
      const sources = documentSources(context);
      const doc = await forecastDocument(source, sources.client?.() ?? null, sources.serviceUrl());
      const item = await library.save({ kind: doc.kind, title: doc.title, markdown: doc.markdown, citations: doc.citations, createdAt: doc.createdAt, meta: doc.meta });
      const summary = library.summary(item.id);
      return summary ? ok(summary) : fail({ code: 'internal', message: 'The forecast was saved but could not be listed.' });
    },
  };
}
