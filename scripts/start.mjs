#!/usr/bin/env node
/**
 * `npm start`: builds, then launches Electron. Where the Electron binary is missing (it cannot
 * be downloaded on every machine), says so plainly and starts the browser host instead, shown
 * in a Chromium app window (`--app=` with its own profile) when Chromium is installed; the URL
 * is printed either way.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const electronDir = dirname(require.resolve('electron/package.json'));

/** The Electron binary if it is installed; never downloads (requiring `electron` would). */
function electronBinary() {
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(electronDir, 'dist'), readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

/** Chromium (or Chrome) if installed: CHROMIUM_PATH, then the usual names on PATH. */
function chromiumBinary() {
  if (process.env.CHROMIUM_PATH) return existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : null;
  const names = process.platform === 'win32' ? [] : ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of names) if (existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/**
 * The browser host in a window of its own: Chromium's app mode (no tabs, no address bar) with a
 * profile used only by Clarity, so it never mixes with the user's browsing. Set
 * CLARITY_NO_APP_WINDOW=1 to only print the URL.
 */
function openAppWindow(url) {
  if (process.env.CLARITY_NO_APP_WINDOW === '1') return null;
  const chromium = chromiumBinary();
  if (!chromium) {
    console.log('Chromium is not installed here: open the URL above in a browser.');
    return null;
  }
  const dataDir = process.env.CLARITY_DATA_DIR ?? join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Clarity Desktop');
  const profile = join(dataDir, 'browser-window-profile');
  mkdirSync(profile, { recursive: true });
  const args = [
    `--app=${url}`,
    `--user-data-dir=${profile}`,
    '--window-size=1280,820',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-sync',
    '--disable-background-networking',
    '--disable-component-update',
  ];
  // Chromium refuses to run as root with its sandbox (containers, CI).
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  console.log(`Opening Clarity in a Chromium app window (${chromium}, profile ${profile}).`);
  const browser = spawn(chromium, args, { stdio: 'ignore' });
  browser.on('error', (error) => console.log(`Chromium could not be started (${error.message}): open the URL above in a browser.`));
  return browser;
}

let binary = electronBinary();
if (!binary) {
  // Electron 45 fetches its binary on first use; try once, quietly (offline this fails fast).
  spawnSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'ignore', timeout: 180_000 });
  binary = electronBinary();
}
if (!binary) {
  console.log('Electron\'s binary is not installed on this machine (it could not be downloaded), so Clarity starts in the browser host instead:');
  console.log('the same main-process services and renderer, served on 127.0.0.1, shown in a Chromium app window where Chromium is installed.\n');
  const child = spawn(npm, ['run', 'web', '--', ...process.argv.slice(2)], { stdio: ['inherit', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  let browser = null;
  lines.on('line', (line) => {
    // The host's JSON lines are for us; the person sees its words (the launch URL once).
    if (!line.startsWith('{"event":')) console.log(line);
    if (browser || !line.startsWith('{"event":"browser-host-ready"')) return;
    try {
      browser = openAppWindow(JSON.parse(line).url);
    } catch {
      // Not our line after all; the URL is printed above either way.
    }
  });
  child.on('exit', (code) => {
    if (browser && browser.exitCode === null) browser.kill();
    process.exit(code ?? 0);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
} else {
  const build = spawnSync(npm, ['run', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const child = spawn(binary, ['.'], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
}
