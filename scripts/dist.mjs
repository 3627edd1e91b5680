#!/usr/bin/env node
/**
 * `npm run dist`: installers for the current platform (Linux AppImage + deb, Windows NSIS + MSI,
 * macOS dmg) with electron-builder, from electron-builder.yml. First checks what packaging needs
 * and, where something is missing, says exactly what and stops before building anything.
 *   npm run dist                 build for this platform
 *   npm run dist -- --check      only report the prerequisites
 *   npm run dist -- --dir        an unpacked app folder only (quick check of the packed app)
 * Any other argument goes to electron-builder (e.g. `--x64 --arm64`).
 * Environment: CLARITY_UPDATE_FEED_URL bakes an update feed into the build; signing and
 * notarisation variables are listed at the top of electron-builder.yml.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const passThrough = args.filter((arg) => arg !== '--check');

const electronDir = dirname(require.resolve('electron/package.json'));
const electronVersion = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
/** Electron's own dist folder, used as electronDist so nothing is downloaded at packaging time. */
const electronDist = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(electronDir, 'dist');

function electronBinaryPresent() {
  const pathFile = join(electronDir, 'path.txt');
  return existsSync(pathFile) && existsSync(join(electronDist, readFileSync(pathFile, 'utf8').trim()));
}

const missing = [];
const notes = [];
if (!electronBinaryPresent()) {
  missing.push(
    `Electron ${electronVersion}'s binary for ${process.platform}-${process.arch} (expected in ${electronDist}). ` +
      'Install it with `node node_modules/electron/install.js` on a machine that can reach Electron\'s releases, ' +
      'or set ELECTRON_OVERRIDE_DIST_PATH to an unpacked Electron of that version.',
  );
}
if (!existsSync(join(root, 'node_modules/@github/keytar'))) {
  notes.push('keytar (optional) is not installed: the packaged app will keep credentials for the session only.');
}
if (process.platform === 'linux') {
  notes.push('Linux: the AppImage and deb tools are fetched by electron-builder on first use into ELECTRON_BUILDER_CACHE; offline machines need that cache prepared (or USE_SYSTEM_FPM=true with fpm installed).');
  notes.push('Linux: rebuilding keytar for Electron needs Electron\'s headers (fetched by @electron/rebuild) plus a C++ toolchain and libsecret-1-dev.');
}
if (process.platform === 'win32') notes.push('Windows: signing uses CSC_LINK/CSC_KEY_PASSWORD when set; the MSI needs WiX, fetched by electron-builder on first use.');
if (process.platform === 'darwin') notes.push('macOS: signing uses the keychain identity or CSC_LINK; notarisation runs only with APPLE_API_KEY/APPLE_API_KEY_ID/APPLE_API_ISSUER (or APPLE_ID/APPLE_APP_SPECIFIC_PASSWORD/APPLE_TEAM_ID).');
if (!['linux', 'win32', 'darwin'].includes(process.platform)) missing.push(`a supported build platform (this is ${process.platform}; use Linux, Windows or macOS).`);

for (const note of notes) console.log(`note: ${note}`);
if (missing.length > 0) {
  console.error('\nnpm run dist cannot build installers on this machine. Missing:');
  for (const item of missing) console.error(`  - ${item}`);
  console.error('\nNothing was built. The packaging configuration itself is checked by `npx vitest run test/unit/packaging-config.test.ts`.');
  process.exit(1);
}
if (checkOnly) {
  console.log(`Everything npm run dist needs is here (Electron ${electronVersion}, ${process.platform}-${process.arch}).`);
  process.exit(0);
}

function run(command, commandArgs) {
  console.log(`\n> ${command} ${commandArgs.join(' ')}`);
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', env: process.env });
  return result.status ?? 1;
}

if (run(npm, ['run', 'build']) !== 0) process.exit(1);
const builderArgs = ['electron-builder', '--config', 'electron-builder.yml', '--publish', 'never', `-c.electronDist=${electronDist}`, `-c.electronVersion=${electronVersion}`];
if (process.env.CLARITY_UPDATE_FEED_URL) builderArgs.push(`-c.publish.url=${process.env.CLARITY_UPDATE_FEED_URL}`);
const status = run(npx, [...builderArgs, ...passThrough]);
// electron-builder rebuilt keytar in place for Electron's ABI; rebuild it for Node so the
// browser host and the tests keep a working keychain.
if (existsSync(join(root, 'node_modules/@github/keytar'))) run(npm, ['rebuild', '@github/keytar']);
if (status !== 0) {
  console.error('\nelectron-builder failed (see above). Installers, where built, are in dist/.');
  process.exit(status);
}
console.log('\nInstallers are in dist/.');
