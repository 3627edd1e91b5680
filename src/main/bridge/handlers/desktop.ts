/** The desktop shell: network path and its test, logs folder, commands queued before the renderer listened. */
import { fail, ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function desktopHandlers({ capabilities: { desktop }, connection }: HandlerContext): HandlerMap<MethodsIn<'desktop'>> {
  return {
    'desktop.info': async () => ok(await desktop.info(connection.status.baseUrl)),
    'desktop.testConnection': async () => {
      const url = connection.status.baseUrl;
      if (!url) return fail({ code: 'unavailable', message: 'No service address yet: the local service is still starting.' });
      return ok(await desktop.testConnection(url));
    },
    'desktop.openLogsFolder': async () => ok(await desktop.openLogsFolder()),
    'desktop.takePendingCommands': () => ok(desktop.takePendingCommands()),
  };
}
