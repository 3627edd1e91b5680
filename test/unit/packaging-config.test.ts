/**
 * The packaging configuration, checked on every machine (installers are built only where an
 * Electron binary exists): electron-builder's own schema, every file it names, and the fuses.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FuseV1Options } from '@electron/fuses';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error plain ESM script without types
import { fuseConfigFor, packedExecutable } from '../../scripts/after-pack.mjs';

const root = join(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
type Section = Record<string, string | boolean | string[] | undefined> & { target: string[]; icon: string; artifactName: string };
interface BuilderConfig {
  appId: string;
  productName: string;
  artifactName: string;
  afterPack: string;
  main?: string;
  files: string[];
  asarUnpack: string[];
  npmRebuild: boolean;
  protocols: Array<{ schemes: string[] }>;
  linux: Section;
  win: Section;
  mac: Section & { entitlements: string; entitlementsInherit: string; notarize: boolean; hardenedRuntime: boolean };
  nsis: Section;
  msi: Section;
  dmg: Section;
}
const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main: string; devDependencies: Record<string, string> };

describe('electron-builder.yml', () => {
  it('passes electron-builder\'s own schema validation', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration: (config: unknown, logger: unknown) => Promise<void>;
    };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    // The validator really rejects a wrong option (so the pass above means something).
    await expect(validateConfiguration({ ...config, nsis: { ...config.nsis, perMachin: true } }, new DebugLogger(false))).rejects.toThrow(/configuration.nsis/);
    // Loading electron-builder and its JSON schema takes a few seconds on a busy machine.
  }, 30_000);

  it('names only files that exist', () => {
    const named = [config.afterPack, config.linux.icon, config.win.icon, config.mac.icon, config.mac.entitlements, config.mac.entitlementsInherit, config.main ?? pkg.main];
    for (const file of named.filter(Boolean)) expect(existsSync(join(root, file)) || file === pkg.main, `${file} is named but missing`).toBe(true);
    // The Linux icon folder has the sizes desktop environments look for, named by size.
    const sizes = readdirSync(join(root, config.linux.icon)).map((name) => name.replace(/x\d+\.png$/, ''));
    expect(sizes).toEqual(expect.arrayContaining(['16', '32', '48', '128', '256', '512']));
    expect(existsSync(join(root, 'build/icon.svg'))).toBe(true);
    // The Electron-side entry points electron-vite emits are the ones the app loads.
    expect(pkg.main).toBe('out/main/index.js');
    expect(config.files).toContain('out/**/*');
  });

  it('builds every installer IT asked for, with the version in each file name', () => {
    expect(config.linux.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(config.win.target).toEqual(expect.arrayContaining(['nsis', 'msi']));
    expect(config.mac.target).toEqual(['dmg']);
    for (const name of [config.artifactName, config.nsis.artifactName, config.msi.artifactName, config.dmg.artifactName]) expect(name).toContain('${version}');
    // NSIS offers the per-machine install; the MSI is per-machine for deployment tools.
    expect(config.nsis.oneClick).toBe(false);
    expect(config.nsis.allowElevation).toBe(true);
    expect(config.msi.perMachine).toBe(true);
    expect(config.appId).toMatch(/^[a-z]+(\.[a-z]+)+$/);
    expect(config.productName).toBe('Clarity Desktop');
    expect(config.protocols[0]?.schemes).toEqual(['clarity-desktop']);
  });

  it('keeps keytar out of the asar and rebuilds native modules for Electron', () => {
    expect(config.asarUnpack).toContain('**/node_modules/@github/keytar/**');
    expect(config.npmRebuild).toBe(true);
    expect(pkg.devDependencies['@electron/rebuild']).toBeDefined();
  });

  it('holds no secret: signing comes from the environment only', () => {
    const text = readFileSync(join(root, 'electron-builder.yml'), 'utf8');
    for (const key of ['cscLink', 'cscKeyPassword', 'certificatePassword', 'appleIdPassword']) expect(text).not.toContain(`${key}:`);
    expect(config.mac.notarize).toBe(true);
    expect(config.mac.hardenedRuntime).toBe(true);
  });
});

describe('fuses flipped after packing', () => {
  it('turns off RunAsNode, NODE_OPTIONS and inspect; turns on cookie encryption and ASAR-only loading', () => {
    for (const platform of ['linux', 'win32', 'darwin']) {
      const wire = fuseConfigFor(platform, 'x64');
      expect(wire[FuseV1Options.RunAsNode]).toBe(false);
      expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(false);
      expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(false);
      expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(true);
      expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true);
    }
    expect(fuseConfigFor('darwin', 'arm64')[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
    expect(fuseConfigFor('win32', 'x64')[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
    expect(fuseConfigFor('darwin', 'arm64').resetAdHocDarwinSignature).toBe(true);
  });

  it('finds the packed executable on each platform', () => {
    expect(packedExecutable('win32', '/o', 'Clarity Desktop', 'clarity-desktop')).toBe(join('/o', 'Clarity Desktop.exe'));
    expect(packedExecutable('darwin', '/o', 'Clarity Desktop', 'clarity-desktop')).toBe(join('/o', 'Clarity Desktop.app'));
    expect(packedExecutable('linux', '/o', 'Clarity Desktop', 'clarity-desktop')).toBe(join('/o', 'clarity-desktop'));
  });

  it('is wired as the afterPack hook, and the app never needs ELECTRON_RUN_AS_NODE', () => {
    expect(config.afterPack).toBe('./scripts/after-pack.mjs');
    const entry = readFileSync(join(root, 'src/main/electron/main.ts'), 'utf8');
    expect(entry).not.toMatch(/ELECTRON_RUN_AS_NODE['"]?\s*:/);
    expect(entry).toContain('utilityProcess.fork(');
  });
});
