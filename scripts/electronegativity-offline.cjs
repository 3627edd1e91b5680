// Loaded (--require) into Electronegativity's process by scripts/electron-scan.mjs.
// Electronegativity looks up its translations and Electron's release list online with got 11.
// Offline, on Node 24, got's retry timer throws from p-cancelable after the request has already
// failed ("onCancel handler was attached after the promise settled"), which kills the scan although
// both look-ups are optional (bundled translations are used; the release check is excluded).
// got's retry also surfaces the failed request itself as an unhandled RequestError. Only those
// two errors of got are ignored; anything else still ends the process.
'use strict';
const GOT_OFFLINE_RETRY = 'The `onCancel` handler was attached after the promise settled.';
const isOfflineLookup = (error) =>
  Boolean(error) && (error.message === GOT_OFFLINE_RETRY || (error.name === 'RequestError' && typeof error.code === 'string'));
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    if (isOfflineLookup(error)) return;
    console.error(error);
    process.exit(1);
  });
}
