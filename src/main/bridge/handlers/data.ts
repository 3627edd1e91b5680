/** What the user must know about their data: files set aside, a folder that cannot be written. */
import { ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function dataHandlers({ notices }: HandlerContext): HandlerMap<MethodsIn<'data'>> {
  return {
    'data.notices': () => ok(notices.list()),
  };
}
