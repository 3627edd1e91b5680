/**
 * Every bridge method's handler, one file per domain. The map is typed against the contract:
 * a method without a handler, or a handler of the wrong type, does not compile.
 */
import { answerHandlers } from './answers';
import { conversationHandlers } from './conversations';
import { dataHandlers } from './data';
import { credentialHandlers } from './credentials';
import { desktopHandlers } from './desktop';
import { developerHandlers } from './developer';
import { discoverHandlers } from './discover';
import { forecastHandlers } from './forecast';
import { watchlistHandlers } from './watchlist';
import { exportHandlers } from './export';
import { healthHandlers } from './health';
import { libraryHandlers } from './library';
import { linkHandlers } from './links';
import { noticeHandlers } from './notices';
import { researchHandlers } from './research';
import { settingsHandlers } from './settings';
import { signalHandlers } from './signals';
import { sourceHandlers } from './sources';
import type { HandlerContext, HandlerMap } from './types';

export type { Handler, HandlerContext, HandlerMap, MethodsIn } from './types';

export function createHandlers(context: HandlerContext): HandlerMap {
  return {
    ...settingsHandlers(context),
    ...credentialHandlers(context),
    ...linkHandlers(context),
    ...conversationHandlers(context),
    ...signalHandlers(context),
    ...researchHandlers(context),
    ...healthHandlers(context),
    ...libraryHandlers(context),
    ...exportHandlers(context),
    ...discoverHandlers(context),
    ...watchlistHandlers(context),
    ...forecastHandlers(context),
    ...developerHandlers(context),
    ...dataHandlers(context),
    ...desktopHandlers(context),
    ...noticeHandlers(context),
    ...answerHandlers(context),
    ...sourceHandlers(context),
  };
}
