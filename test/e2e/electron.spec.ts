/**
 * The Electron shell end to end (_electron.launch). Runs wherever an Electron binary is
 * installed; skips with the reason where it is not (it cannot be downloaded on every machine).
 */
import { _electron as electron, expect, test } from '@playwright/test';
import { triggerCspViolation } from './fixtures';
import { ChatPage, StatusBar } from './pages';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The installed Electron binary, found without requiring `electron` (that would download it). */
function electronBinary(): string | null {
  const dir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(dir, 'dist'), readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

const binary = electronBinary();
test.skip(!binary, 'Electron binary not installed on this machine (it could not be downloaded); the browser-host specs cover the same renderer and services.');

test('the Electron window is hardened, exposes only the bridge, and answers a question', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'clarity-electron-'));
  const app = await electron.launch({ executablePath: binary!, args: ['.'], env: { ...process.env, CLARITY_DATA_DIR: dataDir } });
  try {
    const window = await app.firstWindow();
    await expect(window).toHaveTitle('Clarity Desktop');
    const keys = await window.evaluate(() => Object.keys((window as unknown as { clarity: object }).clarity).sort());
    expect(keys).toEqual(['abortStream', 'host', 'invoke', 'onPush', 'onStreamMessage', 'startStream']);
    // Node stays out of the page: no require, no process (nodeIntegration off, context isolated).
    expect(await window.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    expect(await window.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
    // The CSP is enforced: an injected inline script does not run and a violation is reported.
    const violated = await triggerCspViolation(window);
    expect(violated).toMatch(/^script-src/);
    // Navigation away and new windows are blocked; permissions are denied. Main's own
    // will-navigate handler runs first; a listener added here sees whether it refused.
    await app.evaluate(({ BrowserWindow }) => {
      const contents = BrowserWindow.getAllWindows()[0]!.webContents;
      (globalThis as { __navigation?: Promise<string> }).__navigation = new Promise((resolve) =>
        contents.once('will-navigate', (event, url) => resolve(`${url} ${event.defaultPrevented ? 'refused' : 'allowed'}`)),
      );
    });
    await window.evaluate(() => {
      location.href = 'https://example.com/';
    });
    expect(await app.evaluate(() => (globalThis as { __navigation?: Promise<string> }).__navigation)).toBe('https://example.com/ refused');
    expect(window.url()).toMatch(/^clarity:\/\/app\//);
    expect(await window.evaluate(() => globalThis.open('https://example.com/') === null)).toBe(true);
    expect(app.windows()).toHaveLength(1);
    expect(await window.evaluate(() => Notification.requestPermission())).toBe('denied');
    expect(await window.evaluate(() => document.createElement('webview').constructor.name)).not.toBe('WebView');

    await expect(new StatusBar(window).serviceState).toHaveText(/^ready/, { timeout: 60_000 });
    const chat = new ChatPage(window);
    await chat.ask('How fast is quick commerce growing in Bengaluru?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
    await expect(chat.chips.first()).toBeVisible();
  } finally {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
