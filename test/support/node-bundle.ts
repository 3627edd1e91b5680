/**
 * A TypeScript script a test runs as a process many times, bundled once into one plain ES module
 * that `node` runs without a TypeScript loader. Started under tsx each time, every start paid
 * for the loader and the resolving and loading of the source's modules (library-crash starts its
 * writer 30 times); bundled, a start is Node's own. Vite (the test runner's own bundler) builds
 * it as a server bundle with every dependency inside, so the file runs from any folder.
 */
import { join } from 'node:path';
import { build } from 'vite';

/** Bundles `entry` (a path from the repository's root) into `outDir`; returns the file to run with `node`. */
export async function bundleForNode(entry: string, outDir: string): Promise<string> {
  await build({
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    build: {
      ssr: entry,
      outDir,
      emptyOutDir: false,
      minify: false,
      sourcemap: false,
      target: 'node24',
      rolldownOptions: {
        output: {
          format: 'es',
          entryFileNames: 'entry.mjs',
          // Bundled CommonJS dependencies (write-file-atomic) read these, which an ES module lacks.
          banner: 'const __filename = import.meta.filename; const __dirname = import.meta.dirname;',
        },
      },
    },
    ssr: { noExternal: true, target: 'node' },
  });
  return join(outDir, 'entry.mjs');
}
