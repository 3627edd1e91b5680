/** Settings and which service the app talks to. */
import packageJson from '../../../../package.json';
import { ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function settingsHandlers({ settings, connection }: HandlerContext): HandlerMap<MethodsIn<'settings' | 'service'>> {
  return {
    'settings.get': () => ok(settings.get()),
    'settings.about': () => ok({ name: 'Clarity Desktop', version: packageJson.version }),
    'service.status': () => ok(connection.status),
    'service.retry': async () => ok(await connection.retry()),
    'settings.setTrustedHosts': async ({ hosts }) => ok(await settings.update({ trustedHosts: [...new Set(hosts)] })),
    'settings.setTheme': async ({ theme }) => ok(await settings.update({ theme })),
    'settings.setDisplay': async (display) => ok(await settings.update({ display })),
    'service.set': async (service) => {
      await settings.update({ service });
      await connection.apply(service);
      return ok(connection.status);
    },
  };
}
