/** Forecasts of an entity's metric from the service's predict surface. */
import { Forecast } from '../../../shared/surface-schemas';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function forecastHandlers({ connection }: HandlerContext): HandlerMap<MethodsIn<'forecast'>> {
  return {
    'forecast.get': async (request) => {
      const client = connection.requireClient();
      if (!client.ok) return client;
      return client.value.callJson('POST', '/api/v1/predict', request, Forecast, 'a forecast');
    },
  };
}
