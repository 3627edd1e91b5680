import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

/**
 * Three builds, one per process. The main build also emits the local service as its own
 * entry so the supervisor can run it in a separate process (an Electron utility process, or
 * Node under the browser host), and the browser host (`npm run web`), so neither transpiles
 * TypeScript at every start.
 */
export default defineConfig({
  main: {
    build: {
      // keytar is an optional dependency (not externalized by default): bundled, it could not
      // find its native addon, and the keychain would silently fall back to session-only.
      // zod, jose and yaml are bundled (tree-shaken: zod alone is 95 files, all its locales, when
      // loaded from node_modules); all are plain JavaScript that reads no files beside itself.
      externalizeDeps: { include: ['@github/keytar'], exclude: ['zod', 'jose', 'yaml'] },
      rollupOptions: {
        input: {
          index: resolve('src/main/electron/main.ts'),
          // The service's entry turns on Node's compile cache, then loads the CLI (src/service/main.ts).
          service: resolve('src/service/main.ts'),
          'browser-host': resolve('src/main/browser-host/cli.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // SECURITY: a sandboxed preload can require only electron; bundle everything else.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        // SECURITY: a sandboxed preload must be a single CommonJS file.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    build: {
      // electron-vite leaves the renderer unminified; minified it parses and loads faster
      // (the size gate in scripts/check-bundle-size.mjs reads this output).
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
    plugins: [react()],
  },
});
