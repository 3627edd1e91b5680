/**
 * One sample corpus for the whole e2e suite. The embedded service generates and indexes its
 * 20,000-signal sample at its first start in a data folder and keeps it there as its corpus cache
 * (src/service/corpus/corpus-cache.ts), which a second start reads instead: a few seconds of CPU
 * on every fresh app (measured: startup_ms 20.8 s fresh against 8.1 s with the cache, load 9).
 * The suite's setup starts the service from source once and keeps its cache file; a fresh app's
 * data folder starts with a copy of it, as after the app's own first start. The cache's key
 * covers the corpus options and the service's code, so an app started with other options
 * (`--signals`, `--sources`, `--no-sample`) or after midnight UTC simply builds its own, as before.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';

/** The cache file's path, for the suite's workers (they inherit the setup's environment). */
export const WARM_CORPUS_ENV = 'CLARITY_E2E_CORPUS_CACHE';

/** Starts the service from source in a folder of its own, stops it once its index is ready (it listens before it holds its signals; the cache is written by then), and returns the folder and its cache file. */
export async function prepareWarmCorpus(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'clarity-e2e-corpus-'));
  // The app's own service (the browser host under tsx launches src/service/cli.ts), default sample.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli.ts', '--port', '0', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"index_ready"')) resolve();
    });
    void exited.then((code) => reject(new Error(`The service preparing the e2e corpus exited with ${code}:\n${stderr}`)));
  });
  // Its close waits for the cache write under way.
  child.kill('SIGTERM');
  await exited;
  const name = (await readdir(dir)).find((entry) => /^corpus-cache-[0-9a-f]{32}\.bin$/.test(entry));
  if (!name) throw new Error(`The service wrote no corpus cache in ${dir}:\n${stderr}`);
  return { dir, file: join(dir, name) };
}

/** Gives a new app's embedded service (its folder `<data>/local-service`) the suite's corpus cache, when the setup made one. */
export async function seedCorpusCache(serviceDataDir: string): Promise<void> {
  const file = process.env[WARM_CORPUS_ENV];
  if (!file) return;
  await mkdir(serviceDataDir, { recursive: true, mode: 0o700 });
  await copyFile(file, join(serviceDataDir, basename(file)));
}

export async function removeWarmCorpus(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
