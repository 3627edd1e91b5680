/**
 * `npm run bench:library-profile`: where a later open of a 10,000-item library spends its time
 * until search is usable (the persisted index loaded), from a V8 CPU profile (node:inspector) of
 * that open alone. Prints the time to search-usable and the functions with the most self time.
 * Used for bench/notes.md; it judges nothing.
 */
import { Session } from 'node:inspector/promises';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibraryStore } from '../../src/main/services/library/library-store';
import { writeLibraryItems } from './library-bench';
import { cpuProfileTopSelf, type CpuProfile } from './trace-self-time';


const dir = await mkdtemp(join(tmpdir(), 'clarity-libprofile-'));
try {
  await writeLibraryItems(dir, 10_000);
  const options = { dir: join(dir, 'library'), location: { id: 'personal', name: 'Personal', kind: 'personal' as const }, device: { id: 'bench', name: 'bench' }, cacheBase: join(dir, 'library-cache', 'personal') };
  const first = new LibraryStore(options);
  await first.ready;
  await first.writeCache();
  await first.close();
  for (const part of ['head.json', 'entries.json', 'texts.bin', 'index.bin']) console.log(`cache ${part}: ${((await stat(`${options.cacheBase}.${part}`)).size / 2 ** 20).toFixed(1)} MB`);

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const started = performance.now();
  const store = new LibraryStore(options);
  await store.firstResults;
  const firstResults = performance.now() - started;
  while (store.search({ text: 'Tanishq' }).total === 0) await new Promise<void>((resolve) => { const stop = store.onChange(() => { stop(); resolve(); }); });
  const usable = performance.now() - started;
  const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
  await store.ready;
  const ready = performance.now() - started;
  await store.close();
  session.disconnect();
  console.log(`later open: first results ${firstResults.toFixed(0)} ms, search usable ${usable.toFixed(0)} ms, folder checked (ready) ${ready.toFixed(0)} ms`);
  console.log('self time until search usable (ms):');
  for (const [name, ms] of cpuProfileTopSelf(profile, 15)) console.log(`  ${ms.toFixed(1).padStart(8)}  ${name}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
