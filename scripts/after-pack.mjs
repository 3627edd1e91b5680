/**
 * electron-builder afterPack hook: flips Electron's fuses in the packed binary, before any
 * signing (a flip after signing would break the signature). Fuses are read-only at run time,
 * so a packaged Clarity cannot be turned into a general Node runtime or debugged by injection.
 */
import { join } from 'node:path';
import { flipFuses, FuseV1Options, FuseVersion } from '@electron/fuses';

/** The fuse wire for one target. Exported for the configuration test. */
export function fuseConfigFor(platform, arch) {
  return {
    version: FuseVersion.V1,
    // An ad-hoc signature is invalidated by the flip; arm64 macOS refuses to run unsigned code.
    resetAdHocDarwinSignature: platform === 'darwin' && arch === 'arm64',
    // The embedded service runs through utilityProcess.fork, so ELECTRON_RUN_AS_NODE is never needed.
    [FuseV1Options.RunAsNode]: false,
    [FuseV1Options.EnableCookieEncryption]: true,
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
    [FuseV1Options.EnableNodeCliInspectArguments]: false,
    // Electron validates the ASAR's integrity on macOS and Windows (electron-builder embeds the hash).
    [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: platform === 'darwin' || platform === 'win32',
    [FuseV1Options.OnlyLoadAppFromAsar]: true,
    // The renderer is served from clarity://, never file://.
    [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
  };
}

/** Path of the packed Electron executable inside electron-builder's output folder. */
export function packedExecutable(platform, appOutDir, productFilename, executableName) {
  if (platform === 'darwin') return join(appOutDir, `${productFilename}.app`);
  if (platform === 'win32') return join(appOutDir, `${productFilename}.exe`);
  return join(appOutDir, executableName);
}

const ARCH_NAMES = { 0: 'ia32', 1: 'x64', 2: 'armv7l', 3: 'arm64', 4: 'universal' };

export default async function afterPack(context) {
  const platform = context.electronPlatformName;
  const arch = ARCH_NAMES[context.arch] ?? String(context.arch);
  const packager = context.packager;
  const executable = packedExecutable(platform, context.appOutDir, packager.appInfo.productFilename, packager.executableName ?? packager.appInfo.sanitizedName);
  await flipFuses(executable, fuseConfigFor(platform, arch));
  console.log(`  • fuses flipped in ${executable}`);
}
