/**
 * PGlite's WebAssembly (9 MB) and its file-system bundle (6 MB), read and compiled as early as the
 * process can, so the compile runs on V8's background threads while the main thread links the
 * service's modules and reads its caches (PGlite itself reads and compiles them only when opened,
 * after all of that). The in-memory database (tests, throw-away services) takes the result, or
 * opens PGlite the ordinary way when it failed; a data directory's database is opened on its own
 * thread instead (pglite-thread.ts), which reads them there.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface PgliteArtifacts {
  pgliteWasmModule?: WebAssembly.Module;
  fsBundle?: Blob;
}

// The service's TypeScript settings know WebAssembly's types, not its global (a DOM library's).
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }).WebAssembly;

let prepared: Promise<PgliteArtifacts> | null = null;

/** Starts reading and compiling PGlite's artifacts (once per process); never rejects. */
export function preparePgliteArtifacts(): Promise<PgliteArtifacts> {
  prepared ??= (async () => {
    // The package's files sit beside its entry (dist/); resolved as Node resolves the import.
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const [wasm, data] = await Promise.all([readFile(join(dist, 'pglite.wasm')), readFile(join(dist, 'pglite.data'))]);
    return { pgliteWasmModule: await wasmApi.compile(wasm), fsBundle: new Blob([data]) };
  })().catch(() => ({}));
  return prepared;
}
