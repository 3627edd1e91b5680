/**
 * Chromium's command line for the end-to-end tests and the benches (Debian's Chromium, never a
 * downloaded one): no sandbox (root in CI), no GPU, nothing fetched in the background.
 *
 * WebUIOmniboxPopup / WebUIOmniboxAimPopup: Chromium 15x preloads its address bar's popup as a
 * WebUI page in a renderer of its own for every new window, so every browser context a test or a
 * bench opens paid ~1.2 CPU s for a popup nobody sees (5 contexts: 9.9–11.2 CPU s with it, 3.7–3.9
 * without). Electron has no address bar, so the browser host is nearer the desktop app without it.
 */
export const CHROMIUM_TEST_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
];
