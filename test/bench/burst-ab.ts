/**
 * `tsx test/bench/burst-ab.ts` — the service bench's burst (200 concurrent streaming asks over
 * node:http, `agent: false`, pace 0; service-bench.ts) against two builds of the service in one
 * run, bursts alternated, each followed by the same burst against the plain Node server with the
 * same bytes. For A/B work on issue 31's "200 streams' first byte" figure on a shared machine,
 * where two separate runs differ more than the builds do.
 *
 *   --a <service.js>   the old build (e.g. a copy of out/main made before the change)
 *   --b <service.js>   the new build (default out/main/service.js)
 *   --rounds N         bursts per build (default 10)
 *   --lone N           first, N asks alone per build, alternated: first byte, first answer text
 *                      and last byte (median and p95), so a change for bursts that slowed an
 *                      ask alone would show (default 0)
 *   --node-flags F     Node flags for both services (e.g. '--require x.cjs'), space-separated
 *   --b-node-flags F   Node flags for build B only (a V8 flag tried against the same build)
 *   --profile DIR      run both services under --cpu-prof (written to DIR/a, DIR/b) and write
 *                      (--profile-interval µs between samples, 250 by default) and write
 *                      each burst's window (start, p95 first byte, last byte; monotonic µs, the
 *                      clock V8's profiles use) to DIR/windows.json (burst-profile.ts reads them)
 *
 * Figures, not assertions: the medians of the bursts (as the bench reports them) and the load average.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BASELINE_SERVER, QUESTIONS, percentile, spawnServer } from './service-bench';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: 'out/main/service.js' },
    rounds: { type: 'string', default: '10' },
    lone: { type: 'string', default: '0' },
    profile: { type: 'string' },
    streams: { type: 'string', default: '200' },
    'profile-interval': { type: 'string', default: '250' },
    'node-flags': { type: 'string', default: '' },
    'b-node-flags': { type: 'string', default: '' },
  },
});
if (!args.a) throw new Error('--a <old service.js> is required');
const ROUNDS = Number(args.rounds);
const CONCURRENT = Number(args.streams);

// The bench's own questions, baseline server and spawning (service-bench.ts).
const body = (i: number): string => JSON.stringify({ messages: [{ role: 'user', content: QUESTIONS[i % QUESTIONS.length] }], stream: true });

const round2 = (n: number): number => Math.round(n * 100) / 100;
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * CPU time a process's threads ran, and the main thread's wait for a CPU, in ms
 * (/proc/<pid>/task/<tid>/schedstat: ns on a CPU, ns runnable but waiting). On a shared machine
 * the wall figures swing with the other work; the CPU a burst costs the service does not.
 */
function schedstat(pid: number): { mainCpu: number; otherCpu: number; mainWait: number; v8Cpu: number; workerCpu: number } {
  let mainCpu = 0;
  let otherCpu = 0;
  let mainWait = 0;
  // The other threads by name (/proc/…/comm): V8's helpers ("V8Worker": GC and compiler), worker
  // threads ("WorkerThread": the service's PGlite thread); libuv's pool is the rest.
  let v8Cpu = 0;
  let workerCpu = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number) as [number, number];
      if (Number(tid) === pid) {
        mainCpu = run / 1e6;
        mainWait = wait / 1e6;
        continue;
      }
      otherCpu += run / 1e6;
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      if (name === 'V8Worker') v8Cpu += run / 1e6;
      else if (name === 'WorkerThread') workerCpu += run / 1e6;
    }
  } catch {
    // Not Linux, or the process is gone: no CPU figures.
  }
  return { mainCpu, otherCpu, mainWait, v8Cpu, workerCpu };
}

/**
 * One streaming ask over node:http, as the bench sends it. `onFirstByte` runs as its first byte
 * arrives. Also timed: the first answer text (the first `content_block_delta`) and the last byte.
 */
function timeToFirstByteHttp(url: string, payload: string, onFirstByte: () => void = () => undefined, onSent: () => void = () => undefined): Promise<{ ttfb: number; firstText: number; total: number; bytes: number }> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const request = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, agent: false }, (response) => {
      let ttfb = -1;
      let firstText = -1;
      let bytes = 0;
      let tail = '';
      response.on('data', (chunk: Buffer) => {
        if (ttfb < 0) {
          ttfb = performance.now() - started;
          onFirstByte();
        }
        bytes += chunk.length;
        if (firstText < 0) {
          const text = tail + chunk.toString('latin1');
          if (text.includes('event: content_block_delta')) firstText = performance.now() - started;
          tail = text.slice(-40);
        }
      });
      response.on('end', () => resolvePromise({ ttfb, firstText, total: performance.now() - started, bytes }));
      response.on('error', reject);
    });
    request.on('error', reject);
    // 'finish': the whole request was handed to the OS (the client's side of sending it is done).
    request.on('finish', onSent);
    request.end(payload);
  });
}

type Cpu = ReturnType<typeof schedstat>;
interface Burst {
  /** The server's CPU over the whole burst, and from its start to the p95 first byte. */
  cpu: Cpu;
  cpuToP95: Cpu;
  errors: number;
  p50: number;
  p95: number;
  firstTextP95: number;
  lastByteP95: number;
  /** When the client had handed the last of the 200 requests to the OS (ms from the burst's start). */
  sentMs: number;
  /** The client's (this process's) CPU from the burst's start to the p95 first byte, ms. */
  clientCpuToP95: number;
  wallMs: number;
  startUs: number;
  load: number;
}

const minus = (after: Cpu, before: Cpu): Cpu => ({
  mainCpu: after.mainCpu - before.mainCpu,
  otherCpu: after.otherCpu - before.otherCpu,
  mainWait: after.mainWait - before.mainWait,
  v8Cpu: after.v8Cpu - before.v8Cpu,
  workerCpu: after.workerCpu - before.workerCpu,
});

async function burst(url: string, round: number, pid: number): Promise<Burst> {
  const load = loadavg()[0]!;
  const before = schedstat(pid);
  let atP95: Cpu | null = null;
  let firstBytes = 0;
  let sent = 0;
  let sentMs = -1;
  let clientAtP95 = 0;
  const clientBefore = process.cpuUsage();
  // The server's CPU read as the p95 first byte arrives (one small file read per thread).
  const onFirstByte = (): void => {
    firstBytes += 1;
    if (firstBytes === Math.floor(0.95 * CONCURRENT) + 1) {
      atP95 = schedstat(pid);
      const used = process.cpuUsage(clientBefore);
      clientAtP95 = (used.user + used.system) / 1000;
    }
  };
  const onSent = (): void => {
    sent += 1;
    if (sent === CONCURRENT) sentMs = performance.now() - started;
  };
  const startUs = nowUs();
  const started = performance.now();
  const settled = await Promise.allSettled(Array.from({ length: CONCURRENT }, (_, i) => timeToFirstByteHttp(url, body(round * CONCURRENT + i), onFirstByte, onSent)));
  const wallMs = performance.now() - started;
  const after = schedstat(pid);
  const done = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const ttfb = done.map((r) => r.ttfb);
  return {
    cpu: minus(after, before),
    cpuToP95: minus(atP95 ?? after, before),
    errors: settled.filter((r) => r.status === 'rejected' || r.value.bytes < 1000).length,
    p50: percentile(ttfb, 50),
    p95: percentile(ttfb, 95),
    firstTextP95: percentile(done.map((r) => r.firstText), 95),
    lastByteP95: percentile(done.map((r) => r.total), 95),
    sentMs,
    clientCpuToP95: clientAtP95,
    wallMs,
    startUs,
    load,
  };
}

const scratch = await mkdtemp(join(tmpdir(), 'clarity-burst-ab-'));
const profileDir = args.profile ? resolve(args.profile) : null;
const serviceArgs = (name: string): string[] => [
  ...(args['node-flags'] ? args['node-flags'].split(' ') : []),
  ...(name === 'b' && args['b-node-flags'] ? args['b-node-flags'].split(' ') : []),
  ...(profileDir ? ['--cpu-prof', '--cpu-prof-interval', args['profile-interval'] ?? '250', '--cpu-prof-dir', join(profileDir, name)] : []),
  resolve(name === 'a' ? args.a! : args.b!),
  '--port',
  '0',
  '--pace-ms',
  '0',
  '--no-live',
  '--ask-limit',
  '1000000',
  '--data-dir',
  join(scratch, name),
];
if (profileDir) await mkdir(profileDir, { recursive: true });
await mkdir(join(scratch, 'a'));
await mkdir(join(scratch, 'b'));
const services = { a: await spawnServer(serviceArgs('a')), b: await spawnServer(serviceArgs('b')) };

// The baseline serves the bytes captured from build A (as the bench captures them from the service).
const captured = await Promise.all(QUESTIONS.map(async (_, i) => Buffer.from(await (await fetch(`${services.a.url}/api/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) })).arrayBuffer())));
const capturedFile = join(scratch, 'captured.json');
await writeFile(capturedFile, JSON.stringify(captured.map((bytes) => bytes.toString('base64'))));
const baseline = await spawnServer([...(profileDir ? ['--cpu-prof', '--cpu-prof-interval', args['profile-interval'] ?? '250', '--cpu-prof-dir', join(profileDir, 'floor')] : []), '-e', profileDir ? `${BASELINE_SERVER}\nprocess.on('SIGTERM', () => process.exit(0));` : BASELINE_SERVER, capturedFile]);

// Warm-up, as the bench's 220 single asks warm each server before its bursts.
for (let i = 0; i < 40; i += 1) {
  for (const url of [`${services.a.url}/api/v1/ask`, `${services.b.url}/api/v1/ask`, `${baseline.url}/`]) await timeToFirstByteHttp(url, body(i));
}

console.log(`load average at start: ${loadavg().map(round2).join(' ')}`);
const LONE = Number(args.lone);
if (LONE > 0) {
  const lone: Record<'a' | 'b', Array<{ ttfb: number; firstText: number; total: number }>> = { a: [], b: [] };
  for (let i = 0; i < LONE; i += 1) {
    for (const name of i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) lone[name].push(await timeToFirstByteHttp(`${services[name].url}/api/v1/ask`, body(i)));
  }
  for (const name of ['a', 'b'] as const) {
    const figures = (pick: (r: { ttfb: number; firstText: number; total: number }) => number): string => `${round2(percentile(lone[name].map(pick), 50))} / ${round2(percentile(lone[name].map(pick), 95))}`;
    console.log(`${name} alone (${LONE} asks, median / p95 ms): first byte ${figures((r) => r.ttfb)}, first answer text ${figures((r) => r.firstText)}, last byte ${figures((r) => r.total)}`);
  }
  console.log(`load average after the asks alone: ${loadavg().map(round2).join(' ')}`);
}
const results: Record<'a' | 'b', { service: Burst[]; baseline: Burst[] }> = { a: { service: [], baseline: [] }, b: { service: [], baseline: [] } };
for (let r = 0; r < ROUNDS; r += 1) {
  const order: Array<'a' | 'b'> = r % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
  for (const name of order) {
    const s = await burst(`${services[name].url}/api/v1/ask`, r, services[name].child.pid!);
    const base = await burst(`${baseline.url}/`, r, baseline.child.pid!);
    results[name].service.push(s);
    results[name].baseline.push(base);
    console.log(
      `round ${r} ${name}: client sent all ${round2(s.sentMs)} / ${round2(base.sentMs)} ms, client CPU to p95 ${round2(s.clientCpuToP95)} / ${round2(base.clientCpuToP95)} ms (service / plain Node); plain Node CPU to p95 ${round2(base.cpuToP95.mainCpu)} ms`,
    );
    console.log(
      `round ${r} ${name}: service p95 ${round2(s.p95)} (p50 ${round2(s.p50)}; first text p95 ${round2(s.firstTextP95)}, last byte p95 ${round2(s.lastByteP95)}; errors ${s.errors}) | plain Node p95 ${round2(base.p95)} | ratio ${round2(s.p95 / base.p95)} | load ${round2(s.load)} | service CPU to p95: main ${round2(s.cpuToP95.mainCpu)} + threads ${round2(s.cpuToP95.otherCpu)} ms (V8 helpers ${round2(s.cpuToP95.v8Cpu)}, database thread ${round2(s.cpuToP95.workerCpu)}; main waited ${round2(s.cpuToP95.mainWait)}); whole burst ${round2(s.cpu.mainCpu)} + ${round2(s.cpu.otherCpu)} ms; plain Node ${round2(base.cpu.mainCpu)} ms`,
    );
  }
}

const median = (bursts: Burst[]): Burst => [...bursts].sort((x, y) => x.p95 - y.p95)[Math.floor(bursts.length / 2)]!;
const medianOf = (values: number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
for (const name of ['a', 'b'] as const) {
  const { service, baseline: base } = results[name];
  const s = median(service);
  const b = median(base);
  const m = (pick: (burstResult: Burst) => number): number => round2(medianOf(service.map(pick)));
  console.log(`${name} (${name === 'a' ? args.a : args.b}):`);
  console.log(
    `  median burst p95 ${round2(s.p95)} ms (p50 ${round2(s.p50)}), plain Node ${round2(b.p95)} ms: ${round2(s.p95 / b.p95)} x; median of per-burst ratios ${round2(medianOf(service.map((x, i) => x.p95 / base[i]!.p95)))}; worst p95 ${round2(Math.max(...service.map((x) => x.p95)))}; errors ${service.reduce((n, x) => n + x.errors, 0)}`,
  );
  console.log(`  medians over bursts: first answer text p95 ${m((x) => x.firstTextP95)} ms, last byte p95 ${m((x) => x.lastByteP95)} ms, wall ${m((x) => x.wallMs)} ms`);
  console.log(
    `  service CPU from burst start to p95 first byte (median): main thread ${m((x) => x.cpuToP95.mainCpu)} ms, other threads ${m((x) => x.cpuToP95.otherCpu)} ms (V8 helpers ${m((x) => x.cpuToP95.v8Cpu)}, database thread ${m((x) => x.cpuToP95.workerCpu)}), main thread waiting for a CPU ${m((x) => x.cpuToP95.mainWait)} ms`,
  );
  console.log(
    `  plain Node (the bursts after this build's): CPU from burst start to p95 first byte (median) ${round2(medianOf(base.map((x) => x.cpuToP95.mainCpu)))} ms; client sent all its requests at (median) ${m((x) => x.sentMs)} ms (service) / ${round2(medianOf(base.map((x) => x.sentMs)))} ms (plain Node); client CPU to p95 ${m((x) => x.clientCpuToP95)} / ${round2(medianOf(base.map((x) => x.clientCpuToP95)))} ms`,
  );
  console.log(
    `  service CPU per whole burst (median): main ${m((x) => x.cpu.mainCpu)} ms, other threads ${m((x) => x.cpu.otherCpu)} ms; plain Node per burst ${round2(medianOf(base.map((x) => x.cpu.mainCpu)))} ms`,
  );
}
console.log(`load average at end: ${loadavg().map(round2).join(' ')}`);

const exited = Object.values(services).map((service) => new Promise((resolveExit) => service.child.once('exit', resolveExit)));
for (const service of Object.values(services)) service.child.kill('SIGTERM');
const baselineExited = new Promise((resolveExit) => baseline.child.once('exit', resolveExit));
// Profiled, the plain Node server exits on SIGTERM itself (added above), so --cpu-prof writes its profile.
baseline.child.kill('SIGTERM');
await Promise.all([...exited, baselineExited]);
if (profileDir) {
  const windows = Object.fromEntries(
    (['a', 'b'] as const).map((name) => [name, results[name].service.map((b) => ({ startUs: b.startUs, p95Us: b.startUs + b.p95 * 1000, endUs: b.startUs + b.wallMs * 1000, p95: b.p95 }))]),
  );
  // The plain Node server's bursts (after both builds'), profiled as the floor.
  windows.floor = [...results.a.baseline, ...results.b.baseline].map((b) => ({ startUs: b.startUs, p95Us: b.startUs + b.p95 * 1000, endUs: b.startUs + b.wallMs * 1000, p95: b.p95 }));
  await writeFile(join(profileDir, 'windows.json'), JSON.stringify(windows, null, 1));
  console.log(`profiles in ${profileDir}/a and ${profileDir}/b; windows in ${profileDir}/windows.json`);
}
await rm(scratch, { recursive: true, force: true });
