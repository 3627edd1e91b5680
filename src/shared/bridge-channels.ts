/**
 * Channel and event names of the bridge, free of any dependency so the sandboxed preload
 * (which cannot load npm packages) bundles nothing but these strings.
 */
export const IPC_CHANNELS = {
  invoke: 'clarity:invoke',
  streamStart: 'clarity:stream-start',
  streamAbort: 'clarity:stream-abort',
  streamMessage: 'clarity:stream-message',
  push: 'clarity:push',
} as const;

export const PUSH_EVENT_NAMES = ['service.status', 'credentials.status', 'research.updated', 'health.updated', 'data.notice', 'desktop.command', 'watchlist.updated', 'library.changed', 'service.notice'] as const;
