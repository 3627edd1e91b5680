#!/usr/bin/env node
/**
 * `npm start`: builds, then launches Electron. Where the Electron binary is missing (it cannot
 * be downloaded on every machine), says so plainly and starts the browser host instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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

let binary = electronBinary();
if (!binary) {
  // Electron 45 fetches its binary on first use; try once, quietly (offline this fails fast).
  spawnSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'ignore', timeout: 180_000 });
  binary = electronBinary();
}
if (!binary) {
  console.log('Electron\'s binary is not installed on this machine (it could not be downloaded), so Clarity starts in the browser host instead:');
  console.log('the same main-process services and renderer, served on 127.0.0.1. Open the URL printed below in Chromium.\n');
  const child = spawn(npm, ['run', 'web', '--', ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  const build = spawnSync(npm, ['run', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const child = spawn(binary, ['.'], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
}
