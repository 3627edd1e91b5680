/**
 * Benchmark only (issue 31): a library's very first open (no cache), to its first page, for two
 * versions of the library code alternated in one process, on the same folders, beside the floors
 * measured just before each open (bench/notes.md, "library first page, round 5").
 *   npx tsx test/bench/library-first-open-ab.ts [--old DIR] [--rounds N] [--items N] [--profile]
 * `--old DIR`: a copy of an earlier tree (`git archive <commit> src | tar -x -C DIR`, with a
 * `node_modules` link to this one's); without it only this tree is measured. Two folders are
 * opened: one saved as the app saves now (time-ordered ids) and one as earlier versions saved
 * (random ids). With --profile, each version's first open of the first folder is also profiled
 * (V8 through node:inspector) until its first page, and the functions with the most self time
 * are printed. Each open's CPU time (user + system, all threads) is printed beside its wall time:
 * on a shared machine the wall time is mostly waiting for a core. Judges nothing.
 */
import { Session } from 'node:inspector/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { LibraryStore as Store, LibraryStoreOptions } from '../../src/main/services/library/library-store';
import type { LibraryItem } from '../../src/shared/library';
import { listingCosts, writeLibraryItems, type ItemNames } from './library-bench';
import { cpuProfileTopSelf, type CpuProfile } from './trace-self-time';

const { values } = parseArgs({ options: { old: { type: 'string' }, rounds: { type: 'string', default: '3' }, items: { type: 'string', default: '10000' }, profile: { type: 'boolean', default: false } } });
const rounds = Number(values.rounds);
const count = Number(values.items);

type StoreClass = new (options: LibraryStoreOptions) => Store;
const versions: Array<{ name: string; Store: StoreClass }> = [{ name: 'new', Store: (await import('../../src/main/services/library/library-store')).LibraryStore }];
if (values.old) versions.unshift({ name: 'old', Store: ((await import(resolve(values.old, 'src/main/services/library/library-store.ts'))) as { LibraryStore: StoreClass }).LibraryStore });

const root = await mkdtemp(join(tmpdir(), 'clarity-lib-first-open-ab-'));
let opens = 0;

/** One first open (a cache directory never used before): ms to the first page, and whether it is the newest items. */
async function firstOpen(Store: StoreClass, dir: string, items: LibraryItem[], session?: Session): Promise<{ ms: number; cpuMs: number; newest: boolean; profile?: CpuProfile }> {
  const options: LibraryStoreOptions = { dir, location: { id: 'personal', name: 'Personal', kind: 'personal' }, device: { id: 'bench', name: 'bench' }, cacheBase: join(root, `cache-${(opens += 1)}`, 'personal') };
  if (session) await session.post('Profiler.start');
  const started = performance.now();
  const cpu = process.cpuUsage();
  const store = new Store(options);
  await store.firstResults;
  while (store.search({ sort: 'date' }).items.length === 0) await new Promise<void>((done) => { const stop = store.onChange(() => { stop(); done(); }); });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const profile = session ? ((await session.post('Profiler.stop')) as { profile: CpuProfile }).profile : undefined;
  const page = store.search({ sort: 'date' }).items.map((item) => item.createdAt);
  await store.close();
  const newest = items.filter((item) => !item.deletedAt).map((item) => item.createdAt).sort().reverse().slice(0, page.length);
  return { ms: Math.round(ms * 10) / 10, cpuMs: Math.round((used.user + used.system) / 100) / 10, newest: page.length > 0 && page.join() === newest.join(), profile };
}

try {
  const folders: Array<{ names: ItemNames; dir: string; items: LibraryItem[] }> = [];
  for (const names of ['app', 'earlier'] as const) {
    const base = join(root, names);
    folders.push({ names, dir: join(base, 'library'), items: await writeLibraryItems(base, count, names) });
  }
  console.log(`${count} items per folder; versions: ${versions.map((v) => v.name).join(', ')}`);
  if (values.profile) {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    for (const version of versions) {
      const folder = folders[0]!;
      const result = await firstOpen(version.Store, folder.dir, folder.items, session);
      console.log(`profile, ${version.name}, ${folder.names} names: first page after ${result.ms} ms (load ${loadavg()[0]!.toFixed(1)}); self time (ms):`);
      for (const [name, ms] of cpuProfileTopSelf(result.profile!, 12)) console.log(`  ${ms.toFixed(1).padStart(8)}  ${name}`);
    }
    session.disconnect();
  }
  const results: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round += 1) {
    // The order of versions turns each round, so a loaded machine weighs on both alike.
    const order = round % 2 === 0 ? versions : [...versions].reverse();
    for (const folder of folders) {
      for (const version of order) {
        const floors = listingCosts(folder.dir);
        const result = await firstOpen(version.Store, folder.dir, folder.items);
        (results[`${version.name} ${folder.names}`] ??= []).push(result.ms);
        (results[`${version.name} ${folder.names}, CPU`] ??= []).push(result.cpuMs);
        console.log(`round ${round + 1}, ${folder.names} names, ${version.name}: first page ${result.ms} ms, CPU ${result.cpuMs} ms (${result.newest ? 'the newest items' : 'NOT the newest items'}); floors just before: ${JSON.stringify(floors)}; load ${loadavg()[0]!.toFixed(1)}`);
      }
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [key, xs] of Object.entries(results)) console.log(`${key}: ${xs.join(' / ')} ms, median ${median(xs)}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
