#!/usr/bin/env node
/**
 * Regenerates the app icons from build/icon.svg (the outputs are committed, so packaging never
 * needs this). Needs rsvg-convert (Debian: librsvg2-bin) for SVG → PNG; png2icons writes the
 * Windows .ico and macOS .icns from the 1024 px PNG.
 *   build/icons/<size>x<size>.png  Linux (electron-builder picks sizes from the folder)
 *   build/icon.png (1024)  build/icon.ico  build/icon.icns
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import png2icons from 'png2icons';

const buildDir = fileURLToPath(new URL('../build/', import.meta.url));
const source = `${buildDir}icon.svg`;
export const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

function render(size, out) {
  const result = spawnSync('rsvg-convert', ['-w', String(size), '-h', String(size), '-o', out, source], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    console.error(`rsvg-convert failed (${result.error?.message ?? result.stderr.trim()}). Install it: apt-get install -y librsvg2-bin`);
    process.exit(1);
  }
}

mkdirSync(`${buildDir}icons`, { recursive: true });
for (const size of LINUX_SIZES) render(size, `${buildDir}icons/${size}x${size}.png`);
render(1024, `${buildDir}icon.png`);
const master = readFileSync(`${buildDir}icon.png`);
writeFileSync(`${buildDir}icon.ico`, png2icons.createICO(master, png2icons.BICUBIC2, 0, false, true));
writeFileSync(`${buildDir}icon.icns`, png2icons.createICNS(master, png2icons.BICUBIC2, 0));
console.log(`Icons written to ${buildDir}`);
