/**
 * Benchmark only (issue 48 item 4): the restart of the embedded default over N fetched signals
 * (and the empty database's start, the floor), two or more builds of the service side by side.
 * `npx tsx test/bench/restart-ab.ts --variant main=out-main/main/service.js --variant new=out/main/service.js
 * [--rounds 5] [--signals 100000] [--profile DIR]`. Each build gets its own data directories,
 * made as the storage bench makes them (a first start, the rows written, a start reading every
 * row); then each round starts every variant once over its 100,000 and once empty, the order
 * turning each round, so a loaded machine weighs on all alike. Per start: spawn → listening →
 * a cited answer → index ready (ms), and the CPU each thread of the service had used when the
 * answer came (/proc/<pid>/task/<tid>/schedstat), with the load average beside.
 * --profile DIR: every start also writes a CPU profile of its main thread there (not the figure).
 * --kinds restart,empty,new: `new` starts in a new, empty data folder each time (an analyst's first
 * start, each integration test's service; the user cache's templates as a previous start left
 * them: each variant makes one new folder first, unmeasured); --service-args="…" are added to every
 * start's (e.g. --service-args="--signals 3000", as the integration tests start it). Every start also reports
 * the CPU of the whole process (every thread, ended ones too: /proc/<pid>/stat) at the answer and
 * at index ready, and with --settle-ms N once more N ms after ready (work a start leaves for after
 * it, such as Discover's timeline before round 8).
 */
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateCorpus } from '../../src/service/corpus/generator';
import { openEmbeddedDatabase } from '../../src/service/store/embedded';
import { SignalRepository, type StoredSignal } from '../../src/service/store/signal-repository';
import { startServiceProcess } from '../support/service-process';
import { startAnswering, type Answering } from './start-1m-bench';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, signals: { type: 'string', default: '100000' }, variant: { type: 'string', multiple: true }, profile: { type: 'string' }, keep: { type: 'string' }, kinds: { type: 'string', default: 'restart,empty' }, 'service-args': { type: 'string', default: '' }, 'settle-ms': { type: 'string', default: '0' } },
});
const variants = (values.variant ?? ['current=out/main/service.js']).map((spec) => {
  // `name=[node flags …] entry`: variants of one build (same entry) share its data directories.
  const [name, ...rest] = spec.split('=');
  const words = rest.join('=').split(' ').filter(Boolean);
  return { name: name!, entry: words.at(-1)!, flags: words.slice(0, -1) };
});
const QUESTION = 'How fast is DMart growing?';
const count = Number(values.signals);
type Kind = 'restart' | 'empty' | 'new';
const kinds = values.kinds.split(',') as Kind[];
const extraArgs = values['service-args'].split(' ').filter(Boolean);
/** Clock ticks per second, for /proc/<pid>/stat's utime and stime. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU ms of the whole process so far: every thread's, ended ones included. */
async function processCpu(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

/** CPU ms each thread of `pid` has run so far, by thread name (threads of one name summed). */
async function threadCpu(pid: number): Promise<Record<string, number>> {
  const byName: Record<string, number> = {};
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const tid of tids) {
    try {
      const name = (await readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8')).trim();
      const ns = Number((await readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')).split(' ')[0]);
      const key = tid === String(pid) ? 'main' : name;
      byName[key] = (byName[key] ?? 0) + ns / 1e6;
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return byName;
}

interface Run {
  variant: string;
  kind: Kind;
  /** CPU ms of the whole process at the answer and at index ready. */
  processAtAnswer: number;
  processAtReady: number;
  /** CPU ms of the whole process --settle-ms after ready (0: not read). */
  processSettled: number;
  listen: number;
  answer: number;
  ready: number;
  state: string | null;
  cited: boolean;
  cpu: Record<string, number>;
  load: number;
}

const args = (home: string): string[] => ['--port', '0', '--pace-ms', '0', '--no-live', ...extraArgs, '--data-dir', home];
const entryOf = (variant: { entry: string; flags: string[] }, label: string): string[] => [...variant.flags, ...(values.profile ? ['--cpu-prof', '--cpu-prof-dir', values.profile, '--cpu-prof-name', `${label}-${Date.now()}.cpuprofile`] : []), variant.entry];

async function once(variant: { name: string; entry: string; flags: string[] }, kind: Kind, home: string): Promise<Run> {
  const load = loadavg()[0]!;
  let cpu: Record<string, number> = {};
  let processAtAnswer = 0;
  let processAtReady = 0;
  let pending: Promise<void> = Promise.resolve();
  let readyRead: Promise<void> = Promise.resolve();
  const run: Answering = await startAnswering(args(home), 600_000, QUESTION, entryOf(variant, `${variant.name}-${kind}`), (answered) => {
    const pid = answered.service.child.pid!;
    pending = Promise.all([threadCpu(pid), processCpu(pid)]).then(([threads, whole]) => {
      cpu = threads;
      processAtAnswer = whole;
    });
    // Read the moment the service says its index is ready.
    readyRead = answered.service.readyAt.then(async () => void (processAtReady = await processCpu(pid)));
  });
  await pending;
  await readyRead;
  let processSettled = 0;
  const settleMs = Number(values['settle-ms']);
  if (settleMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    processSettled = await processCpu(run.service.child.pid!);
  }
  await run.service.stop();
  return { variant: variant.name, kind, listen: run.listenMs, answer: run.answerMs, ready: run.readyMs, state: run.indexState, cited: run.cited, cpu, load, processAtAnswer, processAtReady, processSettled };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

async function main(): Promise<void> {
  const scratch = values.keep ?? (await mkdtemp(join(tmpdir(), 'clarity-restart-ab-')));
  const homes = new Map<string, { restart: string; empty: string; new: string }>();
  try {
    const seeded = join(scratch, 'seeded');
    const prepared = await readdir(seeded).then(
      () => true,
      () => false,
    );
    if (!prepared && kinds.includes('restart')) {
      console.log(`preparing ${count} fetched signals…`);
      await (await startServiceProcess(args(seeded), 600_000, [variants[0]!.entry])).stop();
      const db = await openEmbeddedDatabase(seeded);
      const rows: StoredSignal[] = generateCorpus({ signalCount: count, seed: 7 }).signals.map((signal, i) => ({ ...signal, id: `sig_fe${i.toString(16).padStart(14, '0')}`, slug: `${signal.slug}-feed`, origin: 'feed' }));
      await new SignalRepository(db).put(rows, { timeoutMs: 300_000 });
      await db.close();
    }
    for (const variant of variants) {
      const build = variant.entry.replace(/[^a-z0-9]+/gi, '_');
      const restart = join(scratch, `${build}-restart`);
      const empty = join(scratch, `${build}-empty`);
      homes.set(variant.name, { restart, empty, new: join(scratch, `${build}-new`) });
      if (kinds.includes('new')) {
        // One new folder first, unmeasured: the user cache then holds what this build's first start leaves there.
        await (await startServiceProcess(args(join(scratch, `${build}-first`)), 600_000, [variant.entry])).stop();
        await rm(join(scratch, `${build}-first`), { recursive: true, force: true });
      }
      if (kinds.includes('restart') && !(await readdir(restart).catch(() => null))) {
        await rm(restart, { recursive: true, force: true });
        await cp(seeded, restart, { recursive: true });
        // Its own first start: reads every row, writes its snapshot and corpus cache (keyed by its code).
        await (await startServiceProcess(args(restart), 1_800_000, [variant.entry])).stop();
      }
      if (kinds.includes('empty') && !(await readdir(empty).catch(() => null))) await (await startServiceProcess(args(empty), 600_000, [variant.entry])).stop();
    }
    const runs: Run[] = [];
    const rounds = Number(values.rounds);
    for (let round = 0; round < rounds; round += 1) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      for (const kind of kinds) {
        for (const variant of order) {
          const home = homes.get(variant.name)![kind];
          if (kind === 'new') await rm(home, { recursive: true, force: true });
          const run = await once(variant, kind, home);
          if (kind === 'new') await rm(home, { recursive: true, force: true });
          runs.push(run);
          const cpu = Object.entries(run.cpu)
            .sort((a, b) => b[1] - a[1])
            .map(([name, ms]) => `${name} ${Math.round(ms)}`)
            .join(', ');
          console.log(
            `round ${round + 1} ${variant.name.padEnd(8)} ${kind.padEnd(7)} listen ${Math.round(run.listen)} answer ${Math.round(run.answer)} ready ${Math.round(run.ready)} (${run.state}, cited ${run.cited}) load ${run.load.toFixed(2)} | process cpu at answer ${Math.round(run.processAtAnswer)}, at ready ${Math.round(run.processAtReady)}, settled ${Math.round(run.processSettled)} | cpu at answer: ${cpu}`,
          );
        }
      }
    }
    console.log('\nmedians (ms):');
    for (const variant of variants) {
      for (const kind of kinds) {
        const mine = runs.filter((run) => run.variant === variant.name && run.kind === kind);
        const cpuMain = median(mine.map((run) => run.cpu.main ?? 0));
        const cpuAll = median(mine.map((run) => Object.values(run.cpu).reduce((a, b) => a + b, 0)));
        console.log(
          `${variant.name.padEnd(8)} ${kind.padEnd(7)} answer ${Math.round(median(mine.map((r) => r.answer)))} (${mine.map((r) => Math.round(r.answer)).join(', ')}) listen ${Math.round(median(mine.map((r) => r.listen)))} ready ${Math.round(median(mine.map((r) => r.ready)))} | cpu at answer: main ${Math.round(cpuMain)}, all threads ${Math.round(cpuAll)} | process cpu at answer ${Math.round(median(mine.map((r) => r.processAtAnswer)))}, at ready ${Math.round(median(mine.map((r) => r.processAtReady)))} (${mine.map((r) => Math.round(r.processAtReady)).join(', ')}), settled ${Math.round(median(mine.map((r) => r.processSettled)))} (${mine.map((r) => Math.round(r.processSettled)).join(', ')}) | load ${mine.map((r) => r.load.toFixed(1)).join(' ')}`,
        );
      }
    }
  } finally {
    if (!values.keep) await rm(scratch, { recursive: true, force: true });
  }
}

await main();
