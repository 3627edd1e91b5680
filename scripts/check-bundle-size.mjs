/**
 * `npm run size`: the renderer bundle size gate (issue 18), run by `npm test` right after the
 * build. Reads the built out/renderer: the entry chunk the page loads (the "main chunk") must
 * stay within its budget, minified, and so must everything start-up loads (the entry and the
 * chunks it preloads), so splitting the entry cannot hide a growth. Lazily loaded chunks are
 * printed, not gated.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const OUT = 'out/renderer';
const MAIN_CHUNK_BUDGET_KB = 350;

const html = await readFile(join(OUT, 'index.html'), 'utf8');
const entry = /<script type="module"[^>]*src="\.\/([^"]+)"/.exec(html)?.[1];
if (!entry) throw new Error('check-bundle-size: no module script in out/renderer/index.html (run npm run build first)');
const preloaded = [...html.matchAll(/<link rel="modulepreload"[^>]*href="\.\/([^"]+)"/g)].map((m) => m[1]);
const kb = async (file) => (await stat(join(OUT, file))).size / 1024;

const entryKb = await kb(entry);
let startupKb = entryKb;
for (const file of preloaded) startupKb += await kb(file);
const lazy = (await readdir(join(OUT, 'assets'))).filter((f) => f.endsWith('.js') && `assets/${f}` !== entry && !preloaded.includes(`assets/${f}`));
let lazyKb = 0;
for (const file of lazy) lazyKb += await kb(`assets/${file}`);

console.log(`Renderer main chunk ${entry}: ${entryKb.toFixed(1)} KB minified (budget ${MAIN_CHUNK_BUDGET_KB} KB)`);
console.log(`Loaded at start-up (entry + ${preloaded.length} preloaded): ${startupKb.toFixed(1)} KB; loaded later (${lazy.length} chunks): ${lazyKb.toFixed(1)} KB`);
if (startupKb > MAIN_CHUNK_BUDGET_KB) {
  console.error(`check-bundle-size: start-up loads ${(startupKb - MAIN_CHUNK_BUDGET_KB).toFixed(1)} KB over budget. Keep zod and view-only code out of it (app/lazy-views.tsx).`);
  process.exit(1);
}
