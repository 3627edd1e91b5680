#!/usr/bin/env node
/**
 * `npm start`: builds, then launches Electron. Where the Electron binary is missing (it cannot
 * be downloaded on every machine), says so plainly and starts the browser host instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function electronBinary() {
  try {
    const path = require('electron'); // the package exports the binary's path
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
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
