/** The watchlist: follows on the service, the feed main polls and keeps, unread counts. */
import { ok } from '../../../shared/bridge-contract';
import type { HandlerContext, HandlerMap, MethodsIn } from './types';

export function watchlistHandlers({ watchlist }: HandlerContext): HandlerMap<MethodsIn<'watchlist'>> {
  return {
    'watchlist.get': () => ok(watchlist.view()),
    'watchlist.follow': (target) => watchlist.follow(target),
    'watchlist.unfollow': ({ id }) => watchlist.unfollow(id),
    'watchlist.markRead': ({ ids }) => ok(watchlist.markRead(ids)),
    'watchlist.refresh': async () => ok(await watchlist.refresh()),
  };
}
