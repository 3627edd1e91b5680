/** Links leave the app only through the allow-list (SECURITY.md). */
import { fail, ok } from '../../../shared/bridge-contract';
import { safeExternalUrl } from '../../services/links/external-links';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function linkHandlers({ capabilities }: HandlerContext): HandlerMap<MethodsIn<'links'>> {
  return {
    'links.openExternal': async (args) => {
      const url = safeExternalUrl(args.url);
      if (!url) return fail({ code: 'invalid_argument', message: 'Only http, https and mailto links can be opened.' });
      return ok({ opened: await capabilities.openExternal(url) });
    },
  };
}
